public import PasskeyStorage
import PostgresNIO
public import Foundation

/// Users: looked up by ID, by username (by its ``UsernameKey``: case-insensitive in every script) and by user handle.
extension PostgresRepository: UserRepository {
    public func user(id: String) async throws(StorageError) -> UserRecord? {
        try await fetchUser("user by id", "SELECT \(unescaped: PostgresSchema.userColumns) FROM users WHERE id = \(id)")
    }

    public func user(username: String) async throws(StorageError) -> UserRecord? {
        let logger = self.logger
        let rows = try await withConnection("user by username") { connection in try await connection.rows(UserNamed(name: username), logger) }
        guard let row = rows.first else { return nil }
        return try UserRecord(PostgresRowReader(row))
    }

    public func user(userHandle: [UInt8]) async throws(StorageError) -> UserRecord? {
        try await fetchUser("user by handle", "SELECT \(unescaped: PostgresSchema.userColumns) FROM users WHERE user_handle = \(ByteBuffer(userHandle))")
    }

    public func usernameCollisions() async throws(StorageError) -> [UsernameCollision] {
        let logger = self.logger
        let query: PostgresQuery = """
            SELECT \(unescaped: PostgresSchema.userColumns) FROM users WHERE username IS NOT NULL AND username_key IS NULL
            ORDER BY created_at, id COLLATE "C"
            """
        let rows = try await withConnection("username collisions") { connection in try await connection.rows(query, logger) }
        var collisions: [UsernameCollision] = []
        for row in rows {
            let account = try UserRecord(PostgresRowReader(row))
            let holder = try await fetchUser(
                "username key holder",
                "SELECT \(unescaped: PostgresSchema.userColumns) FROM users WHERE username_key = \(UsernameKey.of(account.username ?? ""))")
            collisions.append(UsernameCollision(account: account, holder: holder))
        }
        return collisions
    }

    func fetchUser(_ what: String, _ query: PostgresQuery) async throws(StorageError) -> UserRecord? {
        let logger = self.logger
        let rows = try await withConnection(what) { connection in try await connection.rows(query, logger) }
        guard let row = rows.first else { return nil }
        return try UserRecord(PostgresRowReader(row))
    }

    public func users(matching search: String?, limit: Int, offset: Int) async throws(StorageError) -> [UserRecord] {
        let logger = self.logger
        // The search text's key within the username's key: case-insensitive in every script, as lookups are.
        let pattern = search.map { "%" + Self.escapeLike(UsernameKey.of($0)) + "%" }
        let query: PostgresQuery = #"""
            SELECT \#(unescaped: PostgresSchema.userColumns) FROM users
            WHERE (\#(pattern)::text IS NULL OR coalesce(username_key, lower(username COLLATE "C")) LIKE \#(pattern)::text ESCAPE '\')
            ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT \#(Int64(max(0, limit))) OFFSET \#(Int64(max(0, offset)))
            """#
        let rows = try await withConnection("user search") { connection in try await connection.rows(query, logger) }
        var users: [UserRecord] = []
        for row in rows { users.append(try UserRecord(PostgresRowReader(row))) }
        return users
    }

    static func escapeLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    }

    /// Deletes the user and, through the cascades, its credentials, tokens and link.
    ///
    /// The credentials are locked first, in key order: a sign-in locks its credential and then updates the owner's
    /// row, so a delete that took the owner's row first and then reached the credentials through the cascade would wait
    /// for the sign-in while the sign-in waits for it, and PostgreSQL would abort one of them after a second.
    public func deleteUser(id: String) async throws(StorageError) {
        let logger = self.logger
        let deleted = try await transaction("delete user") { connection in
            _ = try await connection.rows("SELECT 1 FROM credentials WHERE user_id = \(id) ORDER BY id FOR UPDATE", logger)
            return try await connection.rows("DELETE FROM users WHERE id = \(id) RETURNING 1", logger).count
        }
        guard deleted > 0 else { throw StorageError(.notFound, "no such user") }
    }

    public func setUserDisabled(id: String, disabledAt: Date?) async throws(StorageError) -> UserRecord {
        let milliseconds = disabledAt.map(PostgresTime.milliseconds)
        let logger = self.logger
        let rows = try await transaction("disable user") { connection in
            guard let milliseconds else {
                return try await connection.rows(
                    "UPDATE users SET disabled_at = NULL WHERE id = \(id) RETURNING \(unescaped: PostgresSchema.userColumns)", logger)
            }
            // Disabling a disabled account keeps the time it was first disabled.
            let rows = try await connection.rows(
                """
                UPDATE users SET disabled_at = coalesce(disabled_at, \(milliseconds)), tokens_revoked_at = coalesce(disabled_at, \(milliseconds))
                WHERE id = \(id) RETURNING \(unescaped: PostgresSchema.userColumns)
                """, logger)
            try await connection.query("DELETE FROM connect_tokens WHERE user_id = \(id)", logger: logger)
            try await connection.query("DELETE FROM challenges WHERE user_id = \(id)", logger: logger)
            return rows
        }
        guard let row = rows.first else { throw StorageError(.notFound, "no such user") }
        return try UserRecord(PostgresRowReader(row))
    }
}
