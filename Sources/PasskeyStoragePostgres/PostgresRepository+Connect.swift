public import Foundation
public import PasskeyStorage
import PostgresNIO

/// Signing keys, API keys, connect tokens, used token ids and external-user links: shared by every instance, so a
/// token minted or signed on one verifies on another.
extension PostgresRepository: SigningKeyRepository {
    static let signingKeyColumns = "id, algorithm, private_key_pem, created_at, retires_at"

    static func signingKey(_ row: PostgresRowReader) throws(StorageError) -> SigningKeyRecord {
        SigningKeyRecord(
            id: try row.value(0, String.self), algorithm: try row.value(1, String.self), privateKeyPEM: try row.value(2, String.self),
            createdAt: try row.date(3), retiresAt: try row.optionalDate(4))
    }

    static func signingKeys(_ rows: [PostgresRow]) throws(StorageError) -> [SigningKeyRecord] {
        var keys: [SigningKeyRecord] = []
        for row in rows { keys.append(try signingKey(PostgresRowReader(row))) }
        return keys
    }

    static func insertKey(_ key: SigningKeyRecord) -> PostgresQuery {
        """
        INSERT INTO signing_keys (id, algorithm, private_key_pem, created_at, retires_at)
        VALUES (\(key.id), \(key.algorithm), \(key.privateKeyPEM), \(PostgresTime.milliseconds(key.createdAt)),
            \(key.retiresAt.map(PostgresTime.milliseconds)))
        ON CONFLICT (id) DO NOTHING
        """
    }

    public func signingKeys() async throws(StorageError) -> [SigningKeyRecord] {
        let logger = self.logger
        let rows = try await withConnection("signing keys") { connection in
            try await connection.rows("SELECT \(unescaped: Self.signingKeyColumns) FROM signing_keys ORDER BY created_at DESC, id DESC", logger)
        }
        return try Self.signingKeys(rows)
    }

    public func addSigningKey(_ key: SigningKeyRecord, retiringOthersAt: Date) async throws(StorageError) {
        let logger = self.logger
        try await transaction("add signing key") { connection in
            let retiring = PostgresTime.milliseconds(retiringOthersAt)
            try await connection.query(
                "UPDATE signing_keys SET retires_at = \(retiring) WHERE retires_at IS NULL OR retires_at > \(retiring)", logger: logger)
            try await connection.query(Self.insertKey(key), logger: logger)
        }
    }

    /// Instances starting together: a transaction-scoped advisory lock makes the check-then-insert one step, so they
    /// agree on one first key.
    public func ensureSigningKey(_ make: @escaping @Sendable () -> SigningKeyRecord) async throws(StorageError) -> [SigningKeyRecord] {
        let logger = self.logger
        let rows = try await transaction("ensure a signing key") { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Int64(0x7061_7373_6b65_7931)))", logger: logger)
            if try await connection.rows("SELECT 1 FROM signing_keys WHERE retires_at IS NULL", logger).isEmpty {
                try await connection.query(Self.insertKey(make()), logger: logger)
            }
            return try await connection.rows("SELECT \(unescaped: Self.signingKeyColumns) FROM signing_keys ORDER BY created_at DESC, id DESC", logger)
        }
        return try Self.signingKeys(rows)
    }

    public func deleteRetiredSigningKeys(now: Date) async throws(StorageError) -> Int {
        let logger = self.logger
        return try await withConnection("delete retired signing keys") { connection in
            try await connection.rows(
                "DELETE FROM signing_keys WHERE retires_at IS NOT NULL AND retires_at <= \(PostgresTime.milliseconds(now)) RETURNING 1", logger
            ).count
        }
    }
}

extension PostgresRepository: APIKeyRepository {
    static let apiKeyColumns = "id, name, prefix, secret_hash, created_at, last_used_at, revoked_at"

    static func apiKey(_ row: PostgresRowReader) throws(StorageError) -> APIKeyRecord {
        APIKeyRecord(
            id: try row.value(0, String.self), name: try row.value(1, String.self), prefix: try row.value(2, String.self),
            secretHash: try row.bytes(3), createdAt: try row.date(4), lastUsedAt: try row.optionalDate(5), revokedAt: try row.optionalDate(6))
    }

