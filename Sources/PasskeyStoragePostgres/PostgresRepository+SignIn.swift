public import Foundation
public import PasskeyStorage
import PostgresNIO

/// A sign-in's context in one statement: one row whatever exists, the challenge, credential, owner, the owner's
/// external (app) user id, the IDs of the owner's passkeys and whether a sealed challenge was spent, side by side (NULL
/// columns for what is missing).
extension PostgresRepository: SignInReader {
    public func signInAccount(username: String) async throws(StorageError) -> SignInAccount? {
        let logger = self.logger
        let rows = try await withConnection("account and passkeys by username") { connection in
            try await connection.rows(AccountNamed(name: username), logger)
        }
        guard let first = rows.first else { return nil }
        var account = SignInAccount(user: try UserRecord(PostgresRowReader(first)), credentials: [])
        for row in rows {
            let credentialColumns = PostgresRowReader(row, offset: UserRecord.columnCount)
            // The passkey's id is its first column: NULL when the account has none.
            if try !credentialColumns.isNull(0) { account.credentials.append(try CredentialRecordEntry(credentialColumns)) }
        }
        return account
    }

    public func lookUpSignIn(challenge reference: ChallengeReference, credentialID: [UInt8], now: Date) async throws(StorageError) -> SignInLookup {
        let logger = self.logger
        let rows = try await withConnection("look up sign-in") { connection in
            switch reference {
            case .key(let key): try await connection.rows(SignInLookupByKey(key: key, credentialID: credentialID), logger)
            case .value(let value): try await connection.rows(SignInLookupByValue(value: value, credentialID: credentialID), logger)
            // Nothing stored to read for the challenge but whether its key was spent (the statement's last column).
            case .sealed(let record):
                try await connection.rows(
                    SignInLookupByKey(key: record.key, credentialID: credentialID, sealedExpiry: PostgresTime.milliseconds(record.expiresAt)), logger)
            }
        }
        guard let row = rows.first else { throw StorageError(.corrupt, "the sign-in lookup returned no row") }
        let challengeColumns = PostgresRowReader(row)
        let credentialColumns = PostgresRowReader(row, offset: ChallengeRecord.columnCount)
        let userColumns = PostgresRowReader(row, offset: ChallengeRecord.columnCount + CredentialRecordEntry.columnCount)
        // The first column of each record is its primary key: NULL means the record does not exist.
        let lastColumns = PostgresRowReader(row, offset: ChallengeRecord.columnCount + CredentialRecordEntry.columnCount + UserRecord.columnCount)
        var challenge: ChallengeRecord?
        if case .sealed(let record) = reference {
            // Spent: gone, as a consumed stored challenge is.
            challenge = try lastColumns.value(2, Bool.self) ? nil : record
        } else {
            challenge = try challengeColumns.isNull(0) ? nil : ChallengeRecord(challengeColumns)
        }
        if let record = challenge, record.expiresAt <= now { challenge = nil }
        let credential = try credentialColumns.isNull(0) ? nil : CredentialRecordEntry(credentialColumns)
        let owner = try userColumns.isNull(0) ? nil : UserRecord(userColumns)
        // The owner's passkey IDs, for the Signal API after the sign-in: read here rather than in a second round trip.
        let ownerCredentialIDs: [[UInt8]]? =
            try owner == nil ? nil : (lastColumns.optional(1, [ByteBuffer].self).map { $0.map { Array($0.readableBytesView) } } ?? [])
        return SignInLookup(
            challenge: challenge, credential: credential, owner: owner, externalUserID: try lastColumns.optional(0, String.self),
            ownerCredentialIDs: ownerCredentialIDs)
    }
}
