public import Foundation
public import PasskeyStorage
import GRDB

extension SQLiteRepository {
    // MARK: Signing keys

    static let signingKeyColumns = "id, algorithm, private_key_pem, created_at, retires_at"

    static func signingKey(_ row: Row) throws -> SigningKeyRecord {
        SigningKeyRecord(
            id: try row.decode(String.self, atIndex: 0), algorithm: try row.decode(String.self, atIndex: 1),
            privateKeyPEM: try row.decode(String.self, atIndex: 2), createdAt: SQLiteSchema.date(try row.decode(Int64.self, atIndex: 3)),
            retiresAt: SQLiteSchema.date(try row.decode(Int64?.self, atIndex: 4)))
    }

    static func fetchSigningKeys(_ db: Database) throws -> [SigningKeyRecord] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT \(signingKeyColumns) FROM signing_keys ORDER BY created_at DESC, id DESC"))
            .map(signingKey)
    }

    static func insert(_ key: SigningKeyRecord, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO signing_keys (\(signingKeyColumns)) VALUES (?, ?, ?, ?, ?)").execute(arguments: [
            key.id, key.algorithm, key.privateKeyPEM, SQLiteSchema.milliseconds(key.createdAt), key.retiresAt.map(SQLiteSchema.milliseconds),
        ])
    }

    public func signingKeys() async throws(StorageError) -> [SigningKeyRecord] {
        try await read { db in try Self.fetchSigningKeys(db) }
    }

    public func addSigningKey(_ key: SigningKeyRecord, retiringOthersAt: Date) async throws(StorageError) {
        try await write { db in
            let retiring = SQLiteSchema.milliseconds(retiringOthersAt)
            try db.cachedStatement(sql: "UPDATE signing_keys SET retires_at = ? WHERE retires_at IS NULL OR retires_at > ?")
                .execute(arguments: [retiring, retiring])
            try Self.insert(key, db)
        }
    }

    public func ensureSigningKey(_ make: @escaping @Sendable () -> SigningKeyRecord) async throws(StorageError) -> [SigningKeyRecord] {
        try await write { db in
            if try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM signing_keys WHERE retires_at IS NULL")) != true {
                try Self.insert(make(), db)
            }
            return try Self.fetchSigningKeys(db)
        }
    }

    public func deleteRetiredSigningKeys(now: Date) async throws(StorageError) -> Int {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM signing_keys WHERE retires_at IS NOT NULL AND retires_at <= ?")
                .execute(arguments: [SQLiteSchema.milliseconds(now)])
            return db.changesCount
        }
    }

    // MARK: API keys

    static let apiKeyColumns = "id, name, prefix, secret_hash, created_at, last_used_at, revoked_at"

    static func apiKey(_ row: Row) throws -> APIKeyRecord {
        APIKeyRecord(
            id: try row.decode(String.self, atIndex: 0), name: try row.decode(String.self, atIndex: 1),
            prefix: try row.decode(String.self, atIndex: 2), secretHash: [UInt8](try row.decode(Data.self, atIndex: 3)),
            createdAt: SQLiteSchema.date(try row.decode(Int64.self, atIndex: 4)),
            lastUsedAt: SQLiteSchema.date(try row.decode(Int64?.self, atIndex: 5)),
            revokedAt: SQLiteSchema.date(try row.decode(Int64?.self, atIndex: 6)))
    }

    public func addAPIKey(_ key: APIKeyRecord) async throws(StorageError) {
        try await write { db in try Self.insert(key, db) }
    }

    static func insert(_ key: APIKeyRecord, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO api_keys (\(apiKeyColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)").execute(arguments: [
            key.id, key.name, key.prefix, Data(key.secretHash), SQLiteSchema.milliseconds(key.createdAt),
            key.lastUsedAt.map(SQLiteSchema.milliseconds), key.revokedAt.map(SQLiteSchema.milliseconds),
        ])
    }

    public func apiKeys() async throws(StorageError) -> [APIKeyRecord] {
        try await read { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT \(Self.apiKeyColumns) FROM api_keys ORDER BY created_at, id")).map(Self.apiKey)
        }
    }

    public func apiKey(secretHash: [UInt8]) async throws(StorageError) -> APIKeyRecord? {
        try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.apiKeyColumns) FROM api_keys WHERE secret_hash = ?"), arguments: [Data(secretHash)])
                .map(Self.apiKey)
        }
    }

    public func revokeAPIKey(id: String, at time: Date) async throws(StorageError) {
        let found = try await write { db in
            try db.cachedStatement(sql: "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?")
                .execute(arguments: [SQLiteSchema.milliseconds(time), id])
            let found = db.changesCount
            try db.cachedStatement(sql: "DELETE FROM connect_tokens WHERE api_key_id = ?").execute(arguments: [id])
            return found
        }
        guard found == 1 else { throw StorageError(.notFound, "no API key \(id)") }
    }

    public func touchAPIKey(id: String, at time: Date) async throws(StorageError) {
        try await write { db in
            try db.cachedStatement(sql: "UPDATE api_keys SET last_used_at = ? WHERE id = ?").execute(arguments: [SQLiteSchema.milliseconds(time), id])
        }
    }

    // MARK: Connect tokens

    static let connectTokenColumns = "hash, type, user_id, single_use, created_at, expires_at, api_key_id"

    static func connectToken(_ row: Row) throws -> ConnectTokenRecord {
        ConnectTokenRecord(
            hash: [UInt8](try row.decode(Data.self, atIndex: 0)), type: try row.decode(String.self, atIndex: 1),
            userID: try row.decode(String.self, atIndex: 2), singleUse: try row.decode(Bool.self, atIndex: 3),
            createdAt: SQLiteSchema.date(try row.decode(Int64.self, atIndex: 4)),
            expiresAt: SQLiteSchema.date(try row.decode(Int64.self, atIndex: 5)), apiKeyID: try row.decode(String?.self, atIndex: 6))
    }

    public func saveConnectToken(_ token: ConnectTokenRecord) async throws(StorageError) {
        try await write { db in
            try db.cachedStatement(sql: "INSERT INTO connect_tokens (\(Self.connectTokenColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)").execute(arguments: [
                Data(token.hash), token.type, token.userID, token.singleUse, SQLiteSchema.milliseconds(token.createdAt),
                SQLiteSchema.milliseconds(token.expiresAt), token.apiKeyID,
            ])
        }
    }

    public func connectToken(hash: [UInt8], now: Date) async throws(StorageError) -> ConnectTokenRecord? {
        let token = try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.connectTokenColumns) FROM connect_tokens WHERE hash = ?"), arguments: [Data(hash)])
                .map(Self.connectToken)
        }
        guard let token, token.expiresAt > now else { return nil }
        return token
    }

    public func consumeConnectToken(hash: [UInt8], now: Date) async throws(StorageError) -> ConnectTokenRecord? {
        let token = try await write { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "DELETE FROM connect_tokens WHERE hash = ? RETURNING \(Self.connectTokenColumns)"), arguments: [Data(hash)]
            ).map(Self.connectToken)
        }
        guard let token, token.expiresAt > now else { return nil }
        return token
    }

    public func redeemAccountToken(
        hash: [UInt8], registering credential: CredentialRecordEntry, for user: UserRecord, consumingChallenge challengeKey: String,
        replacingOtherPasskeys: Bool, now: Date
    ) async throws(StorageError) -> [[UInt8]] {
        do {
            return try await writer.write { db, raw in
                try db.cachedStatement(sql: "DELETE FROM connect_tokens WHERE hash = ? AND user_id = ? AND expires_at > ?")
                    .execute(arguments: [Data(hash), credential.userID, SQLiteSchema.milliseconds(now)])
                guard db.changesCount == 1 else { throw StorageError(.notFound, "the token is unknown, used, expired or another account's") }
                try Self.register(db, raw, credential: credential, user: user, consumingChallenge: challengeKey, now: now)
                let replaced =
                    replacingOtherPasskeys
                    ? try Data.fetchAll(
                        db.cachedStatement(sql: "DELETE FROM credentials WHERE user_id = ? AND id <> ? RETURNING id"),
                        arguments: [credential.userID, Data(credential.id)]
                    ).map { Array($0) } : []
                try Self.enqueue(.linkUsed(credential: credential, owner: user, replacing: replacingOtherPasskeys, at: now), db)
                return replaced
            }
        } catch { throw Self.map(error) }
    }

    public func deleteConnectTokens(userID: String, types: [String]) async throws(StorageError) -> Int {
        guard !types.isEmpty else { return 0 }
        return try await write { db in
            let marks = Array(repeating: "?", count: types.count).joined(separator: ", ")
            try db.execute(
                sql: "DELETE FROM connect_tokens WHERE user_id = ? AND type IN (\(marks))", arguments: StatementArguments([userID] + types))
            return db.changesCount
        }
    }

    public func takeExpiredConnectTokens(types: [String], now: Date) async throws(StorageError) -> [ConnectTokenRecord] {
        guard !types.isEmpty else { return [] }
        return try await write { db in
            let marks = Array(repeating: "?", count: types.count).joined(separator: ", ")
            let rows = try Row.fetchAll(
                db, sql: "DELETE FROM connect_tokens WHERE expires_at <= ? AND type IN (\(marks)) RETURNING \(Self.connectTokenColumns)",
                arguments: StatementArguments([SQLiteSchema.milliseconds(now)] + types))
            return try rows.map(Self.connectToken).sorted { $0.expiresAt < $1.expiresAt }
        }
    }

    public func markTokenUsed(id: String, expiresAt: Date) async throws(StorageError) -> Bool {
        try await write { db in
            try db.cachedStatement(sql: "INSERT INTO used_token_ids (id, expires_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING")
                .execute(arguments: [id, SQLiteSchema.milliseconds(expiresAt)])
            return db.changesCount == 1
        }
    }

    public func purgeExpiredTokens(now: Date) async throws(StorageError) -> Int {
        try await write { db in
            let time = SQLiteSchema.milliseconds(now)
            try db.cachedStatement(sql: "DELETE FROM connect_tokens WHERE expires_at <= ?").execute(arguments: [time])
            var purged = db.changesCount
            try db.cachedStatement(sql: "DELETE FROM used_token_ids WHERE expires_at <= ?").execute(arguments: [time])
            purged += db.changesCount
            return purged
        }
    }

    // MARK: External users

    public func user(externalID: String) async throws(StorageError) -> UserRecord? {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: """
                    SELECT \(SQLiteSchema.userColumns) FROM users WHERE id = (SELECT user_id FROM external_users WHERE external_id = ?)
                    """), arguments: [externalID]
            ).map(UserRecord.init(row:))
        }
    }

    public func externalID(userID: String) async throws(StorageError) -> String? {
        try await read { db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT external_id FROM external_users WHERE user_id = ?"), arguments: [userID])
        }
    }

    public func linkedUser(externalID: String, orCreate newUser: UserRecord) async throws(StorageError) -> UserRecord {
        try await write { db in
            if let existing = try Row.fetchOne(
                db.cachedStatement(sql: """
                    SELECT \(SQLiteSchema.userColumns) FROM users WHERE id = (SELECT user_id FROM external_users WHERE external_id = ?)
                    """), arguments: [externalID]
            ).map(UserRecord.init(row:)) {
                return existing
            }
            if let name = newUser.username,
                try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM users WHERE \(SQLiteSchema.usernameMatch)"), arguments: [UsernameKey.of(name), name]) == true
            {
                throw StorageError(.usernameTaken, "username belongs to another account")
            }
            try newUser.insert(db)
            try db.cachedStatement(sql: "INSERT INTO external_users (external_id, user_id) VALUES (?, ?)").execute(arguments: [externalID, newUser.id])
            return newUser
        }
    }

    public func updateNames(userID: String, username: String?, displayName: String?) async throws(StorageError) -> UserRecord {
        try await write { db in
            if let username,
                try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT 1 FROM users WHERE \(SQLiteSchema.usernameMatch) AND id != ?"),
                    arguments: [UsernameKey.of(username), username, userID]) == true
            {
                throw StorageError(.usernameTaken, "username belongs to another account")
            }
            // A NULL argument leaves its column as it is.
            try db.cachedStatement(sql: """
                UPDATE users SET username = COALESCE(?, username), username_key = COALESCE(?, username_key),
                    display_name = COALESCE(?, display_name) WHERE id = ?
                """).execute(arguments: [username, username.map(UsernameKey.of), displayName, userID])
            guard let user = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT \(SQLiteSchema.userColumns) FROM users WHERE id = ?"), arguments: [userID]
            ).map(UserRecord.init(row:)) else {
                throw StorageError(.notFound, "no user \(userID)")
            }
            return user
        }
    }
}