    public func addAPIKey(_ key: APIKeyRecord) async throws(StorageError) {
        let logger = self.logger
        try await withConnection("add API key") { connection in try await connection.query(Self.insertAPIKey(key), logger: logger) }
    }

    static func insertAPIKey(_ key: APIKeyRecord) -> PostgresQuery {
        """
        INSERT INTO api_keys (id, name, prefix, secret_hash, created_at, last_used_at, revoked_at)
        VALUES (\(key.id), \(key.name), \(key.prefix), \(ByteBuffer(key.secretHash)), \(PostgresTime.milliseconds(key.createdAt)),
            \(key.lastUsedAt.map(PostgresTime.milliseconds)), \(key.revokedAt.map(PostgresTime.milliseconds)))
        """
    }

    public func apiKeys() async throws(StorageError) -> [APIKeyRecord] {
        let logger = self.logger
        let rows = try await withConnection("API keys") { connection in
            try await connection.rows(#"SELECT \#(unescaped: Self.apiKeyColumns) FROM api_keys ORDER BY created_at, id COLLATE "C""#, logger)
        }
        var keys: [APIKeyRecord] = []
        for row in rows { keys.append(try Self.apiKey(PostgresRowReader(row))) }
        return keys
    }

    public func apiKey(secretHash: [UInt8]) async throws(StorageError) -> APIKeyRecord? {
        let logger = self.logger
        let rows = try await withConnection("API key by hash") { connection in
            try await connection.rows("SELECT \(unescaped: Self.apiKeyColumns) FROM api_keys WHERE secret_hash = \(ByteBuffer(secretHash))", logger)
        }
        guard let row = rows.first else { return nil }
        return try Self.apiKey(PostgresRowReader(row))
    }

    public func revokeAPIKey(id: String, at time: Date) async throws(StorageError) {
        let logger = self.logger
        // One statement: the key is revoked and the tokens it minted are gone together.
        let found = try await withConnection("revoke API key") { connection in
            try await connection.rows(
                """
                WITH revoked AS (
                    UPDATE api_keys SET revoked_at = COALESCE(revoked_at, \(PostgresTime.milliseconds(time))) WHERE id = \(id) RETURNING 1
                ), gone AS (DELETE FROM connect_tokens WHERE api_key_id = \(id))
                SELECT 1 FROM revoked
                """, logger
            ).count
        }
        guard found == 1 else { throw StorageError(.notFound, "no API key \(id)") }
    }

    public func touchAPIKey(id: String, at time: Date) async throws(StorageError) {
        let logger = self.logger
        try await withConnection("touch API key") { connection in
            try await connection.query("UPDATE api_keys SET last_used_at = \(PostgresTime.milliseconds(time)) WHERE id = \(id)", logger: logger)
        }
    }
}

extension PostgresRepository: ConnectTokenRepository {
    static let connectTokenColumns = "hash, type, user_id, single_use, created_at, expires_at, api_key_id"

    static func connectToken(_ row: PostgresRowReader) throws(StorageError) -> ConnectTokenRecord {
        ConnectTokenRecord(
            hash: try row.bytes(0), type: try row.value(1, String.self), userID: try row.value(2, String.self),
            singleUse: try row.value(3, Bool.self), createdAt: try row.date(4), expiresAt: try row.date(5),
            apiKeyID: try row.optional(6, String.self))
    }

    public func saveConnectToken(_ token: ConnectTokenRecord) async throws(StorageError) {
        let logger = self.logger
        try await withConnection("save connect token") { connection in
            try await connection.query(
                """
                INSERT INTO connect_tokens (hash, type, user_id, single_use, created_at, expires_at, api_key_id)
                VALUES (\(ByteBuffer(token.hash)), \(token.type), \(token.userID), \(token.singleUse),
                    \(PostgresTime.milliseconds(token.createdAt)), \(PostgresTime.milliseconds(token.expiresAt)), \(token.apiKeyID))
                """, logger: logger)
        }
    }

