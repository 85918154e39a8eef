public import Foundation
public import PasskeyStorage
import GRDB
import PasskeyWire

/// The OpenID Provider's clients, codes, tokens and sessions. One writer: a code's redemption and a refresh token's
/// rotation read and write in one transaction of it, so of concurrent exchanges exactly one succeeds.
extension SQLiteRepository {
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

    // MARK: Rows

    /// A list as a JSON array of strings: redirect URIs may hold commas, so ``SQLiteSchema/encodeList(_:)`` would not do.
    static func openIDList(_ values: [String]) -> String { JSONValue.array(values.map(JSONValue.string)).serialized() }

    static func openIDList(stored text: String) throws(StorageError) -> [String] {
        guard let items = (try? JSONValue.parse(text))?.arrayValue else { throw StorageError(.corrupt, "a stored OpenID list is not a JSON array") }
        var values: [String] = []
        for item in items {
            guard let value = item.stringValue else { throw StorageError(.corrupt, "a stored OpenID list holds a value that is not a string") }
            values.append(value)
        }
        return values
    }

    static func openIDClient(_ row: Row) throws(StorageError) -> OpenIDClientRecord {
        OpenIDClientRecord(
            id: try row.text(0), name: try row.text(1), secretHash: try row.optionalBlob(2), redirectURIs: try openIDList(stored: try row.text(3)),
            postLogoutRedirectURIs: try openIDList(stored: try row.text(4)), scopes: try openIDList(stored: try row.text(5)),
            idTokenAlgorithm: try row.text(6), thirdParty: try row.bool(7), accessTokenLifetime: Int(try row.int64(8)),
            refreshTokenLifetime: Int(try row.int64(9)), createdAt: try row.date(10), disabledAt: try row.optionalDate(11))
    }

    /// The grant's seven columns (family, client, user, scopes, nonce, auth time, user verified) from `offset`.
    static func openIDGrant(_ row: Row, at offset: Int) throws(StorageError) -> OpenIDGrantRecord {
        OpenIDGrantRecord(
            familyID: try row.text(offset), clientID: try row.text(offset + 1), userID: try row.text(offset + 2),
            scopes: try openIDList(stored: try row.text(offset + 3)), nonce: try row.optionalText(offset + 4), authTime: try row.date(offset + 5),
            userVerified: try row.bool(offset + 6))
    }

    static func openIDCode(_ row: Row) throws(StorageError) -> OpenIDCodeRecord {
        OpenIDCodeRecord(
            hash: try row.blob(0), grant: try openIDGrant(row, at: 1), redirectURI: try row.text(8), codeChallenge: try row.optionalText(9),
            expiresAt: try row.date(10), usedAt: try row.optionalDate(11))
    }

    static func openIDToken(_ row: Row) throws(StorageError) -> OpenIDTokenRecord {
        OpenIDTokenRecord(
            hash: try row.blob(0), kind: OpenIDTokenKind(rawValue: try row.text(1)), grant: try openIDGrant(row, at: 2),
            issuedAt: try row.date(9), expiresAt: try row.date(10), usedAt: try row.optionalDate(11))
    }

    static func openIDSession(_ row: Row) throws(StorageError) -> OpenIDSessionRecord {
        OpenIDSessionRecord(
            hash: try row.blob(0), userID: try row.text(1), authTime: try row.date(2), userVerified: try row.bool(3), expiresAt: try row.date(4))
    }

    static func arguments(_ client: OpenIDClientRecord) -> StatementArguments {
        [
            client.id, client.name, client.secretHash.map { Data($0) }, openIDList(client.redirectURIs), openIDList(client.postLogoutRedirectURIs),
            openIDList(client.scopes), client.idTokenAlgorithm, client.thirdParty, client.accessTokenLifetime, client.refreshTokenLifetime,
            SQLiteSchema.milliseconds(client.createdAt), client.disabledAt.map(SQLiteSchema.milliseconds),
        ]
    }

    static func arguments(_ grant: OpenIDGrantRecord) -> StatementArguments {
        [
            grant.familyID, grant.clientID, grant.userID, openIDList(grant.scopes), grant.nonce, SQLiteSchema.milliseconds(grant.authTime),
            grant.userVerified,
        ]
    }

