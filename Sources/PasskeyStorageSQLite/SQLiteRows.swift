import Foundation
import GRDB
import PasskeyStorage
import PasskeyWire

/// How rows are read and written: column lists in decoding order, times in milliseconds, short lists.
extension SQLiteSchema {
    // Column lists in the order the row decoders read them: rows are decoded by position, not by name (a lookup by name
    // folds case on every call, which showed in the sign-in profile).
    //
    // An account's last sign-in is the later of `users.last_sign_in_at` and its passkeys' `last_used_at`: a sign-in
    // writes only its passkey's row (one page, not two: with a million accounts the second page was a random one, and
    // cost a tenth of the throughput), and deleting a passkey moves its last use onto the account (trigger of v17).
    static func userColumns(of table: String) -> String {
        """
        \(table).id, \(table).user_handle, \(table).username, \(table).display_name, \(table).is_anonymous, \(table).created_at, \
        (SELECT max(at) FROM (SELECT \(table).last_sign_in_at AS at UNION ALL SELECT last_used_at FROM credentials WHERE user_id = \(table).id)) \
        AS last_sign_in_at, \(table).disabled_at, \(table).tokens_revoked_at
        """
    }
    static let userColumns = userColumns(of: "users")
    static let userColumnCount = columnCount(userColumnNames)
    /// The names of ``userColumns``, to select from a subquery that selected those.
    static let userColumnNames = "id, user_handle, username, display_name, is_anonymous, created_at, last_sign_in_at, disabled_at, tokens_revoked_at"
    static let credentialColumns = """
        id, user_id, public_key, algorithm, sign_count, uv_initialized, transports, backup_eligible, backup_state, aaguid, \
        attestation_format, attestation_type, name, created_at, last_used_at
        """
    static let challengeColumns = """
        key, challenge, ceremony, user_id, username, display_name, user_handle, allowed_credential_ids, created_at, expires_at, \
        replaces_credential_id, conditional, for_existing_user, accepted_contacts
        """

    static func columnCount(_ columns: String) -> Int { columns.split(separator: ",").count }

    /// `columns` with a table alias (`u.id, u.user_handle, …`), for joins.
    static func qualified(_ columns: String, _ alias: String) -> String {
        columns.split(separator: ",").map { "\(alias).\($0.trimmingCharacters(in: .whitespacesAndNewlines))" }.joined(separator: ", ")
    }

    /// Milliseconds since 1970, clamped to what an `Int64` holds: callers check their ranges, and a date beyond them
    /// (`Date.distantFuture` is well within) must never trap.
    static func milliseconds(_ date: Date) -> Int64 { Int64(exactly: (date.timeIntervalSince1970 * 1000).rounded()) ?? clamped(date) }
    private static func clamped(_ date: Date) -> Int64 {
        let value = date.timeIntervalSince1970 * 1000
        return value.isNaN ? 0 : (value < 0 ? Int64.min : Int64.max)
    }
    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
    static func date(_ milliseconds: Int64?) -> Date? { milliseconds.map(date) }

    /// Lists of short tokens (transports, base64 credential IDs) are stored comma-separated: none of them holds a comma.
    /// Rows written by the first schema version hold JSON arrays; those still read.
    static func encodeList(_ values: [String]) -> String { values.joined(separator: ",") }

    static func decodeList(_ text: String) throws(StorageError) -> [String] {
        if text.hasPrefix("[") {
            do { return try JSONDecoder().decode([String].self, from: Data(text.utf8)) } catch {
                throw StorageError(.corrupt, "a stored list is not a JSON array of strings")
            }
        }
        return text.isEmpty ? [] : text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
}

extension UserRecord {
    init(row: Row) throws(StorageError) { try self.init(columns: row) }

    /// From ``SQLiteSchema/userColumns``, starting at column `offset`.
    init(columns row: some ColumnReader, at offset: Int = 0) throws(StorageError) {
        self.init(
            id: try row.text(offset), userHandle: try row.blob(offset + 1), username: try row.optionalText(offset + 2),
            displayName: try row.text(offset + 3), isAnonymous: try row.bool(offset + 4), createdAt: try row.date(offset + 5),
            lastSignInAt: try row.optionalDate(offset + 6), disabledAt: try row.optionalDate(offset + 7),
            tokensRevokedAt: try row.optionalDate(offset + 8))
    }