    public func connectToken(hash: [UInt8], now: Date) async throws(StorageError) -> ConnectTokenRecord? {
        let logger = self.logger
        let rows = try await withConnection("connect token") { connection in
            try await connection.rows("SELECT \(unescaped: Self.connectTokenColumns) FROM connect_tokens WHERE hash = \(ByteBuffer(hash))", logger)
        }
        guard let row = rows.first else { return nil }
        let token = try Self.connectToken(PostgresRowReader(row))
        return token.expiresAt > now ? token : nil
    }

    /// `DELETE … RETURNING`: of concurrent consumers on any instance exactly one gets the token.
    public func consumeConnectToken(hash: [UInt8], now: Date) async throws(StorageError) -> ConnectTokenRecord? {
        let logger = self.logger
        let rows = try await withConnection("consume connect token") { connection in
            try await connection.rows(
                "DELETE FROM connect_tokens WHERE hash = \(ByteBuffer(hash)) RETURNING \(unescaped: Self.connectTokenColumns)", logger)
        }
        guard let row = rows.first else { return nil }
        let token = try Self.connectToken(PostgresRowReader(row))
        return token.expiresAt > now ? token : nil
    }

    public func redeemAccountToken(
        hash: [UInt8], registering credential: CredentialRecordEntry, for user: UserRecord, consumingChallenge challengeKey: String,
        replacingOtherPasskeys: Bool, now: Date
    ) async throws(StorageError) -> [[UInt8]] {
        let logger = self.logger
        return try await transaction("redeem account token") { connection in
            // `DELETE … RETURNING` decides among concurrent redemptions on any instance: one gets the row, the others
            // wait for it, then find nothing.
            let tokens = try await connection.rows(
                """
                DELETE FROM connect_tokens WHERE hash = \(ByteBuffer(hash)) AND user_id = \(credential.userID)
                    AND expires_at > \(PostgresTime.milliseconds(now)) RETURNING 1
                """, logger)
            guard !tokens.isEmpty else { throw StorageError(.notFound, "the token is unknown, used, expired or another account's") }
            // The passkeys to replace are locked before the registration locks their owner: credential, then user, the
            // order sign-ins and deletions take (see register(_:for:spending:now:)).
            if replacingOtherPasskeys {
                _ = try await connection.rows("SELECT 1 FROM credentials WHERE user_id = \(credential.userID) FOR UPDATE", logger)
            }
            try await Self.register(connection, credential: credential, user: user, consumingChallenge: challengeKey, now: now, logger: logger)
            var ids: [[UInt8]] = []
            if replacingOtherPasskeys {
                let deleted = try await connection.rows(
                    "DELETE FROM credentials WHERE user_id = \(credential.userID) AND id <> \(ByteBuffer(credential.id)) RETURNING id", logger)
                for row in deleted { ids.append(try PostgresRowReader(row).bytes(0)) }
            }
            try await Self.enqueue(.linkUsed(credential: credential, owner: user, replacing: replacingOtherPasskeys, at: now), connection, logger)
            return ids
        }
    }

    public func deleteConnectTokens(userID: String, types: [String]) async throws(StorageError) -> Int {
        let logger = self.logger
        return try await withConnection("delete connect tokens") { connection in
            try await connection.rows("DELETE FROM connect_tokens WHERE user_id = \(userID) AND type = ANY(\(types)) RETURNING 1", logger).count
        }
    }

    /// `DELETE … RETURNING`: each expired token goes to the one instance whose delete removed it.
    public func takeExpiredConnectTokens(types: [String], now: Date) async throws(StorageError) -> [ConnectTokenRecord] {
        let logger = self.logger
        let rows = try await withConnection("take expired connect tokens") { connection in
            try await connection.rows(
                """
                DELETE FROM connect_tokens WHERE expires_at <= \(PostgresTime.milliseconds(now)) AND type = ANY(\(types))
                RETURNING \(unescaped: Self.connectTokenColumns)
                """, logger)
        }
        var tokens: [ConnectTokenRecord] = []
        for row in rows { tokens.append(try Self.connectToken(PostgresRowReader(row))) }
        return tokens.sorted { $0.expiresAt < $1.expiresAt }
    }

