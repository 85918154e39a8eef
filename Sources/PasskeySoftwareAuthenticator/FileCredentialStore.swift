public import Foundation
public import PasskeyClient

/// Credentials kept in one JSON file (versioned; the format is described in `CredentialFileFormat.swift`), for the
/// CLI and for tests that span processes.
///
/// The file holds private keys in the clear, so it is created with mode 0600, replaced atomically on every change,
/// and refused when other users can read it. Each operation reads the file again, so edits by another instance are
/// seen and a damaged file is reported (``PasskeyError/Code/storageCorrupted``) at the next operation. Every change
/// reads, changes and replaces the file under an exclusive lock (`flock` on a `.NAME.lock` file beside it, mode 0600),
/// so processes sharing the file (several `passkey` commands at once) never lose each other's passkeys and never sign
/// with the same counter value.
public actor FileCredentialStore: CredentialStore {
    public nonisolated let fileURL: URL

    /// `fileURL` need not exist yet; its directory is created (mode 0700) on first write if missing.
    public init(fileURL: URL) { self.fileURL = fileURL }

    public func credentials(rpID: String) throws(PasskeyError) -> [StoredCredential] {
        try load().filter { $0.rpID == rpID }
    }

    public func allCredentials() throws(PasskeyError) -> [StoredCredential] { try load() }

    @discardableResult
    public func save(_ credential: StoredCredential) throws(PasskeyError) -> [StoredCredential] {
        try change { credentials in credentials.applySave(credential) }
    }

    @discardableResult
    public func removeCredential(id: [UInt8]) throws(PasskeyError) -> Bool {
        try change { credentials in
            let before = credentials.count
            credentials.removeAll { $0.id == id }
            return credentials.count != before
        }
    }

    // The three one-step changes are declared `async`, as the protocol declares them: a synchronous actor method does
    // not replace the protocol extension's default (read, then save), which callers from outside the actor then get,
    // with a sign-in or a removal at the same time undone.

    public func recordUse(ofCredential id: [UInt8], counter: CounterBehavior, at date: Date) async throws(PasskeyError) -> StoredCredential? {
        try change { credentials in
            guard let index = credentials.firstIndex(where: { $0.id == id }) else { return nil }
            credentials[index] = credentials[index].used(counter: counter, at: date)
            return credentials[index]
        }
    }

    public func renameUser(rpID: String, userHandle: [UInt8], name: String, displayName: String) async throws(PasskeyError) {
        try change { credentials in credentials.applyNames(rpID: rpID, userHandle: userHandle, name: name, displayName: displayName) }
    }

    public func writeLargeBlob(_ blob: [UInt8], toCredential id: [UInt8]) async throws(PasskeyError) -> Bool {
        try change { credentials in credentials.applyLargeBlob(blob, toCredential: id) }
    }

    /// Reads the file, applies `body` and writes the result when it changed anything, all under the file's lock.
    private func change<T>(_ body: (inout [StoredCredential]) -> T) throws(PasskeyError) -> T {
        try createDirectory()
        let lockPath = fileURL.deletingLastPathComponent().appendingPathComponent(".\(fileURL.lastPathComponent).lock").path
        return try PrivateFile.withExclusiveLock(lockPath) { () throws(PasskeyError) -> T in
            let credentials = try load()
            var changed = credentials
            let result = body(&changed)
            if changed != credentials { try PrivateFile.replace(fileURL.path, with: CredentialFileFormat.encode(changed)) }
            return result
        }
    }

    private func load() throws(PasskeyError) -> [StoredCredential] {
        guard let bytes = try PrivateFile.read(fileURL.path) else { return [] }
        return try CredentialFileFormat.decode(bytes, file: fileURL.path)
    }

    private func createDirectory() throws(PasskeyError) {
        let directory = fileURL.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: directory.path) {
            do {
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw PasskeyError(.storageFailed, stage: .storage, "cannot create \(directory.path): \(error)")
            }
        }
    }
}