    func insert(_ db: Database) throws {
        try db.cachedStatement(sql: """
                INSERT INTO users (id, user_handle, username, username_key, display_name, is_anonymous, created_at, last_sign_in_at,
                    disabled_at, tokens_revoked_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(
                arguments: [
                id, Data(userHandle), username, username.map(UsernameKey.of), displayName, isAnonymous, SQLiteSchema.milliseconds(createdAt),
                lastSignInAt.map(SQLiteSchema.milliseconds), disabledAt.map(SQLiteSchema.milliseconds),
                tokensRevokedAt.map(SQLiteSchema.milliseconds),
            ])
    }
}

extension CredentialRecordEntry {
    init(row: Row) throws(StorageError) { try self.init(columns: row) }

    /// From `credentialColumns`, starting at column `offset`.
    init(columns row: some ColumnReader, at offset: Int = 0) throws(StorageError) {
        let signCount = try row.int64(offset + 4)
        guard let counter = UInt32(exactly: signCount) else { throw StorageError(.corrupt, "sign count \(signCount) out of range") }
        self.init(
            id: try row.blob(offset), userID: try row.text(offset + 1), publicKey: try row.blob(offset + 2),
            algorithm: Int(try row.int64(offset + 3)), signCount: counter, uvInitialized: try row.bool(offset + 5),
            transports: try SQLiteSchema.decodeList(try row.text(offset + 6)), backupEligible: try row.bool(offset + 7),
            backupState: try row.bool(offset + 8), aaguid: try row.text(offset + 9), attestationFormat: try row.text(offset + 10),
            attestationType: try row.text(offset + 11), name: try row.optionalText(offset + 12), createdAt: try row.date(offset + 13),
            lastUsedAt: try row.optionalDate(offset + 14))
    }

    /// Inserts into `table`: `credentials`, or `admin_credentials` (same columns).
    func insert(_ db: Database, table: String = "credentials") throws {
        try db.cachedStatement(sql: """
                INSERT INTO \(table) (id, user_id, public_key, algorithm, sign_count, uv_initialized, transports,
                    backup_eligible, backup_state, aaguid, attestation_format, attestation_type, name, created_at, last_used_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(
                arguments: [
                Data(id), userID, Data(publicKey), algorithm, Int64(signCount), uvInitialized, SQLiteSchema.encodeList(transports),
                backupEligible, backupState, aaguid, attestationFormat, attestationType, name,
                SQLiteSchema.milliseconds(createdAt), lastUsedAt.map(SQLiteSchema.milliseconds),
            ])
    }
}

extension ChallengeRecord {
    init(row: Row) throws(StorageError) { try self.init(columns: row) }

    /// From `challengeColumns`, starting at column `offset`.
    init(columns row: some ColumnReader, at offset: Int = 0) throws(StorageError) {
        let ceremonyName = try row.text(offset + 2)
        guard let ceremony = Ceremony(rawValue: ceremonyName) else { throw StorageError(.corrupt, "unknown ceremony \(ceremonyName)") }
        let allowed = try SQLiteSchema.decodeList(try row.text(offset + 7)).map { text throws(StorageError) in
            guard let bytes = Data(base64Encoded: text) else { throw StorageError(.corrupt, "an allowed credential ID is not base64") }
            return [UInt8](bytes)
        }
        self.init(
            key: try row.text(offset), challenge: try row.text(offset + 1), ceremony: ceremony, userID: try row.optionalText(offset + 3),
            username: try row.optionalText(offset + 4), displayName: try row.optionalText(offset + 5),
            userHandle: try row.optionalBlob(offset + 6), allowedCredentialIDs: allowed,
            replacesCredentialID: try row.optionalBlob(offset + 10), conditional: try row.bool(offset + 11),
            forExistingUser: try row.bool(offset + 12), acceptedContacts: ContactKind.decode(try row.optionalText(offset + 13)),
            createdAt: try row.date(offset + 8), expiresAt: try row.date(offset + 9))
    }

    func insert(_ raw: RawConnection) throws(StorageError) {
        let statement = try raw.statement("""
            INSERT INTO challenges (key, challenge, ceremony, user_id, username, display_name, user_handle,
                allowed_credential_ids, created_at, expires_at, replaces_credential_id, conditional, for_existing_user, accepted_contacts)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        try statement.bind(1, key)
        try statement.bind(2, challenge)
        try statement.bind(3, ceremony.rawValue)
        try statement.bind(4, userID)
        try statement.bind(5, username)
        try statement.bind(6, displayName)
        try statement.bind(7, userHandle)
        try statement.bind(8, SQLiteSchema.encodeList(allowedCredentialIDs.map { Data($0).base64EncodedString() }))
        try statement.bind(9, SQLiteSchema.milliseconds(createdAt))
        try statement.bind(10, SQLiteSchema.milliseconds(expiresAt))
        try statement.bind(11, replacesCredentialID)
        try statement.bind(12, conditional)
        try statement.bind(13, forExistingUser)
        try statement.bind(14, ContactKind.encode(acceptedContacts))
        try statement.execute()
    }
}
