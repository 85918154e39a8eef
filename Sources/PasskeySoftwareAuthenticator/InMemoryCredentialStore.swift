public import Foundation
import PasskeyClient

/// Credentials kept in memory only: gone when the process ends. The default store, right for tests and previews.
public actor InMemoryCredentialStore: CredentialStore {
    private var stored: [StoredCredential]

    public init(_ credentials: [StoredCredential] = []) { stored = credentials }

    public func credentials(rpID: String) -> [StoredCredential] { stored.filter { $0.rpID == rpID } }

    public func allCredentials() -> [StoredCredential] { stored }

    @discardableResult
    public func save(_ credential: StoredCredential) -> [StoredCredential] { stored.applySave(credential) }

    // The one-step changes, declared `async` as the protocol declares them (a synchronous actor method would not replace
    // the protocol extension's read-then-save default for callers outside the actor), each without a suspension.

    public func recordUse(ofCredential id: [UInt8], counter: CounterBehavior, at date: Date) async -> StoredCredential? {
        guard let index = stored.firstIndex(where: { $0.id == id }) else { return nil }
        stored[index] = stored[index].used(counter: counter, at: date)
        return stored[index]
    }

    public func renameUser(rpID: String, userHandle: [UInt8], name: String, displayName: String) async {
        stored.applyNames(rpID: rpID, userHandle: userHandle, name: name, displayName: displayName)
    }

    public func writeLargeBlob(_ blob: [UInt8], toCredential id: [UInt8]) async -> Bool { stored.applyLargeBlob(blob, toCredential: id) }

    @discardableResult
    public func removeCredential(id: [UInt8]) -> Bool {
        let before = stored.count
        stored.removeAll { $0.id == id }
        return stored.count != before
    }
}