    /// Stores `tokens`, replacing any with the same hash (as the memory store does).
    static func insert(_ tokens: [OpenIDTokenRecord], _ db: Database) throws {
        let statement = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO oidc_tokens (\(openIDTokenColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        for token in tokens {
            try statement.execute(
                arguments: [Data(token.hash), token.kind.rawValue] + arguments(token.grant) + [
                    SQLiteSchema.milliseconds(token.issuedAt), SQLiteSchema.milliseconds(token.expiresAt),
                    token.usedAt.map(SQLiteSchema.milliseconds),
                ])
        }
    }

    /// Deletes a family's tokens (and, with `codes`, its codes) in the caller's transaction; returns how many tokens.
    static func revokeOpenIDFamily(_ family: String, codes: Bool, _ db: Database) throws -> Int {
        try db.cachedStatement(sql: "DELETE FROM oidc_tokens WHERE family_id = ?").execute(arguments: [family])
        let count = db.changesCount
        if codes { try db.cachedStatement(sql: "DELETE FROM oidc_codes WHERE family_id = ?").execute(arguments: [family]) }
        return count
    }

    // MARK: Clients

    public func addOpenIDClient(_ client: OpenIDClientRecord) async throws(StorageError) {
        try await write { db in
            try db.cachedStatement(
                sql: "INSERT INTO oidc_clients (\(Self.openIDClientColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING"
            ).execute(arguments: Self.arguments(client))
            guard db.changesCount == 1 else { throw StorageError(.recordExists, "client \(client.id) exists") }
        }
    }

    public func openIDClients() async throws(StorageError) -> [OpenIDClientRecord] {
        try await read { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT \(Self.openIDClientColumns) FROM oidc_clients ORDER BY created_at, id"))
                .map(Self.openIDClient)
        }
    }

    public func openIDClient(id: String) async throws(StorageError) -> OpenIDClientRecord? {
        try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.openIDClientColumns) FROM oidc_clients WHERE id = ?"), arguments: [id])
                .map(Self.openIDClient)
        }
    }

    public func updateOpenIDClient(_ client: OpenIDClientRecord) async throws(StorageError) {
        try await write { db in
            try db.cachedStatement(
                sql: """
                    UPDATE oidc_clients SET name = ?2, secret_hash = ?3, redirect_uris = ?4, post_logout_redirect_uris = ?5, scopes = ?6,
                        id_token_algorithm = ?7, third_party = ?8, access_token_lifetime = ?9, refresh_token_lifetime = ?10, created_at = ?11,
                        disabled_at = ?12
                    WHERE id = ?1
                    """
            ).execute(arguments: Self.arguments(client))
            guard db.changesCount == 1 else { throw StorageError(.notFound, "no client \(client.id)") }
        }
    }

