import Foundation
import PasskeyClient
import PasskeySoftwareAuthenticator

/// The credential file as a registration (`register`, `append`) sees it: a new passkey is held in memory until the
/// server has verified it, and only then written with ``commit()``.
///
/// The software authenticator saves a passkey as soon as it makes one, before the server has seen it. Written straight
/// to the file, a passkey the server refused (origin_mismatch, an expired token) stayed there, and a later
/// `passkey login` picked it and failed with credential_unknown. Worse, a save replaces the older passkey of the same
/// account (one passkey per RP ID and user handle), so a refused `append` would have thrown away the account's
/// working passkey. Reads see the file with the pending passkeys applied, as the authenticator expects.
actor PendingCredentialStore: CredentialStore {
    let file: FileCredentialStore
    private var pending: [StoredCredential] = []

    init(file: FileCredentialStore) { self.file = file }

    func credentials(rpID: String) async throws(PasskeyError) -> [StoredCredential] {
        try await allCredentials().filter { $0.rpID == rpID }
    }

    func allCredentials() async throws(PasskeyError) -> [StoredCredential] {
        var all = try await file.allCredentials()
        for credential in pending { all.applySave(credential) }
        return all
    }

    @discardableResult
    func save(_ credential: StoredCredential) async throws(PasskeyError) -> [StoredCredential] {
        var all = try await allCredentials()
        let displaced = all.applySave(credential)
        pending.applySave(credential)
        return displaced
    }

    @discardableResult
    func removeCredential(id: [UInt8]) async throws(PasskeyError) -> Bool {
        if pending.contains(where: { $0.id == id }) {
            pending.removeAll { $0.id == id }
            return true
        }
        return try await file.removeCredential(id: id)
    }

    func recordUse(ofCredential id: [UInt8], counter: CounterBehavior, at date: Date) async throws(PasskeyError) -> StoredCredential? {
        if let index = pending.firstIndex(where: { $0.id == id }) {
            pending[index] = pending[index].used(counter: counter, at: date)
            return pending[index]
        }
        return try await file.recordUse(ofCredential: id, counter: counter, at: date)
    }

    // A layered store forwards the one-step changes (CredentialStore's contract), so a change to a passkey in the file
    // is made under the file's lock, and one to a pending passkey stays pending.

    func renameUser(rpID: String, userHandle: [UInt8], name: String, displayName: String) async throws(PasskeyError) {
        pending.applyNames(rpID: rpID, userHandle: userHandle, name: name, displayName: displayName)
        try await file.renameUser(rpID: rpID, userHandle: userHandle, name: name, displayName: displayName)
    }

    func writeLargeBlob(_ blob: [UInt8], toCredential id: [UInt8]) async throws(PasskeyError) -> Bool {
        if pending.contains(where: { $0.id == id }) { return pending.applyLargeBlob(blob, toCredential: id) }
        return try await file.writeLargeBlob(blob, toCredential: id)
    }

    /// Writes the passkeys the server verified. Call only after the server accepted the registration.
    func commit() async throws(PasskeyError) {
        for credential in pending { try await file.save(credential) }
        pending = []
    }
}
