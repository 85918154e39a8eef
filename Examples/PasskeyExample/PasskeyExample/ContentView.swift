import SwiftUI

struct ContentView: View {
    @State private var model = PasskeyModel()

    var body: some View {
        NavigationStack {
            Form {
                switch model.state {
                case .signedIn(let username, let userId):
                    Section("Signed in") {
                        LabeledContent("Account", value: username ?? "anonymous")
                        LabeledContent("User ID", value: userId)
                        Button("Sign out") { model.signOut() }
                    }
                case .signedOut:
                    Section {
                        // `.username` makes iOS offer passkeys for this app's domain in the QuickType bar (AutoFill).
                        TextField("Username", text: $model.username)
                            .textContentType(.username)
                            .textInputAutocapitalization(.never)
                            .autocorrectionDisabled()
                        Button("Sign in with a passkey") { Task { await model.signIn() } }
                        Button("Create an account with a passkey") { Task { await model.createAccount() } }
                    }
                    .disabled(model.isBusy)
                }
                if let message = model.message {
                    Section { Text(message).foregroundStyle(.secondary) }
                }
            }
            .navigationTitle("Passkeys")
        }
        .onAppear { model.startAutoFill() }
        .onDisappear { model.stopAutoFill() }
    }
}