    public func deleteOpenIDClient(id: String) async throws(StorageError) {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM oidc_clients WHERE id = ?").execute(arguments: [id])
            guard db.changesCount == 1 else { throw StorageError(.notFound, "no client \(id)") }
            try db.cachedStatement(sql: "DELETE FROM oidc_codes WHERE client_id = ?").execute(arguments: [id])
            try db.cachedStatement(sql: "DELETE FROM oidc_tokens WHERE client_id = ?").execute(arguments: [id])
        }
    }

    // MARK: Codes

    public func saveOpenIDCode(_ code: OpenIDCodeRecord) async throws(StorageError) {
        try await write { db in
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO oidc_codes (\(Self.openIDCodeColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                .execute(
                    arguments: [Data(code.hash)] + Self.arguments(code.grant) + [
                        code.redirectURI, code.codeChallenge, SQLiteSchema.milliseconds(code.expiresAt), code.usedAt.map(SQLiteSchema.milliseconds),
                    ])
        }
    }

    /// Times compare as the stored milliseconds, as in SQL (and in the PostgreSQL store).
    public func redeemOpenIDCode(hash: [UInt8], now: Date) async throws(StorageError) -> OpenIDCodeRedemption {
        let now = SQLiteSchema.milliseconds(now)
        return try await write { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.openIDCodeColumns) FROM oidc_codes WHERE hash = ?"), arguments: [Data(hash)])
            else { return .unknown }
            var code = try Self.openIDCode(row)
            if code.usedAt != nil {
                _ = try Self.revokeOpenIDFamily(code.grant.familyID, codes: false, db)
                return .reused(code)
            }
            guard SQLiteSchema.milliseconds(code.expiresAt) > now else { return .unknown }
            try db.cachedStatement(sql: "UPDATE oidc_codes SET used_at = ? WHERE hash = ?").execute(arguments: [now, Data(hash)])
            code.usedAt = SQLiteSchema.date(now)
            return .redeemed(code)
        }
    }

    // MARK: Tokens

    public func saveOpenIDTokens(_ tokens: [OpenIDTokenRecord]) async throws(StorageError) {
        try await write { db in try Self.insert(tokens, db) }
    }

    public func openIDToken(hash: [UInt8], kind: OpenIDTokenKind, now: Date) async throws(StorageError) -> OpenIDTokenRecord? {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT \(Self.openIDTokenColumns) FROM oidc_tokens WHERE hash = ? AND kind = ? AND used_at IS NULL AND expires_at > ?"),
                arguments: [Data(hash), kind.rawValue, SQLiteSchema.milliseconds(now)]
            ).map(Self.openIDToken)
        }
    }

    public func rotateOpenIDRefreshToken(hash: [UInt8], replacements: [OpenIDTokenRecord], now: Date) async throws(StorageError) -> OpenIDRefreshRotation {
        let now = SQLiteSchema.milliseconds(now)
        return try await write { db in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT \(Self.openIDTokenColumns) FROM oidc_tokens WHERE hash = ? AND kind = ?"),
                    arguments: [Data(hash), OpenIDTokenKind.refresh.rawValue])
            else { return .unknown }
            var token = try Self.openIDToken(row)
            if token.usedAt != nil {
                _ = try Self.revokeOpenIDFamily(token.grant.familyID, codes: true, db)
                return .reused(token)
            }
            guard SQLiteSchema.milliseconds(token.expiresAt) > now else { return .unknown }
            try db.cachedStatement(sql: "UPDATE oidc_tokens SET used_at = ? WHERE hash = ?").execute(arguments: [now, Data(hash)])
            try Self.insert(replacements, db)
            token.usedAt = SQLiteSchema.date(now)
            return .rotated(token)
        }
    }

    public func revokeOpenIDFamily(id: String) async throws(StorageError) -> Int {
        try await write { db in try Self.revokeOpenIDFamily(id, codes: true, db) }
    }

    // MARK: Sessions

    public func saveOpenIDSession(_ session: OpenIDSessionRecord) async throws(StorageError) {
        try await write { db in
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO oidc_sessions (\(Self.openIDSessionColumns)) VALUES (?, ?, ?, ?, ?)").execute(
                arguments: [
                    Data(session.hash), session.userID, SQLiteSchema.milliseconds(session.authTime), session.userVerified,
                    SQLiteSchema.milliseconds(session.expiresAt),
                ])
        }
    }

    public func openIDSession(hash: [UInt8], now: Date) async throws(StorageError) -> OpenIDSessionRecord? {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT \(Self.openIDSessionColumns) FROM oidc_sessions WHERE hash = ? AND expires_at > ?"),
                arguments: [Data(hash), SQLiteSchema.milliseconds(now)]
            ).map(Self.openIDSession)
        }
    }

    public func deleteOpenIDSession(hash: [UInt8]) async throws(StorageError) {
        try await write { db in try db.cachedStatement(sql: "DELETE FROM oidc_sessions WHERE hash = ?").execute(arguments: [Data(hash)]) }
    }

    public func purgeOpenIDRecords(now: Date) async throws(StorageError) -> Int {
        let now = SQLiteSchema.milliseconds(now)
        return try await write { db in
            var count = 0
            for table in ["oidc_codes", "oidc_tokens", "oidc_sessions"] {
                try db.cachedStatement(sql: "DELETE FROM \(table) WHERE expires_at <= ?").execute(arguments: [now])
                count += db.changesCount
            }
            return count
        }
    }
}
