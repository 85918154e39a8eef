import Foundation
public import PasskeyStorage

/// The stored passkeys of some authenticator models: those a metadata BLOB reports compromised, for the announcement
/// of a new BLOB, `metadata show`, `users flagged` and `GET /passkeys/compromised`.
public enum PasskeysOfModels {
    /// The passkeys whose model (lower-case AAGUID) is one of `models`, oldest first, with their accounts: one pass over
    /// the export that keeps only the matches (never every account), then their owners; none when `models` is empty.
    public static func find(
        _ models: Set<String>, in repository: some TransferRepository & UserRepository
    ) async throws -> [(passkey: CredentialRecordEntry, owner: UserRecord?)] {
        guard !models.isEmpty else { return [] }
        let found = Found()
        try await repository.exportRecords(includingSecrets: false) { record in
            if case .credential(let credential) = record, models.contains(credential.aaguid.lowercased()) { found.add(credential) }
        }
        var owners: [String: UserRecord] = [:]
        var matches: [(passkey: CredentialRecordEntry, owner: UserRecord?)] = []
        for passkey in found.sorted {
            if owners[passkey.userID] == nil, let owner = try await repository.user(id: passkey.userID) { owners[passkey.userID] = owner }
            matches.append((passkey, owners[passkey.userID]))
        }
        return matches
    }

    /// What the export's callback hands over, from whichever thread it runs on.
    final class Found: @unchecked Sendable {
        // Guarded by `lock`.
        private let lock = NSLock()
        private var passkeys: [CredentialRecordEntry] = []

        func add(_ passkey: CredentialRecordEntry) { lock.withLock { passkeys.append(passkey) } }
        var sorted: [CredentialRecordEntry] { lock.withLock { passkeys.sorted { $0.createdAt < $1.createdAt } } }
    }
}
