public import Foundation
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

    /// Records a sign-in with the credential `id` before it signs, in one step: moves its counter per `counter` and its
    /// last use to `date`, and returns the credential as updated (nil when it is gone). Two sign-ins at once, even
    /// from two processes sharing a store, must get different counter values: with the same value the relying party
    /// refuses the second as a counter regression (§6.1.1). The default reads and then saves with a suspension in
    /// between, so it is not atomic: a store implements this itself, declared `async` (a synchronous actor method does
    /// not replace the default for callers outside the actor), and a store layered on another (a cache, a wrapper)
    /// forwards it, as ``FileCredentialStore`` does it under its file lock.
    func recordUse(ofCredential id: [UInt8], counter: CounterBehavior, at date: Date) async throws(PasskeyError) -> StoredCredential?

    /// Gives the account's credentials (`rpID`, `userHandle`) the user name `name` and, when not empty, the display name
    /// `displayName`, in one step: what a passkey manager does on `signalCurrentUserDetails` (WebAuthn L3 §5.1.10). Only
    /// the names change, so a sign-in or a removal at the same time is never undone. The default reads and then saves,
    /// not atomically (see ``recordUse(ofCredential:counter:at:)``); ``FileCredentialStore`` and
    /// ``InMemoryCredentialStore`` do it in one step.
    func renameUser(rpID: String, userHandle: [UInt8], name: String, displayName: String) async throws(PasskeyError)

    /// Stores `blob` as the large blob of the credential `id` (`largeBlob` write, WebAuthn L3 §10.1.5), replacing the
    /// one before, in one step: only that member changes, so a sign-in or removal at the same time is never undone.
    /// Returns false, storing nothing, when the credential is gone or was created without large-blob support. The
    /// default reads and then saves, not atomically (see ``recordUse(ofCredential:counter:at:)``);
    /// ``FileCredentialStore`` and ``InMemoryCredentialStore`` do it in one step.
    func writeLargeBlob(_ blob: [UInt8], toCredential id: [UInt8]) async throws(PasskeyError) -> Bool
}

extension CredentialStore {
    /// Reads, updates and saves, with suspensions in between: not atomic. Stores implement it themselves.
    public func recordUse(ofCredential id: [UInt8], counter: CounterBehavior, at date: Date) async throws(PasskeyError) -> StoredCredential? {
        guard let credential = try await allCredentials().first(where: { $0.id == id }) else { return nil }
        let updated = credential.used(counter: counter, at: date)
        try await save(updated)
        return updated
    }

    /// Reads, stores the blob and saves.
    public func writeLargeBlob(_ blob: [UInt8], toCredential id: [UInt8]) async throws(PasskeyError) -> Bool {
        var credentials = try await allCredentials()
        guard credentials.applyLargeBlob(blob, toCredential: id), let updated = credentials.first(where: { $0.id == id }) else { return false }
        try await save(updated)
        return true
    }

    /// Reads, renames and saves each credential that changes.
    public func renameUser(rpID: String, userHandle: [UInt8], name: String, displayName: String) async throws(PasskeyError) {
        var credentials = try await allCredentials()
        let before = credentials
        credentials.applyNames(rpID: rpID, userHandle: userHandle, name: name, displayName: displayName)
        for (old, new) in zip(before, credentials) where old != new { try await save(new) }
    }
}

extension StoredCredential {
    /// This credential after one more sign-in: the counter moved per `counter` (it stays at its maximum rather than
    /// wrap), the last use at `date`.
    public func used(counter: CounterBehavior, at date: Date) -> StoredCredential {
        var updated = self
        switch counter {
        case .incrementing: updated.signCount = signCount == .max ? .max : signCount + 1
        case .alwaysZero: updated.signCount = 0
        }
        updated.lastUsedAt = date
        return updated
    }
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

    /// Applies the ``CredentialStore/writeLargeBlob(_:toCredential:)`` rule to a list; returns whether the blob was stored.
    public mutating func applyLargeBlob(_ blob: [UInt8], toCredential id: [UInt8]) -> Bool {
        guard let index = firstIndex(where: { $0.id == id }), self[index].largeBlobSupported, blob.count <= StoredCredential.largeBlobLimit else {
            return false
        }
        self[index].largeBlob = blob
        return true
    }

    /// Applies the ``CredentialStore/renameUser(rpID:userHandle:name:displayName:)`` rule to a list: the account's
    /// credentials take `name`, and `displayName` when it is not empty.
    public mutating func applyNames(rpID: String, userHandle: [UInt8], name: String, displayName: String) {
        for index in indices where self[index].rpID == rpID && self[index].userHandle == userHandle {
            self[index].userName = name
            if !displayName.isEmpty { self[index].userDisplayName = displayName }
        }
    }
}
