public import Foundation
import Logging
public import PasskeyStorage
import PostgresNIO

/// The OpenID Provider's clients, codes, tokens and sessions, shared by every instance. A code's redemption and a
/// refresh token's rotation are one conditional `UPDATE … RETURNING` each: the row lock makes a concurrent exchange on
/// any instance wait, then find the row used, so exactly one succeeds.
extension PostgresRepository: OpenIDRepository {
    static let openIDClientColumns = """
        id, name, secret_hash, redirect_uris, post_logout_redirect_uris, scopes, id_token_algorithm, third_party, \
        access_token_lifetime, refresh_token_lifetime, created_at, disabled_at
        """
    static let openIDCodeColumns = """
        hash, family_id, client_id, user_id, scopes, nonce, auth_time, user_verified, redirect_uri, code_challenge, expires_at, used_at
        """
    static let openIDTokenColumns = """
        hash, kind, family_id, client_id, user_id, scopes, nonce, auth_time, user_verified, issued_at, expires_at, used_at
        """
    static let openIDSessionColumns = "hash, user_id, auth_time, user_verified, expires_at"

    /// The first key of the transaction-scoped advisory lock that orders the revocations of one family (the second is
    /// the family's `hashtext`): two-key locks never collide with the one-key locks of the migrator and webhooks.
    static let openIDFamilyLock: Int32 = 0x6f69_6463

    // MARK: Rows

    static func openIDClient(_ row: PostgresRow) throws(StorageError) -> OpenIDClientRecord {
        let row = PostgresRowReader(row)
        return OpenIDClientRecord(
            id: try row.value(0, String.self), name: try row.value(1, String.self), secretHash: try row.optionalBytes(2),
            redirectURIs: try row.value(3, [String].self), postLogoutRedirectURIs: try row.value(4, [String].self),
            scopes: try row.value(5, [String].self), idTokenAlgorithm: try row.value(6, String.self), thirdParty: try row.value(7, Bool.self),
            accessTokenLifetime: Int(try row.value(8, Int64.self)), refreshTokenLifetime: Int(try row.value(9, Int64.self)),
            createdAt: try row.date(10), disabledAt: try row.optionalDate(11))
    }

    /// The grant's seven columns (family, client, user, scopes, nonce, auth time, user verified) from `offset`.
    static func openIDGrant(_ row: PostgresRowReader, at offset: Int) throws(StorageError) -> OpenIDGrantRecord {
        OpenIDGrantRecord(
            familyID: try row.value(offset, String.self), clientID: try row.value(offset + 1, String.self),
            userID: try row.value(offset + 2, String.self), scopes: try row.value(offset + 3, [String].self),
            nonce: try row.optional(offset + 4, String.self), authTime: try row.date(offset + 5), userVerified: try row.value(offset + 6, Bool.self))
    }

    static func openIDCode(_ row: PostgresRow) throws(StorageError) -> OpenIDCodeRecord {
        let row = PostgresRowReader(row)
        return OpenIDCodeRecord(
            hash: try row.bytes(0), grant: try openIDGrant(row, at: 1), redirectURI: try row.value(8, String.self),
            codeChallenge: try row.optional(9, String.self), expiresAt: try row.date(10), usedAt: try row.optionalDate(11))
    }

    static func openIDToken(_ row: PostgresRow) throws(StorageError) -> OpenIDTokenRecord {
        let row = PostgresRowReader(row)
        return OpenIDTokenRecord(
            hash: try row.bytes(0), kind: OpenIDTokenKind(rawValue: try row.value(1, String.self)), grant: try openIDGrant(row, at: 2),
            issuedAt: try row.date(9), expiresAt: try row.date(10), usedAt: try row.optionalDate(11))
    }

    static func openIDSession(_ row: PostgresRow) throws(StorageError) -> OpenIDSessionRecord {
        let row = PostgresRowReader(row)
        return OpenIDSessionRecord(
            hash: try row.bytes(0), userID: try row.value(1, String.self), authTime: try row.date(2), userVerified: try row.value(3, Bool.self),
            expiresAt: try row.date(4))
    }

