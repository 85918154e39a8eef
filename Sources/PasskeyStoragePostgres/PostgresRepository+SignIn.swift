public import Foundation
public import PasskeyStorage
import PostgresNIO

/// A sign-in's context in one statement: one row whatever exists, the challenge, credential, owner and the owner's
/// external (app) user id side by side (NULL columns for what is missing).
extension PostgresRepository: SignInReader {
    public func lookUpSignIn(challenge reference: ChallengeReference, credentialID: [UInt8], now: Date) async throws(StorageError) -> SignInLookup {
        let logger = self.logger
        let (column, value) = Self.column(reference)
        let query: PostgresQuery = """
            SELECT \(unescaped: PostgresSchema.qualified(PostgresSchema.challengeColumns, "ch")),
                \(unescaped: PostgresSchema.qualified(PostgresSchema.credentialColumns, "cr")),
                \(unescaped: PostgresSchema.qualified(PostgresSchema.userColumns, "u")), e.external_id
            FROM (SELECT 1) AS one
            LEFT JOIN challenges ch ON ch.\(unescaped: column) = \(value) AND ch.ceremony = 'authentication'
            LEFT JOIN credentials cr ON cr.id = \(ByteBuffer(credentialID))
            LEFT JOIN users u ON u.id = cr.user_id
            LEFT JOIN external_users e ON e.user_id = u.id
            """
        let rows = try await withConnection("look up sign-in") { connection in try await connection.rows(query, logger) }
        guard let row = rows.first else { throw StorageError(.corrupt, "the sign-in lookup returned no row") }
        let challengeColumns = PostgresRowReader(row)
        let credentialColumns = PostgresRowReader(row, offset: ChallengeRecord.columnCount)
        let userColumns = PostgresRowReader(row, offset: ChallengeRecord.columnCount + CredentialRecordEntry.columnCount)
        // The first column of each record is its primary key: NULL means the record does not exist.
        var challenge = try challengeColumns.isNull(0) ? nil : ChallengeRecord(challengeColumns)
        if let record = challenge, record.expiresAt <= now { challenge = nil }
        let credential = try credentialColumns.isNull(0) ? nil : CredentialRecordEntry(credentialColumns)
        let owner = try userColumns.isNull(0) ? nil : UserRecord(userColumns)
        let externalColumn = PostgresRowReader(row, offset: ChallengeRecord.columnCount + CredentialRecordEntry.columnCount + UserRecord.columnCount)
        return SignInLookup(challenge: challenge, credential: credential, owner: owner, externalUserID: try externalColumn.optional(0, String.self))
    }
}