    public func markTokenUsed(id: String, expiresAt: Date) async throws(StorageError) -> Bool {
        let logger = self.logger
        return try await withConnection("mark token used") { connection in
            try await connection.rows(
                """
                INSERT INTO used_token_ids (id, expires_at) VALUES (\(id), \(PostgresTime.milliseconds(expiresAt)))
                ON CONFLICT (id) DO NOTHING RETURNING 1
                """, logger
            ).count == 1
        }
    }

    public func purgeExpiredTokens(now: Date) async throws(StorageError) -> Int {
        let logger = self.logger
        let time = PostgresTime.milliseconds(now)
        return try await transaction("purge tokens") { connection in
            let tokens = try await connection.rows("DELETE FROM connect_tokens WHERE expires_at <= \(time) RETURNING 1", logger).count
            let used = try await connection.rows("DELETE FROM used_token_ids WHERE expires_at <= \(time) RETURNING 1", logger).count
            return tokens + used
        }
    }
}

extension PostgresRepository: ExternalUserRepository {
    public func user(externalID: String) async throws(StorageError) -> UserRecord? {
        try await fetchUser(
            "user by external id",
            "SELECT \(unescaped: PostgresSchema.userColumns) FROM users WHERE id = (SELECT user_id FROM external_users WHERE external_id = \(externalID))")
    }

    public func externalID(userID: String) async throws(StorageError) -> String? {
        let logger = self.logger
        let rows = try await withConnection("external id") { connection in
            try await connection.rows("SELECT external_id FROM external_users WHERE user_id = \(userID)", logger)
        }
        guard let row = rows.first else { return nil }
        return try PostgresRowReader(row).value(0, String.self)
    }

    /// Link-or-create in one transaction; an advisory lock on the external id serializes concurrent first links of one
    /// user across instances, so exactly one account is created.
    public func linkedUser(externalID: String, orCreate newUser: UserRecord) async throws(StorageError) -> UserRecord {
        let logger = self.logger
        let rows = try await transaction("link external user") { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(externalID)))", logger: logger)
            let existing = try await connection.rows(
                "SELECT \(unescaped: PostgresSchema.userColumns) FROM users WHERE id = (SELECT user_id FROM external_users WHERE external_id = \(externalID))",
                logger)
            if !existing.isEmpty { return existing }
            try await Self.insertNewUser(connection, newUser, logger: logger)
            try await connection.query("INSERT INTO external_users (external_id, user_id) VALUES (\(externalID), \(newUser.id))", logger: logger)
            return try await connection.rows("SELECT \(unescaped: PostgresSchema.userColumns) FROM users WHERE id = \(newUser.id)", logger)
        }
        guard let row = rows.first else { throw StorageError(.corrupt, "the linked user vanished") }
        return try UserRecord(PostgresRowReader(row))
    }

    public func updateNames(userID: String, username: String?, displayName: String?) async throws(StorageError) -> UserRecord {
        let logger = self.logger
        let rows = try await transaction("update user names") { connection in
            if let username {
                // Of two accounts renamed to one name at once, the unique index on username_key refuses the second,
                // and maps to the same code.
                let holders = try await connection.rows(PostgresSchema.userNamed(username, columns: "id"), logger)
                if try holders.contains(where: { try $0.decode(String.self) != userID }) {
                    throw StorageError(.usernameTaken, "username belongs to another account")
                }
            }
            // A NULL argument leaves its column as it is.
            return try await connection.rows(
                """
                UPDATE users SET username = COALESCE(\(username), username), username_key = COALESCE(\(username.map(UsernameKey.of)), username_key),
                    display_name = COALESCE(\(displayName), display_name) WHERE id = \(userID)
                RETURNING \(unescaped: PostgresSchema.userColumns)
                """, logger)
        }
        guard let row = rows.first else { throw StorageError(.notFound, "no user \(userID)") }
        return try UserRecord(PostgresRowReader(row))
    }
}
