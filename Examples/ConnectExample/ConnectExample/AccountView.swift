import PasskeyClient
import SwiftUI

/// The signed-in screen: the passkey prompt after a password sign-in, and the account's passkeys with add, rename and
/// delete.
struct AccountView: View {
    let model: ConnectModel
    @State private var renaming: PasskeyInfo?
    @State private var newName = ""

    var body: some View {
        @Bindable var model = model
        List {
            Section("Passkeys") {
                ForEach(model.passkeys) { passkey in
                    PasskeyRow(passkey: passkey)
                        .swipeActions {
                            Button("Delete", role: .destructive) { Task { await model.delete(passkey) } }
                            Button("Rename") {
                                newName = passkey.name
                                renaming = passkey
                            }
                        }
                }
                if model.canAddPasskey {
                    Button("Add a passkey") { Task { await model.addPasskey() } }
                }
            }
            if let message = model.message {
                Section { Text(message).foregroundStyle(.secondary) }
            }
            Section {
                Button("Sign out") { model.signOut() }
            }
        }
        .disabled(model.isBusy)
        .navigationTitle("Account")
        .task { await model.loadPasskeys() }
        .refreshable { await model.loadPasskeys() }
        .alert("Rename passkey", isPresented: Binding(get: { renaming != nil }, set: { if !$0 { renaming = nil } })) {
            TextField("Name", text: $newName)
            Button("Save") {
                if let passkey = renaming { Task { await model.rename(passkey, to: newName) } }
            }
            Button("Cancel", role: .cancel) {}
        }
        .alert("Sign in faster next time?", isPresented: $model.offersPasskey) {
            Button("Add a passkey") { Task { await model.addPasskeyFromPrompt() } }
            Button("Not now", role: .cancel) { Task { await model.declinePasskey() } }
        } message: {
            Text("A passkey signs you in with Face ID or Touch ID, without a password.")
        }
    }
}
