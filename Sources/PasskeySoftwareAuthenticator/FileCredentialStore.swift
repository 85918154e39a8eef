public import Foundation
public import PasskeyClient

/// Credentials kept in one JSON file (versioned; the format is described in `CredentialFileFormat.swift`), for the
/// CLI and for tests that span processes.
///
/// The file holds private keys in the clear, so it is created with mode 0600, replaced atomically on every change,
/// and refused when other users can read it. Each operation reads the file again, so edits by another instance are
/// seen and a damaged file is reported (``PasskeyError/Code/storageCorrupted``) at the next operation. One process
/// at a time: there is no cross-process locking.
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
        var credentials = try load()
        let displaced = credentials.applySave(credential)
        try persist(credentials)
        return displaced
    }

    @discardableResult
    public func removeCredential(id: [UInt8]) throws(PasskeyError) -> Bool {
        var credentials = try load()
        let before = credentials.count
        credentials.removeAll { $0.id == id }
        guard credentials.count != before else { return false }
        try persist(credentials)
        return true
    }

    private func load() throws(PasskeyError) -> [StoredCredential] {
        guard let bytes = try PrivateFile.read(fileURL.path) else { return [] }
        return try CredentialFileFormat.decode(bytes, file: fileURL.path)
    }

    private func persist(_ credentials: [StoredCredential]) throws(PasskeyError) {
        let directory = fileURL.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: directory.path) {
            do {
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw PasskeyError(.storageFailed, stage: .storage, "cannot create \(directory.path): \(error)")
            }
        }
        try PrivateFile.replace(fileURL.path, with: CredentialFileFormat.encode(credentials))
    }
}