    /// Stores `tokens` in the caller's transaction, replacing any with the same hash (as the memory store does).
    static func insert(_ tokens: [OpenIDTokenRecord], _ connection: PostgresConnection, _ logger: Logger) async throws {
        for token in tokens {
            let grant = token.grant
            try await connection.query(
                """
                INSERT INTO oidc_tokens (\(unescaped: openIDTokenColumns))
                VALUES (\(ByteBuffer(token.hash)), \(token.kind.rawValue), \(grant.familyID), \(grant.clientID), \(grant.userID), \(grant.scopes),
                    \(grant.nonce), \(PostgresTime.milliseconds(grant.authTime)), \(grant.userVerified), \(PostgresTime.milliseconds(token.issuedAt)),
                    \(PostgresTime.milliseconds(token.expiresAt)), \(token.usedAt.map(PostgresTime.milliseconds)))
                ON CONFLICT (hash) DO UPDATE SET kind = excluded.kind, family_id = excluded.family_id, client_id = excluded.client_id,
                    user_id = excluded.user_id, scopes = excluded.scopes, nonce = excluded.nonce, auth_time = excluded.auth_time,
                    user_verified = excluded.user_verified, issued_at = excluded.issued_at, expires_at = excluded.expires_at,
                    used_at = excluded.used_at
                """, logger: logger)
        }
    }

