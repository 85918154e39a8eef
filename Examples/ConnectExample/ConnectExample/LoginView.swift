import SwiftUI

/// The login screen as the server decides it: one-tap for the last account used here, the identifier field with
/// passkeys in its AutoFill, or the app's password form.
struct LoginView: View {
    let model: ConnectModel

    var body: some View {
        @Bindable var model = model
        Form {
            switch model.loginScreen {
            case .deciding:
                ProgressView()
            case .oneTap(let identifier):
                Section {
                    Button("Continue as \(identifier)") { Task { await model.loginWithOneTap() } }
                    Button("Use another account") { Task { await model.useAnotherAccount() } }
                }
            case .identifier(let autoFill):
                Section {
                    // AutoFill needs .username on the field.
                    TextField("Email", text: $model.identifier)
                        .textContentType(.username).keyboardType(.emailAddress).textInputAutocapitalization(.never)
                    Button("Sign in with a passkey") { Task { await model.loginWithIdentifier() } }
                    Button("Sign in with a password") { model.loginScreen = .password }
                }
                // Offers the device's passkeys in the field's QuickType bar until one is picked, a button's request
                // replaces it (which bumps the round, so it starts again), or the screen goes away.
                .task(id: model.autoFillRound) { if autoFill { await model.loginWithAutoFill() } }
            case .password:
                Section {
                    TextField("Email", text: $model.identifier)
                        .textContentType(.username).keyboardType(.emailAddress).textInputAutocapitalization(.never)
                    SecureField("Password", text: $model.password).textContentType(.password)
                    Button("Sign in") { Task { await model.loginWithPassword() } }
                }
            }
            if let message = model.message {
                Section { Text(message).foregroundStyle(.secondary) }
            }
        }
        .disabled(model.isBusy)
        .navigationTitle("Sign in")
        .task { await model.decideLogin() }
    }
}
