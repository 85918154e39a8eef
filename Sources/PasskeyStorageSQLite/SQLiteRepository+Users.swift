public import Foundation
public import PasskeyStorage
import GRDB

/// Accounts: found by id, name or user handle, listed, disabled, deleted.
extension SQLiteRepository {
    // MARK: Users

    public func user(id: String) async throws(StorageError) -> UserRecord? {
        try await read { db in try Row.fetchOne(db.cachedStatement(sql: "SELECT \(SQLiteSchema.userColumns) FROM users WHERE id = ?"), arguments: [id]).map(UserRecord.init(row:)) }
    }

    /// On a raw read-only connection, like the sign-in's lookup.
    public func user(username: String) async throws(StorageError) -> UserRecord? {
        try readNamed(Self.userNamedSQL, username) { statement throws(StorageError) in try UserRecord(columns: statement, at: 0) }
    }

    static let credentialsOfUserSQL = "SELECT \(SQLiteSchema.credentialColumns) FROM credentials WHERE user_id = ? ORDER BY created_at, id"

    /// The account and its passkeys in one read transaction (every sign-in's options with a name read it): a row per
    /// passkey (the account's columns repeated), or one row with NULL passkey columns for an account without any.
    public func signInAccount(username: String) async throws(StorageError) -> SignInAccount? {
        try readNamed(Self.accountNamedSQL, username) { statement throws(StorageError) in
            var account = SignInAccount(user: try UserRecord(columns: statement, at: 0), credentials: [])
            let offset = SQLiteSchema.userColumnCount
            repeat {
                // The passkey's id is its first column: NULL when the account has none.
                if !statement.isNull(offset) { account.credentials.append(try CredentialRecordEntry(columns: statement, at: offset)) }
            } while try statement.step()
            return account
        }
    }

    /// Runs `sql`, which matches an account by name (`?1` its ``UsernameKey``, `?2` the name as given), in one read
    /// transaction on a raw read connection. `read` reads from the first row on; `nil` when no row matched.
    private func readNamed<T>(
        _ sql: String, _ username: String, _ read: (RawStatement) throws(StorageError) -> T
    ) throws(StorageError) -> T? {
        let key = UsernameKey.of(username)
        return try readers.withConnection { connection throws(StorageError) in
            let statement = try connection.statement(sql)
            defer { statement.reset() }  // ends the read transaction
            try statement.bind(1, key)
            try statement.bind(2, username)
            guard try statement.step() else { return nil }
            return try read(statement)
        }
    }

    static let accountNamedSQL = """
        SELECT \(SQLiteSchema.qualified(SQLiteSchema.userColumnNames, "u")), \(SQLiteSchema.qualified(SQLiteSchema.credentialColumns, "c"))
        FROM (\(userNamedSQL)) u
        LEFT JOIN credentials c ON c.user_id = u.id
        ORDER BY c.created_at, c.id
        """

    static let userNamedSQL =
        "SELECT \(SQLiteSchema.userColumns) FROM users WHERE \(SQLiteSchema.usernameMatch) ORDER BY username_key IS NULL LIMIT 1"

    public func user(userHandle: [UInt8]) async throws(StorageError) -> UserRecord? {
        try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(SQLiteSchema.userColumns) FROM users WHERE user_handle = ?"), arguments: [Data(userHandle)])
                .map(UserRecord.init(row:))
        }
    }

    public func usernameCollisions() async throws(StorageError) -> [UsernameCollision] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT \(SQLiteSchema.userColumns) FROM users WHERE username IS NOT NULL AND username_key IS NULL ORDER BY created_at, id"
            ).map { row in
                let account = try UserRecord(row: row)
                let holder = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT \(SQLiteSchema.userColumns) FROM users WHERE username_key = ?"),
                    arguments: [UsernameKey.of(account.username ?? "")]
                ).map(UserRecord.init(row:))
                return UsernameCollision(account: account, holder: holder)
            }
        }
    }

    public func users(matching search: String?, limit: Int, offset: Int) async throws(StorageError) -> [UserRecord] {
        try await read { db in
            // The search text's key within the username's key: case-insensitive in every script, as lookups are.
            let pattern = search.map { "%" + Self.escapeLike(UsernameKey.of($0)) + "%" }
            return try Row.fetchAll(db.cachedStatement(sql: """
                    SELECT \(SQLiteSchema.userColumns) FROM users WHERE (? IS NULL OR coalesce(username_key, username) LIKE ? ESCAPE '\\')
                    ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?
                    """), arguments: [pattern, pattern, max(0, limit), max(0, offset)]
            ).map(UserRecord.init(row:))
        }
    }

    static func escapeLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    }

    public func deleteUser(id: String) async throws(StorageError) {
        let deleted = try await write { db in
            try db.cachedStatement(sql: "DELETE FROM users WHERE id = ?").execute(arguments: [id])
            return db.changesCount
        }
        guard deleted > 0 else { throw StorageError(.notFound, "no user \(id)") }
    }

    public func setUserDisabled(id: String, disabledAt: Date?) async throws(StorageError) -> UserRecord {
        let user = try await write { db in
            // Disabling a disabled account keeps the time it was first disabled.
            if let disabledAt {
                let time = SQLiteSchema.milliseconds(disabledAt)
                try db.cachedStatement(
                    sql: "UPDATE users SET disabled_at = ?, tokens_revoked_at = ? WHERE id = ? AND disabled_at IS NULL"
                ).execute(arguments: [time, time, id])
                try db.cachedStatement(sql: "DELETE FROM connect_tokens WHERE user_id = ?").execute(arguments: [id])
                try db.cachedStatement(sql: "UPDATE challenges SET consumed = 1 WHERE user_id = ? AND consumed = 0").execute(arguments: [id])
            } else {
                try db.cachedStatement(sql: "UPDATE users SET disabled_at = NULL WHERE id = ?").execute(arguments: [id])
            }
            return try Row.fetchOne(db.cachedStatement(sql: "SELECT \(SQLiteSchema.userColumns) FROM users WHERE id = ?"), arguments: [id])
                .map(UserRecord.init(row:))
        }
        guard let user else { throw StorageError(.notFound, "no user \(id)") }
        return user
    }
}