    /// Deletes a family's tokens (and, with `codes`, its codes) in the caller's transaction; returns how many tokens.
    /// Under the family's advisory lock, taken before any of its rows: two revocations of one family (a replayed code
    /// and a replayed refresh token) would otherwise lock its rows in opposite orders and deadlock.
    static func revokeOpenIDFamily(_ family: String, codes: Bool, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int {
        try await lockOpenIDFamily(family, connection, logger)
        let count = try await connection.rows("DELETE FROM oidc_tokens WHERE family_id = \(family) RETURNING 1", logger).count
        if codes { try await connection.query("DELETE FROM oidc_codes WHERE family_id = \(family)", logger: logger) }
        return count
    }

    static func lockOpenIDFamily(_ family: String, _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(\(openIDFamilyLock), hashtext(\(family)))", logger: logger)
    }

    // MARK: Clients

    public func addOpenIDClient(_ client: OpenIDClientRecord) async throws(StorageError) {
        let logger = self.logger
        let added = try await withConnection("add OpenID client") { connection in
            try await connection.rows(
                """
                INSERT INTO oidc_clients (\(unescaped: Self.openIDClientColumns))
                VALUES (\(client.id), \(client.name), \(client.secretHash.map { ByteBuffer(bytes: $0) }), \(client.redirectURIs),
                    \(client.postLogoutRedirectURIs), \(client.scopes), \(client.idTokenAlgorithm), \(client.thirdParty),
                    \(Int64(client.accessTokenLifetime)), \(Int64(client.refreshTokenLifetime)), \(PostgresTime.milliseconds(client.createdAt)),
                    \(client.disabledAt.map(PostgresTime.milliseconds)))
                ON CONFLICT (id) DO NOTHING RETURNING 1
                """, logger
            ).count
        }
        guard added == 1 else { throw StorageError(.recordExists, "client \(client.id) exists") }
    }

    public func openIDClients() async throws(StorageError) -> [OpenIDClientRecord] {
        let logger = self.logger
        let rows = try await withConnection("OpenID clients") { connection in
            try await connection.rows(#"SELECT \#(unescaped: Self.openIDClientColumns) FROM oidc_clients ORDER BY created_at, id COLLATE "C""#, logger)
        }
        return try rows.map(Self.openIDClient)
    }

    public func openIDClient(id: String) async throws(StorageError) -> OpenIDClientRecord? {
        let logger = self.logger
        let rows = try await withConnection("OpenID client") { connection in
            try await connection.rows("SELECT \(unescaped: Self.openIDClientColumns) FROM oidc_clients WHERE id = \(id)", logger)
        }
        return try rows.first.map(Self.openIDClient)
    }

    public func updateOpenIDClient(_ client: OpenIDClientRecord) async throws(StorageError) {
        let logger = self.logger
        let rows = try await withConnection("update OpenID client") { connection in
            try await connection.rows(
                """
                UPDATE oidc_clients SET name = \(client.name), secret_hash = \(client.secretHash.map { ByteBuffer(bytes: $0) }),
                    redirect_uris = \(client.redirectURIs), post_logout_redirect_uris = \(client.postLogoutRedirectURIs), scopes = \(client.scopes),
                    id_token_algorithm = \(client.idTokenAlgorithm), third_party = \(client.thirdParty),
                    access_token_lifetime = \(Int64(client.accessTokenLifetime)), refresh_token_lifetime = \(Int64(client.refreshTokenLifetime)),
                    created_at = \(PostgresTime.milliseconds(client.createdAt)), disabled_at = \(client.disabledAt.map(PostgresTime.milliseconds))
                WHERE id = \(client.id) RETURNING 1
                """, logger)
        }
        guard !rows.isEmpty else { throw StorageError(.notFound, "no client \(client.id)") }
    }

    public func deleteOpenIDClient(id: String) async throws(StorageError) {
        let logger = self.logger
        let deleted = try await transaction("delete OpenID client") { connection in
            let deleted = try await connection.rows("DELETE FROM oidc_clients WHERE id = \(id) RETURNING 1", logger).count
            try await connection.query("DELETE FROM oidc_codes WHERE client_id = \(id)", logger: logger)
            try await connection.query("DELETE FROM oidc_tokens WHERE client_id = \(id)", logger: logger)
            return deleted
        }
        guard deleted == 1 else { throw StorageError(.notFound, "no client \(id)") }
    }

    // MARK: Codes

    public func saveOpenIDCode(_ code: OpenIDCodeRecord) async throws(StorageError) {
        let logger = self.logger
        let grant = code.grant
        try await withConnection("save OpenID code") { connection in
            try await connection.query(
                """
                INSERT INTO oidc_codes (\(unescaped: Self.openIDCodeColumns))
                VALUES (\(ByteBuffer(code.hash)), \(grant.familyID), \(grant.clientID), \(grant.userID), \(grant.scopes), \(grant.nonce),
                    \(PostgresTime.milliseconds(grant.authTime)), \(grant.userVerified), \(code.redirectURI), \(code.codeChallenge),
                    \(PostgresTime.milliseconds(code.expiresAt)), \(code.usedAt.map(PostgresTime.milliseconds)))
                ON CONFLICT (hash) DO UPDATE SET family_id = excluded.family_id, client_id = excluded.client_id, user_id = excluded.user_id,
                    scopes = excluded.scopes, nonce = excluded.nonce, auth_time = excluded.auth_time, user_verified = excluded.user_verified,
                    redirect_uri = excluded.redirect_uri, code_challenge = excluded.code_challenge, expires_at = excluded.expires_at,
                    used_at = excluded.used_at
                """, logger: logger)
        }
    }

    /// A code the `UPDATE` did not take is looked up again: used, it revokes its family (under the family's lock, then
    /// read once more, so the answer is the one a serial run would give).
    /// The family is locked first (``lockOpenIDFamily(_:_:_:)``), before any row: every change to a family's code and
    /// tokens then takes its locks in one order, so concurrent replays cannot deadlock, and they run as if one at a time.
    public func redeemOpenIDCode(hash: [UInt8], now: Date) async throws(StorageError) -> OpenIDCodeRedemption {
        let logger = self.logger
        let now = PostgresTime.milliseconds(now)
        let hash = ByteBuffer(hash)
        return try await transaction("redeem OpenID code") { connection in
            let families = try await connection.rows("SELECT family_id FROM oidc_codes WHERE hash = \(hash)", logger)
            guard let family = try families.first.map({ row throws(StorageError) in try PostgresRowReader(row).value(0, String.self) }) else {
                return .unknown
            }
            try await Self.lockOpenIDFamily(family, connection, logger)
            let redeemed = try await connection.rows(
                """
                UPDATE oidc_codes SET used_at = \(now) WHERE hash = \(hash) AND used_at IS NULL AND expires_at > \(now)
                RETURNING \(unescaped: Self.openIDCodeColumns)
                """, logger)
            if let row = redeemed.first { return .redeemed(try Self.openIDCode(row)) }
            let used = try await connection.rows(
                "SELECT \(unescaped: Self.openIDCodeColumns) FROM oidc_codes WHERE hash = \(hash) AND used_at IS NOT NULL", logger
            ).first.map(Self.openIDCode)
            guard let code = used else { return .unknown }
            _ = try await Self.revokeOpenIDFamily(code.grant.familyID, codes: false, connection, logger)
            return .reused(code)
        }
    }

    // MARK: Tokens

    public func saveOpenIDTokens(_ tokens: [OpenIDTokenRecord]) async throws(StorageError) {
        let logger = self.logger
        try await transaction("save OpenID tokens") { connection in try await Self.insert(tokens, connection, logger) }
    }

    public func openIDToken(hash: [UInt8], kind: OpenIDTokenKind, now: Date) async throws(StorageError) -> OpenIDTokenRecord? {
        let logger = self.logger
        let rows = try await withConnection("OpenID token") { connection in
            try await connection.rows(
                """
                SELECT \(unescaped: Self.openIDTokenColumns) FROM oidc_tokens
                WHERE hash = \(ByteBuffer(hash)) AND kind = \(kind.rawValue) AND used_at IS NULL AND expires_at > \(PostgresTime.milliseconds(now))
                """, logger)
        }
        return try rows.first.map(Self.openIDToken)
    }

    /// As ``redeemOpenIDCode(hash:now:)``: the family locked first, then the `UPDATE` decides, and a used token revokes
    /// its family. The first revocation deletes the token itself, so a later replay finds nothing.
    public func rotateOpenIDRefreshToken(hash: [UInt8], replacements: [OpenIDTokenRecord], now: Date) async throws(StorageError) -> OpenIDRefreshRotation {
        let logger = self.logger
        let now = PostgresTime.milliseconds(now)
        let hash = ByteBuffer(hash)
        let refresh = OpenIDTokenKind.refresh.rawValue
        return try await transaction("rotate OpenID refresh token") { connection in
            let families = try await connection.rows("SELECT family_id FROM oidc_tokens WHERE hash = \(hash) AND kind = \(refresh)", logger)
            guard let family = try families.first.map({ row throws(StorageError) in try PostgresRowReader(row).value(0, String.self) }) else {
                return .unknown
            }
            try await Self.lockOpenIDFamily(family, connection, logger)
            let rotated = try await connection.rows(
                """
                UPDATE oidc_tokens SET used_at = \(now)
                WHERE hash = \(hash) AND kind = \(refresh) AND used_at IS NULL AND expires_at > \(now)
                RETURNING \(unescaped: Self.openIDTokenColumns)
                """, logger)
            if let row = rotated.first {
                let token = try Self.openIDToken(row)
                try await Self.insert(replacements, connection, logger)
                return .rotated(token)
            }
            let used = try await connection.rows(
                """
                SELECT \(unescaped: Self.openIDTokenColumns) FROM oidc_tokens
                WHERE hash = \(hash) AND kind = \(refresh) AND used_at IS NOT NULL
                """, logger
            ).first.map(Self.openIDToken)
            guard let token = used else { return .unknown }
            _ = try await Self.revokeOpenIDFamily(token.grant.familyID, codes: true, connection, logger)
            return .reused(token)
        }
    }

    public func revokeOpenIDFamily(id: String) async throws(StorageError) -> Int {
        let logger = self.logger
        return try await transaction("revoke OpenID family") { connection in try await Self.revokeOpenIDFamily(id, codes: true, connection, logger) }
    }

    // MARK: Sessions

    public func saveOpenIDSession(_ session: OpenIDSessionRecord) async throws(StorageError) {
        let logger = self.logger
        try await withConnection("save OpenID session") { connection in
            try await connection.query(
                """
                INSERT INTO oidc_sessions (\(unescaped: Self.openIDSessionColumns))
                VALUES (\(ByteBuffer(session.hash)), \(session.userID), \(PostgresTime.milliseconds(session.authTime)), \(session.userVerified),
                    \(PostgresTime.milliseconds(session.expiresAt)))
                ON CONFLICT (hash) DO UPDATE SET user_id = excluded.user_id, auth_time = excluded.auth_time,
                    user_verified = excluded.user_verified, expires_at = excluded.expires_at
                """, logger: logger)
        }
    }

    public func openIDSession(hash: [UInt8], now: Date) async throws(StorageError) -> OpenIDSessionRecord? {
        let logger = self.logger
        let rows = try await withConnection("OpenID session") { connection in
            try await connection.rows(
                """
                SELECT \(unescaped: Self.openIDSessionColumns) FROM oidc_sessions
                WHERE hash = \(ByteBuffer(hash)) AND expires_at > \(PostgresTime.milliseconds(now))
                """, logger)
        }
        return try rows.first.map(Self.openIDSession)
    }

    public func deleteOpenIDSession(hash: [UInt8]) async throws(StorageError) {
        let logger = self.logger
        try await withConnection("delete OpenID session") { connection in
            try await connection.query("DELETE FROM oidc_sessions WHERE hash = \(ByteBuffer(hash))", logger: logger)
        }
    }

    public func purgeOpenIDRecords(now: Date) async throws(StorageError) -> Int {
        let logger = self.logger
        let now = PostgresTime.milliseconds(now)
        return try await transaction("purge OpenID records") { connection in
            var count = 0
            for table in ["oidc_codes", "oidc_tokens", "oidc_sessions"] {
                count += try await connection.rows("DELETE FROM \(unescaped: table) WHERE expires_at <= \(now) RETURNING 1", logger).count
            }
            return count
        }
    }
}
