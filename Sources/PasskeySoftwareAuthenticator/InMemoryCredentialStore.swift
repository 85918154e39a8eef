import PasskeyClient

/// Credentials kept in memory only: gone when the process ends. The default store, right for tests and previews.
public actor InMemoryCredentialStore: CredentialStore {
    private var stored: [StoredCredential]

    public init(_ credentials: [StoredCredential] = []) { stored = credentials }

    public func credentials(rpID: String) -> [StoredCredential] { stored.filter { $0.rpID == rpID } }

    public func allCredentials() -> [StoredCredential] { stored }

    @discardableResult
    public func save(_ credential: StoredCredential) -> [StoredCredential] { stored.applySave(credential) }

    public func renameUser(rpID: String, userHandle: [UInt8], name: String, displayName: String) {
        stored.applyNames(rpID: rpID, userHandle: userHandle, name: name, displayName: displayName)
    }

    public func writeLargeBlob(_ blob: [UInt8], toCredential id: [UInt8]) -> Bool { stored.applyLargeBlob(blob, toCredential: id) }

    @discardableResult
    public func removeCredential(id: [UInt8]) -> Bool {
        let before = stored.count
        stored.removeAll { $0.id == id }
        return stored.count != before
    }
}
