public import PasskeyClient

/// Where the software authenticator keeps its credentials and private keys.
///
/// Every operation is async and throws ``PasskeyError`` with stage `storage`, so a store can be an actor, a file, or
/// later the Keychain.
public protocol CredentialStore: Sendable {
    /// The credentials scoped to `rpID`, in the order they were first saved.
    func credentials(rpID: String) async throws(PasskeyError) -> [StoredCredential]

    /// Every credential.
    func allCredentials() async throws(PasskeyError) -> [StoredCredential]

    /// Saves `credential`, replacing the credential with the same ID (an update), and removing any other credential
    /// for the same RP ID and user handle: platform authenticators keep one passkey per account, so registering again
    /// replaces the old one. Returns the credentials that were removed that way (not the one updated in place).
    @discardableResult
    func save(_ credential: StoredCredential) async throws(PasskeyError) -> [StoredCredential]

    /// Deletes the credential with this ID; returns whether there was one.
    @discardableResult
    func removeCredential(id: [UInt8]) async throws(PasskeyError) -> Bool
}

extension [StoredCredential] {
    /// Applies the ``CredentialStore/save(_:)`` rule to a list; returns the credentials it displaced.
    /// Shared by the stores (this module's and those layered on them) so they cannot drift apart.
    @discardableResult
    public mutating func applySave(_ credential: StoredCredential) -> [StoredCredential] {
        let displaced = filter { $0.id != credential.id && $0.rpID == credential.rpID && $0.userHandle == credential.userHandle }
        if let index = firstIndex(where: { $0.id == credential.id }) {
            self[index] = credential
        } else {
            append(credential)
        }
        removeAll { $0.id != credential.id && $0.rpID == credential.rpID && $0.userHandle == credential.userHandle }
        return displaced
    }
}
