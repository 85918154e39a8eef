import Foundation
import GRDB
import PasskeyStorage
import PasskeyWire

/// The SQLite schema, as numbered migrations. Times are integer milliseconds since 1970 (UTC); binary values are BLOBs.
enum SQLiteSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: users, credentials, challenges") { db in
            try db.execute(
                sql: """
                    CREATE TABLE users (
                        id TEXT PRIMARY KEY NOT NULL,
                        user_handle BLOB NOT NULL UNIQUE,
                        username TEXT UNIQUE COLLATE NOCASE,
                        display_name TEXT NOT NULL,
                        is_anonymous INTEGER NOT NULL,
                        created_at INTEGER NOT NULL,
                        last_sign_in_at INTEGER
                    );
                    CREATE INDEX users_created_at ON users (created_at);
                    CREATE TABLE credentials (
                        id BLOB PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                        public_key BLOB NOT NULL,
                        algorithm INTEGER NOT NULL,
                        sign_count INTEGER NOT NULL,
                        uv_initialized INTEGER NOT NULL,
                        transports TEXT NOT NULL,
                        backup_eligible INTEGER NOT NULL,
                        backup_state INTEGER NOT NULL,
                        aaguid TEXT NOT NULL,
                        attestation_format TEXT NOT NULL,
                        attestation_type TEXT NOT NULL,
                        name TEXT,
                        created_at INTEGER NOT NULL,
                        last_used_at INTEGER
                    );
                    CREATE INDEX credentials_user_id ON credentials (user_id);
                    CREATE TABLE challenges (
                        key TEXT PRIMARY KEY NOT NULL,
                        challenge TEXT NOT NULL UNIQUE,
                        ceremony TEXT NOT NULL,
                        user_id TEXT,
                        username TEXT,
                        display_name TEXT,
                        user_handle BLOB,
                        allowed_credential_ids TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL
                    );
                    CREATE INDEX challenges_expires_at ON challenges (expires_at);
                    """)
        }
        migrator.registerMigration("v2: secrets") { db in
            try db.execute(sql: "CREATE TABLE secrets (name TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL)")
        }
        migrator.registerMigration("v3: signing keys, API keys, connect tokens, external users, passkey reset") { db in
            try db.execute(
                sql: """
                    CREATE TABLE signing_keys (
                        id TEXT PRIMARY KEY NOT NULL,
                        algorithm TEXT NOT NULL,
                        private_key_pem TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        retires_at INTEGER
                    );
                    CREATE TABLE api_keys (
                        id TEXT PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL,
                        prefix TEXT NOT NULL,
                        secret_hash BLOB NOT NULL UNIQUE,
                        created_at INTEGER NOT NULL,
                        last_used_at INTEGER,
                        revoked_at INTEGER
                    );
                    CREATE TABLE connect_tokens (
                        hash BLOB PRIMARY KEY NOT NULL,
                        type TEXT NOT NULL,
                        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                        single_use INTEGER NOT NULL,
                        created_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL
                    );
                    CREATE INDEX connect_tokens_expires_at ON connect_tokens (expires_at);
                    CREATE TABLE used_token_ids (
                        id TEXT PRIMARY KEY NOT NULL,
                        expires_at INTEGER NOT NULL
                    );
                    CREATE INDEX used_token_ids_expires_at ON used_token_ids (expires_at);
                    CREATE TABLE external_users (
                        external_id TEXT PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL UNIQUE REFERENCES users (id) ON DELETE CASCADE
                    );
                    ALTER TABLE challenges ADD COLUMN replaces_credential_id BLOB;
                    ALTER TABLE challenges ADD COLUMN conditional INTEGER NOT NULL DEFAULT 0;
                    """)
        }
        migrator.registerMigration("v4: events, admins, admin credentials, invites and sessions") { db in
            try db.execute(
                sql: """
                    CREATE TABLE events (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        time INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        result TEXT NOT NULL,
                        code TEXT,
                        explanation TEXT,
                        user_id TEXT,
                        username TEXT,
                        credential_id_prefix TEXT,
                        origin TEXT,
                        rp_id TEXT,
                        expected TEXT,
                        received TEXT,
                        client_ip TEXT,
                        user_agent TEXT,
                        request_id TEXT
                    );
                    CREATE INDEX events_time ON events (time);
                    CREATE TABLE admins (
                        id TEXT PRIMARY KEY NOT NULL,
                        user_handle BLOB NOT NULL UNIQUE,
                        name TEXT NOT NULL,
                        created_at INTEGER NOT NULL
                    );
                    CREATE TABLE admin_credentials (
                        id BLOB PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL REFERENCES admins (id) ON DELETE CASCADE,
                        public_key BLOB NOT NULL,
                        algorithm INTEGER NOT NULL,
                        sign_count INTEGER NOT NULL,
                        uv_initialized INTEGER NOT NULL,
                        transports TEXT NOT NULL,
                        backup_eligible INTEGER NOT NULL,
                        backup_state INTEGER NOT NULL,
                        aaguid TEXT NOT NULL,
                        attestation_format TEXT NOT NULL,
                        attestation_type TEXT NOT NULL,
                        name TEXT,
                        created_at INTEGER NOT NULL,
                        last_used_at INTEGER
                    );
                    CREATE INDEX admin_credentials_user_id ON admin_credentials (user_id);
                    CREATE TABLE admin_invites (
                        hash BLOB PRIMARY KEY NOT NULL,
                        created_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL
                    );
                    CREATE TABLE admin_sessions (
                        hash BLOB PRIMARY KEY NOT NULL,
                        admin_id TEXT NOT NULL REFERENCES admins (id) ON DELETE CASCADE,
                        created_at INTEGER NOT NULL,
                        last_seen_at INTEGER NOT NULL,
                        verified_at INTEGER NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v5: challenges are marked consumed and deleted when they expire") { db in
            try db.execute(sql: "ALTER TABLE challenges ADD COLUMN consumed INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v6: registrations for an existing account are marked") { db in
            try db.execute(sql: "ALTER TABLE challenges ADD COLUMN for_existing_user INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v7: usernames compare case-insensitively in every script") { db in
            try db.execute(sql: "ALTER TABLE users ADD COLUMN username_key TEXT")
            try db.execute(sql: "CREATE UNIQUE INDEX users_username_key ON users (username_key)")
            try fillUsernameKeys(db)
        }
        migrator.registerMigration("v8: events keep the username key") { db in
            // Events from before keep none and are matched by name as before (the dashboard keeps 30 days by default).
            try db.execute(sql: "ALTER TABLE events ADD COLUMN username_key TEXT")
        }
        migrator.registerMigration("v9: username keys fold capital sharp s") { db in
            try refreshUsernameKeys(db)
        }
        migrator.registerMigration("v10: connect tokens record the API key that minted them") { db in
            // Tokens from before keep none: they are not deleted with their key and expire on their own (minutes).
            try db.execute(sql: "ALTER TABLE connect_tokens ADD COLUMN api_key_id TEXT")
            try db.execute(sql: "CREATE INDEX connect_tokens_api_key_id ON connect_tokens (api_key_id)")
        }
        migrator.registerMigration("v11: accounts can be disabled") { db in
            try db.execute(sql: "ALTER TABLE users ADD COLUMN disabled_at INTEGER")
        }
        migrator.registerMigration("v12: a disable revokes the sign-in tokens issued before it") { db in
            try db.execute(sql: "ALTER TABLE users ADD COLUMN tokens_revoked_at INTEGER")
        }
        migrator.registerMigration("v13: registrations that create an account named by a contact") { db in
            try db.execute(sql: "ALTER TABLE challenges ADD COLUMN accepted_contacts TEXT")
        }
        migrator.registerMigration("v14: username keys map fullwidth and halfwidth forms") { db in
            // RFC 8265's width mapping (``WidthMapping``): "ｃａｒｏｌ" was another name than "carol". Of two accounts
            // that now share a key the older keeps it (``SQLiteRepository/usernameCollisions()`` lists the other).
            try refreshUsernameKeys(db)
        }
        migrator.registerMigration("v15: webhook endpoints, outbox and deliveries") { db in
            try db.execute(sql: SQLiteWebhookSchema.tables)
            for trigger in SQLiteWebhookSchema.triggers { try db.execute(sql: trigger) }
        }
        migrator.registerMigration("v16: sign-in challenges are sealed, and only spent ones are stored") { db in
            // One row per sealed sign-in challenge used, until it expires: the primary key makes its single use. Expiry
            // first: sign-ins finish in about the order their options were made, so a batch's new rows share the
            // b-tree's last page instead of dirtying a random page each, and the purge deletes a range from its start.
            try db.execute(
                sql: "CREATE TABLE spent_challenges (expires_at INTEGER NOT NULL, key TEXT NOT NULL, PRIMARY KEY (expires_at, key)) WITHOUT ROWID")
        }
        migrator.registerMigration("v17: a sign-in writes only its passkey's row") { db in
            // An account's last sign-in is read as the later of its own column and its passkeys' last use (see
            // `userColumns`), so a passkey deleted takes nothing with it: its last use moves onto the account first.
            // When the account itself is deleted, its row is gone before its passkeys are, and this updates nothing.
            try db.execute(
                sql: """
                    CREATE TRIGGER credentials_keep_last_sign_in AFTER DELETE ON credentials
                    WHEN OLD.last_used_at IS NOT NULL
                    BEGIN
                        UPDATE users SET last_sign_in_at = OLD.last_used_at
                        WHERE id = OLD.user_id AND (last_sign_in_at IS NULL OR last_sign_in_at < OLD.last_used_at);
                    END
                    """)
        }
        migrator.registerMigration("v18: accounts made without a name have the name their passkeys carry") { db in
            try nameUnnamedAccounts(db)
        }
        return migrator
    }

    /// Gives each account stored without a username the one its passkeys carry (``GeneratedUsername/legacy(userHandle:)``),
    /// oldest first, so that the name finds it and answers carry it; when another account holds that name (by the name
    /// column, unique without case, or by key), the longer one its handle gives (``GeneratedUsername/make(userHandle:)``),
    /// which the signals of its next sign-in give its passkeys. Keys are handed out as for any name
    /// (``fillUsernameKeys(_:)``). Run by migration v18, at every open and at the end of an import, in the writer's
    /// transaction: accounts an old instance made during a rolling upgrade, and accounts an import brought without a
    /// name, get theirs.
    static func nameUnnamedAccounts(_ db: Database) throws {
        let rows = try Row.fetchAll(db, sql: "SELECT id, user_handle FROM users WHERE username IS NULL ORDER BY created_at, id")
        for row in rows {
            let id: String = row[0]
            let handle = Array(row[1] as Data)
            for name in [GeneratedUsername.legacy(userHandle: handle), GeneratedUsername.make(userHandle: handle)] {
                try db.execute(
                    sql: """
                        UPDATE users SET username = ? WHERE id = ?
                        AND NOT EXISTS (SELECT 1 FROM users WHERE username = ? COLLATE NOCASE OR username_key = ?)
                        """,
                    arguments: [name, id, name, UsernameKey.of(name)])
                if db.changesCount == 1 { break }
            }
        }
        try fillUsernameKeys(db)
    }

    /// The condition that finds an account by name (two arguments: the name's ``UsernameKey``, then the name): by key,
    /// or, for an account without one (see ``fillUsernameKeys(_:)``), by the ASCII-only case folding names had before.
    static let usernameMatch = "(username_key = ? OR (username_key IS NULL AND username = ? COLLATE NOCASE))"

    /// Gives accounts and events the key ``UsernameKey`` computes now where it differs from the stored one: keys made
    /// before it folded capital sharp s (`ẞ`) kept an `ß` that other spellings of the name fold to `ss` (v9), and keys
    /// made before the width mapping kept fullwidth letters (v14). An account
    /// whose key changes, and any account holding the key it now gets, lose theirs, and ``fillUsernameKeys(_:)`` hands
    /// them out again oldest first, as migration v7 did. Only names with a letter outside ASCII can change, so only
    /// those are read.
    static func refreshUsernameKeys(_ db: Database) throws {
        let nonASCII = "username GLOB '*[^ -~]*'"
        var stale: [String] = []
        var wanted: Set<String> = []
        for row in try Row.fetchAll(db, sql: "SELECT id, username, username_key FROM users WHERE username_key IS NOT NULL AND \(nonASCII)") {
            let name: String = row[1]
            let stored: String = row[2]
            let key = UsernameKey.of(name)
            if key != stored {
                stale.append(row[0])
                wanted.insert(key)
            }
        }
        for id in stale { try db.execute(sql: "UPDATE users SET username_key = NULL WHERE id = ?", arguments: [id]) }
        for key in wanted { try db.execute(sql: "UPDATE users SET username_key = NULL WHERE username_key = ?", arguments: [key]) }
        try fillUsernameKeys(db)
        for row in try Row.fetchAll(
            db, sql: "SELECT DISTINCT username, username_key FROM events WHERE username_key IS NOT NULL AND \(nonASCII)")
        {
            let name: String = row[0]
            let stored: String = row[1]
            let key = UsernameKey.of(name)
            if key != stored {
                try db.execute(
                    sql: "UPDATE events SET username_key = ? WHERE username = ? AND username_key = ?", arguments: [key, name, stored])
            }
        }
    }

    /// Gives accounts without one their ``UsernameKey``, oldest first, unless another account holds it. Before keys,
    /// names were compared with ASCII-only case folding, so two accounts may differ only in the case of other letters
    /// (`Zoë`, `ZOË`): the older one gets the key; the newer one gets none, so it is not found by username (its passkeys
    /// still sign in without one, and the dashboard lists it) until the holder of the key is deleted.
    ///
    /// Run by migration v7 and at every open (``SQLiteRepository/init(path:)``), so such an account gets its key once it
    /// is free, as on PostgreSQL.
    static func fillUsernameKeys(_ db: Database) throws {
        let rows = try Row.fetchAll(
            db, sql: "SELECT id, username FROM users WHERE username IS NOT NULL AND username_key IS NULL ORDER BY created_at, id")
        for row in rows {
            let id: String = row[0]
            let name: String = row[1]
            let key = UsernameKey.of(name)
            try db.execute(
                sql: "UPDATE users SET username_key = ? WHERE id = ? AND NOT EXISTS (SELECT 1 FROM users WHERE username_key = ?)",
                arguments: [key, id, key])
        }
    }

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
