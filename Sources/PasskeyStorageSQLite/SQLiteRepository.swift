public import Foundation
public import PasskeyStorage
import GRDB

/// SQLite storage (the default): one file, WAL journal, `synchronous=FULL` so an answered registration survives a
/// crash or power loss. Writes are serialized by SQLite; reads run concurrently.
public final class SQLiteRepository: PasskeyRepository {
    let pool: DatabasePool
    let writer: GroupCommitWriter
    /// Raw read-only connections for the sign-in lookup.
    let readers: ReadConnectionPool
    /// Where the database lives, for start-up messages.
    public let path: String

    /// Opens (creating it and its folder if needed) and migrates the database at `path`.
    ///
    /// - Parameter migrate: false for a caller that must change nothing (a dry run): the schema is then only checked,
    ///   and an older one is `storage_unavailable`.
    public init(path: String, migrate: Bool = true) throws(StorageError) {
        self.path = path
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // Durability first: fsync at every commit, also in WAL mode.
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        configuration.busyMode = .timeout(5)
        do {
            if migrate {
                try Self.createPrivately(path)
            } else {
                // Checked read-only before the pool opens: opening it turns WAL on, which writes to an empty file.
                var readOnly = Configuration()
                readOnly.readonly = true
                let queue = try DatabaseQueue(path: path, configuration: readOnly)
                let current = try queue.read { db in try SQLiteSchema.migrator.hasCompletedMigrations(db) }
                try queue.close()
                guard current else {
                    throw StorageError(.unavailable, "the database at \(path) has an older schema than this server's (or none): run passkey-server migrate first")
                }
            }
            let pool = try DatabasePool(path: path, configuration: configuration)
            // GRDB switches its writer connection to `synchronous=NORMAL` when it turns WAL on, after
            // `prepareDatabase` ran: set FULL again on the connection that commits, or commits are not synced.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            if migrate {
                try SQLiteSchema.migrator.migrate(pool)
                try pool.write { db in
                    try SQLiteSchema.fillUsernameKeys(db)
                    try SQLiteSchema.nameUnnamedAccounts(db)
                }
            }
            self.pool = pool
            writer = GroupCommitWriter(pool: pool, path: path)
            readers = ReadConnectionPool(path: path)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(.unavailable, "cannot open SQLite database at \(path): \(error)")
        }
    }

    /// Creates the database's folder (0700) and an empty database file (0600) when they do not exist yet: the file
    /// holds the token signing keys and admin sessions, so only the server's user may read it. SQLite gives the WAL
    /// and shared-memory files the database file's mode. Existing files keep the mode their owner gave them.
    static func createPrivately(_ path: String) throws {
        let manager = FileManager.default
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        if !manager.fileExists(atPath: folder.path) {
            do { try manager.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) } catch {
                // Foundation's error prints as an NSError dump; say it as the rest of the start-up errors do.
                let underlying = (error as? CocoaError)?.underlying ?? ((error as NSError).userInfo[NSUnderlyingErrorKey] as? any Error)
                let reason = underlying.map { $0 as NSError }.flatMap { $0.domain == NSPOSIXErrorDomain ? String(cString: strerror(Int32($0.code))) : nil }
                throw StorageError(.unavailable, "cannot create the folder \(folder.path) for the database: \(reason ?? error.localizedDescription)")
            }
        }
        if !manager.fileExists(atPath: path) {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if descriptor >= 0 { close(descriptor) }
        }
    }

    /// Runs a read, mapping GRDB errors to ``StorageError``.
    ///
    /// On the calling thread: a WAL read never waits for writers, and takes microseconds, so hopping to GRDB's reader
    /// queue and back (as its async `read` does) would cost more than the read itself. Without a read transaction:
    /// every read here is one statement, so BEGIN and COMMIT around it would buy nothing. (The sign-in lookup does not
    /// come here: it runs on the raw read connections, ``lookUpSignIn(challenge:credentialID:now:)``.)
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StorageError) -> T {
        do { return try Self.readHere(pool, body) } catch { throw Self.map(error) }
    }

    /// GRDB's synchronous read (a synchronous context selects it over the async overload).
    static func readHere<T>(_ pool: DatabasePool, _ body: (Database) throws -> T) throws -> T { try pool.unsafeRead(body) }

    /// Runs a write in the next group-committed transaction, mapping GRDB errors to ``StorageError``.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StorageError) -> T {
        do { return try await writer.write { db, _ in try body(db) } } catch { throw Self.map(error) }
    }

    /// A write on the raw writer connection (see ``RawConnection``): for the writes every ceremony makes.
    func writeRaw<T: Sendable>(_ body: @escaping @Sendable (RawConnection) throws(StorageError) -> T) async throws(StorageError) -> T {
        do { return try await writer.writeRaw(body) } catch { throw Self.map(error) }
    }

    static func map(_ error: any Error) -> StorageError {
        if let storage = error as? StorageError { return storage }
        if let database = error as? DatabaseError {
            switch database.resultCode {
            case .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_MISMATCH: return StorageError(.corrupt, database.description)
            default: return StorageError(.unavailable, database.description)
            }
        }
        return StorageError(.corrupt, "\(error)")
    }

    /// The settings in force, for health checks and start-up messages: `journal_mode`, `synchronous` (of the writer
    /// connection, the one whose commits must be synced), `sqlite_version`.
    public func settings() async throws(StorageError) -> [String: String] {
        try await write { db in
            [
                "journal_mode": try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "",
                "synchronous": try Int.fetchOne(db, sql: "PRAGMA synchronous").map(String.init) ?? "",
                "sqlite_version": try String.fetchOne(db, sql: "SELECT sqlite_version()") ?? "",
            ]
        }
    }

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

    // MARK: Credentials

    public func credential(id: [UInt8]) async throws(StorageError) -> CredentialRecordEntry? {
        try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(SQLiteSchema.credentialColumns) FROM credentials WHERE id = ?"), arguments: [Data(id)]).map(CredentialRecordEntry.init(row:))
        }
    }

    /// On a raw read-only connection, like the sign-in's lookup: every sign-in's options with a name read them.
    public func credentials(userID: String) async throws(StorageError) -> [CredentialRecordEntry] {
        try readers.withConnection { connection throws(StorageError) in
            let statement = try connection.statement(Self.credentialsOfUserSQL)
            defer { statement.reset() }  // ends the read transaction
            try statement.bind(1, userID)
            var found: [CredentialRecordEntry] = []
            while try statement.step() { found.append(try CredentialRecordEntry(columns: statement, at: 0)) }
            return found
        }
    }

    public func register(_ credential: CredentialRecordEntry, for user: UserRecord) async throws(StorageError) {
        try await write { db in _ = try Self.register(db, credential: credential, user: user) }
    }

    /// Returns whether it created the account (false: the account existed, and the credential joined it).
    @discardableResult
    static func register(_ db: Database, credential: CredentialRecordEntry, user: UserRecord) throws -> Bool {
        do {
            // §7.1 step 26: a credential ID registered to anyone is refused, and nothing is written.
            if try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM credentials WHERE id = ?"), arguments: [Data(credential.id)]) == true {
                throw StorageError(.credentialExists, "credential ID already registered")
            }
            let created = try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM users WHERE id = ?"), arguments: [user.id]) != true
            if created {
                if let name = user.username,
                    try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM users WHERE \(SQLiteSchema.usernameMatch)"), arguments: [UsernameKey.of(name), name]) == true
                {
                    throw StorageError(.usernameTaken, "username belongs to another account")
                }
                try user.insert(db)
            }
            try credential.insert(db)
            return created
        }
    }

    public func register(_ credential: CredentialRecordEntry, for user: UserRecord, consumingChallenge challengeKey: String, now: Date)
        async throws(StorageError)
    {
        do {
            try await writer.write { db, raw in
                try Self.register(db, raw, credential: credential, user: user, consumingChallenge: challengeKey, now: now)
            }
        } catch { throw Self.map(error) }
    }

    public func register(
        _ credential: CredentialRecordEntry, for user: UserRecord, spendingChallenge challengeKey: String, expiresAt: Date, now: Date
    ) async throws(StorageError) {
        do {
            try await writer.write { db, raw in
                guard try Self.spendChallenge(raw, key: challengeKey, expiresAt: expiresAt, now: now) else {
                    throw StorageError(.challengeConsumed, "the challenge was already used or has expired")
                }
                // The account is new unless the ceremony was completed before (its spent record lost): then the throw
                // rolls back the passkey's insert too.
                guard try Self.register(db, credential: credential, user: user) else {
                    throw StorageError(.challengeConsumed, "the ceremony's account exists: the challenge was used before")
                }
            }
        } catch { throw Self.map(error) }
    }

    /// ``register(_:for:consumingChallenge:now:)``'s statements, inside the caller's transaction.
    static func register(
        _ db: Database, _ raw: RawConnection, credential: CredentialRecordEntry, user: UserRecord, consumingChallenge challengeKey: String,
        now: Date
    ) throws {
        let taken = try takeChallenge(raw, key: challengeKey, now: now)
        if taken.forExistingUser {
            // nil: no such account; false: disabled.
            switch try Bool.fetchOne(db.cachedStatement(sql: "SELECT disabled_at IS NULL FROM users WHERE id = ?"), arguments: [user.id]) {
            case nil: throw StorageError(.notFound, "the account was deleted during this registration")
            case false?: throw StorageError(.accountDisabled, "the account was disabled during this registration")
            case true?: break
            }
        }
        try register(db, credential: credential, user: user)
        if let replaced = taken.replacesCredentialID {
            try db.cachedStatement(sql: "DELETE FROM credentials WHERE id = ? AND user_id = ?").execute(arguments: [Data(replaced), credential.userID])
        }
    }

    public func recordSignIn(
        credentialID: [UInt8], expectedSignCount: UInt32, newSignCount: UInt32, backupState: Bool, at time: Date,
        consumingChallenge challengeKey: String
    ) async throws(StorageError) {
        try await writeRaw { raw throws(StorageError) in
            try Self.takeChallenge(raw, key: challengeKey, now: time)
            try Self.recordSignIn(
                raw, credentialID: credentialID, expectedSignCount: expectedSignCount, newSignCount: newSignCount, backupState: backupState,
                at: time)
        }
    }

    public func recordSignIn(
        credentialID: [UInt8], expectedSignCount: UInt32, newSignCount: UInt32, backupState: Bool, at time: Date,
        spendingChallenge challengeKey: String, expiresAt: Date
    ) async throws(StorageError) {
        try await writeRaw { raw throws(StorageError) in
            guard try Self.spendChallenge(raw, key: challengeKey, expiresAt: expiresAt, now: time) else {
                throw StorageError(.challengeConsumed, "the challenge was already used or has expired")
            }
            try Self.recordSignIn(
                raw, credentialID: credentialID, expectedSignCount: expectedSignCount, newSignCount: newSignCount, backupState: backupState,
                at: time)
        }
    }

    /// Records a sealed challenge as spent, inside the caller's transaction; false when it was spent before or has
    /// expired at `now`. The primary key makes one winner: a second insert of the key changes nothing.
    static func spendChallenge(_ raw: RawConnection, key: String, expiresAt: Date, now: Date) throws(StorageError) -> Bool {
        guard expiresAt > now else { return false }
        let statement = try raw.statement("INSERT INTO spent_challenges (expires_at, key) VALUES (?, ?) ON CONFLICT (expires_at, key) DO NOTHING")
        try statement.bind(1, SQLiteSchema.milliseconds(expiresAt))
        try statement.bind(2, key)
        try statement.execute()
        return raw.changes == 1
    }

    /// Consumes the challenge (marks it, see ``consume(column:value:ceremony:now:)``) and returns what a registration
    /// needs of it; throws `challenge_consumed` when it was used or expired (the write then rolls back).
    @discardableResult
    static func takeChallenge(_ raw: RawConnection, key: String, now: Date) throws(StorageError) -> TakenChallenge {
        let statement = try raw.statement(
            "UPDATE challenges SET consumed = 1 WHERE key = ? AND consumed = 0 RETURNING expires_at, replaces_credential_id, for_existing_user")
        defer { statement.reset() }
        try statement.bind(1, key)
        guard try statement.step(), try statement.int64(0) > SQLiteSchema.milliseconds(now) else {
            throw StorageError(.challengeConsumed, "the challenge was already used or has expired")
        }
        return TakenChallenge(replacesCredentialID: try statement.optionalBlob(1), forExistingUser: try statement.bool(2))
    }

    /// Of a consumed registration challenge: the credential it replaces, and whether its account must exist.
    struct TakenChallenge {
        let replacesCredentialID: [UInt8]?
        let forExistingUser: Bool
    }

    public func recordSignIn(
        credentialID: [UInt8], expectedSignCount: UInt32, newSignCount: UInt32, backupState: Bool, at time: Date
    ) async throws(StorageError) {
        try await writeRaw { raw throws(StorageError) in
            try Self.recordSignIn(
                raw, credentialID: credentialID, expectedSignCount: expectedSignCount, newSignCount: newSignCount, backupState: backupState,
                at: time)
        }
    }

    /// - Parameter expectedUserID: when given, the row must also still belong to this account: a credential deleted and
    ///   registered again under the same ID by another account is another row, whatever its counter.
    static func recordSignIn(
        _ raw: RawConnection, credentialID: [UInt8], expectedSignCount: UInt32, newSignCount: UInt32, backupState: Bool, at time: Date,
        expectedUserID: String? = nil
    ) throws(StorageError) {
        // Compare-and-set: only the sign-in that saw the stored counter moves it.
        let update = try raw.statement(
            "UPDATE credentials SET sign_count = ?, backup_state = ?, last_used_at = ? WHERE id = ? AND sign_count = ? AND user_id = coalesce(?, user_id)")
        try update.bind(1, Int64(newSignCount))
        try update.bind(2, backupState)
        try update.bind(3, SQLiteSchema.milliseconds(time))
        try update.bind(4, credentialID)
        try update.bind(5, Int64(expectedSignCount))
        try update.bind(6, expectedUserID)
        try update.execute()
        guard raw.changes == 1 else {
            let exists = try raw.statement("SELECT 1 FROM credentials WHERE id = ?")
            defer { exists.reset() }
            try exists.bind(1, credentialID)
            if try exists.step() { throw StorageError(.counterConflict, "the stored counter changed during this sign-in") }
            throw StorageError(.notFound, "credential not found")
        }
    }

    public func renameCredential(id: [UInt8], userID: String, name: String) async throws(StorageError) {
        let changed = try await write { db in
            try db.cachedStatement(sql: "UPDATE credentials SET name = ? WHERE id = ? AND user_id = ?").execute(arguments: [name, Data(id), userID])
            return db.changesCount
        }
        guard changed == 1 else { throw StorageError(.notFound, "credential not found for this user") }
    }

    public func deleteCredential(id: [UInt8], userID: String) async throws(StorageError) {
        let changed = try await write { db in
            try db.cachedStatement(sql: "DELETE FROM credentials WHERE id = ? AND user_id = ?").execute(arguments: [Data(id), userID])
            return db.changesCount
        }
        guard changed == 1 else { throw StorageError(.notFound, "credential not found for this user") }
    }

    // MARK: Challenges

    public func challenge(key: String, ceremony: ChallengeRecord.Ceremony, now: Date) async throws(StorageError) -> ChallengeRecord? {
        try await peek(.key(key), ceremony: ceremony, now: now)
    }

    public func challenge(value: String, ceremony: ChallengeRecord.Ceremony, now: Date) async throws(StorageError) -> ChallengeRecord? {
        try await peek(.value(value), ceremony: ceremony, now: now)
    }

    /// On a raw read-only connection, like the sign-in's lookup: every registration's verification reads its challenge.
    func peek(_ reference: ChallengeReference, ceremony: ChallengeRecord.Ceremony, now: Date) async throws(StorageError) -> ChallengeRecord? {
        let sql: String
        let value: String
        switch reference {
        case .key(let key): (sql, value) = (Self.challengeByKeySQL, key)
        case .value(let challenge): (sql, value) = (Self.challengeByValueSQL, challenge)
        // Never stored: nothing to read.
        case .sealed: return nil
        }
        let record = try readers.withConnection { connection throws(StorageError) -> ChallengeRecord? in
            let statement = try connection.statement(sql)
            defer { statement.reset() }  // ends the read transaction
            try statement.bind(1, value)
            try statement.bind(2, ceremony.rawValue)
            guard try statement.step() else { return nil }
            return try ChallengeRecord(columns: statement, at: 0)
        }
        guard let record, record.expiresAt > now else { return nil }
        return record
    }

    static let challengeByKeySQL = "SELECT \(SQLiteSchema.challengeColumns) FROM challenges WHERE key = ? AND ceremony = ? AND consumed = 0"
    static let challengeByValueSQL = "SELECT \(SQLiteSchema.challengeColumns) FROM challenges WHERE challenge = ? AND ceremony = ? AND consumed = 0"

    /// One statement, one snapshot, on a raw read-only connection: the ceremony, the credential, its owner and the
    /// owner's app user id. The sign-in runs this once per request, so it skips GRDB (see ``RawConnection``).
    public func lookUpSignIn(challenge reference: ChallengeReference, credentialID: [UInt8], now: Date) async throws(StorageError) -> SignInLookup {
        let (sql, value) = Self.signInLookupStatement(reference)
        return try readers.withConnection { connection throws(StorageError) in
            try Self.lookUpSignIn(connection, reference, sql: sql, value: value, credentialID: credentialID, now: now)
        }
    }

    /// The sign-in lookup's statement on `connection` (a reader's, or the writer's inside its transaction).
    static func lookUpSignIn(
        _ connection: RawConnection, _ reference: ChallengeReference, sql: String, value: String, credentialID: [UInt8], now: Date
    ) throws(StorageError) -> SignInLookup {
        let statement = try connection.statement(sql)
        defer { statement.reset() }  // ends a reader's read transaction
        try statement.bind(1, value)
        try statement.bind(2, credentialID)
        // A sealed challenge is found among the spent ones by its expiry and key; a stored one has no expiry there.
        if case .sealed(let record) = reference { try statement.bind(3, SQLiteSchema.milliseconds(record.expiresAt)) } else { try statement.bind(3, Int64(0)) }
        guard try statement.step() else { throw StorageError(.corrupt, "the sign-in lookup returned no row") }
        let layout = SignInLookupLayout.self
        var challenge: ChallengeRecord?
        if case .sealed(let record) = reference {
            // Spent: gone, as a consumed stored challenge is.
            challenge = try statement.bool(layout.spent) ? nil : record
        } else {
            challenge = statement.isNull(0) ? nil : try ChallengeRecord(columns: statement, at: 0)
        }
        if let record = challenge, record.expiresAt <= now { challenge = nil }
        let credential = statement.isNull(layout.credential) ? nil : try CredentialRecordEntry(columns: statement, at: layout.credential)
        let owner = statement.isNull(layout.owner) ? nil : try UserRecord(columns: statement, at: layout.owner)
        let externalUserID = try statement.optionalText(layout.externalID)
        var ownerCredentialIDs: [[UInt8]]?
        if let owner {
            // The owner's passkey IDs for the Signal API, on the same connection: on the writer's, inside the sign-in's
            // transaction and from its warm cache, instead of a reader's read after the commit (whose cache the commit
            // dropped), which cost about 115 µs per sign-in (docs/benchmarks.md).
            let ids = try connection.statement("SELECT id FROM credentials WHERE user_id = ? ORDER BY created_at, id")
            defer { ids.reset() }
            try ids.bind(1, owner.id)
            var found: [[UInt8]] = []
            while try ids.step() { found.append(try ids.blob(0)) }
            ownerCredentialIDs = found
        }
        return SignInLookup(
            challenge: challenge, credential: credential, owner: owner, externalUserID: externalUserID, ownerCredentialIDs: ownerCredentialIDs)
    }

    /// The whole sign-in in the writer's group-committed transaction: the lookup on the writer's connection, `decide`
    /// (the signature check) on any core, then the write, in one transaction.
    ///
    /// Reading on the writer's connection is what makes this cheaper than a lookup on a reader followed by a write: a
    /// WAL reader drops its page cache whenever another connection committed since its last read, so under load every
    /// lookup read its pages again, while the writer's cache stays warm across its own commits. The batch's lookups run
    /// before its writes, so a sign-in whose credential another sign-in of the same batch changed first is decided
    /// again, on what is stored then.
    public func completeSignIn<T: Sendable>(
        challenge reference: ChallengeReference, credentialID: [UInt8], now: Date,
        decide: @escaping @Sendable (SignInLookup) -> (write: SignInWrite, result: T)
    ) async throws(StorageError) -> T {
        let (sql, value) = Self.signInLookupStatement(reference)
        let lookUp: @Sendable (RawConnection) throws(StorageError) -> SignInLookup = { raw throws(StorageError) in
            try Self.lookUpSignIn(raw, reference, sql: sql, value: value, credentialID: credentialID, now: now)
        }
        // The last decision, for when the write fails: a refusal stands without its challenge burnt, as with the
        // protocol's default (only a verified sign-in must not be answered unless it was recorded).
        let lastDecision = LastDecision<T>()
        let deciding: @Sendable (SignInLookup) -> (write: SignInWrite, result: T) = { lookup in
            let decision = decide(lookup)
            lastDecision.set(decision)
            return decision
        }
        let (result, failure): (T, StorageError?)
        do {
            (result, failure) = try await writer.writeRaw(read: lookUp, decide: deciding) { raw, lookup, decision throws(StorageError) in
                do throws(StorageError) {
                    return try Self.applySignIn(raw, decision, lookup: lookup, reference: reference, credentialID: credentialID, now: now)
                } catch where error.code == .counterConflict || error.code == .notFound {
                    // Another write of this batch changed the credential after this sign-in's lookup: decide again.
                    let fresh = try lookUp(raw)
                    let again = deciding(fresh)
                    do throws(StorageError) {
                        return try Self.applySignIn(raw, again, lookup: fresh, reference: reference, credentialID: credentialID, now: now)
                    } catch where error.code == .counterConflict || error.code == .notFound {
                        // The decision does not fit what is stored: the write fails, the challenge is consumed all the same.
                        _ = try Self.applySignIn(raw, (.burn, again.result), lookup: fresh, reference: reference, credentialID: credentialID, now: now)
                        return (again.result, error)
                    }
                }
            }
        } catch {
            if let refused = lastDecision.refusal { return refused }
            throw Self.map(error)
        }
        if let failure { throw failure }
        return result
    }

    /// Writes what a sign-in decided. The counter moves first: when it fails its compare-and-set nothing was written
    /// yet, so the caller may decide again. A failure after that (the challenge consumed meanwhile) rolls the write back.
    static func applySignIn<T>(
        _ raw: RawConnection, _ decision: (write: SignInWrite, result: T), lookup: SignInLookup, reference: ChallengeReference,
        credentialID: [UInt8], now: Date
    ) throws(StorageError) -> (T, StorageError?) {
        guard let challenge = lookup.challenge else {
            // Nothing to consume, so nothing may be recorded either.
            if case .record = decision.write { throw StorageError(.challengeConsumed, "the challenge was already used or has expired") }
            return (decision.result, nil)
        }
        let sealed = reference.isSealed
        switch decision.write {
        case .record(let expectedSignCount, let newSignCount, let backupState, let time):
            try recordSignIn(
                raw, credentialID: credentialID, expectedSignCount: expectedSignCount, newSignCount: newSignCount, backupState: backupState,
                at: time, expectedUserID: lookup.credential?.userID)
            if sealed {
                guard try spendChallenge(raw, key: challenge.key, expiresAt: challenge.expiresAt, now: now) else {
                    throw StorageError(.challengeConsumed, "the challenge was already used or has expired")
                }
            } else {
                try takeChallenge(raw, key: challenge.key, now: now)
            }
        case .burn:
            if sealed {
                // Spent before (another attempt of the batch, perhaps): burnt all the same.
                _ = try spendChallenge(raw, key: challenge.key, expiresAt: challenge.expiresAt, now: now)
            } else {
                do throws(StorageError) { try takeChallenge(raw, key: challenge.key, now: now) } catch where error.code == .challengeConsumed {
                    // Another attempt of the batch consumed it first: burnt all the same.
                }
            }
        case .nothing:
            break
        }
        return (decision.result, nil)
    }

    /// Where each record starts in the sign-in lookup's row.
    enum SignInLookupLayout {
        static let credential = SQLiteSchema.columnCount(SQLiteSchema.challengeColumns)
        static let owner = credential + SQLiteSchema.columnCount(SQLiteSchema.credentialColumns)
        static let externalID = owner + SQLiteSchema.userColumnCount
        static let spent = externalID + 1
    }

    /// The lookup's SQL for how the challenge is named, and the value to bind.
    static func signInLookupStatement(_ reference: ChallengeReference) -> (sql: String, value: String) {
        switch reference {
        case .key(let key): (signInLookupByKeySQL, key)
        case .value(let value): (signInLookupByValueSQL, value)
        // Nothing stored to read for the challenge but whether its key was spent (the statement's last column).
        case .sealed(let record): (signInLookupByKeySQL, record.key)
        }
    }

    static let signInLookupByKeySQL = signInLookupSQL(challengeColumn: "key")
    static let signInLookupByValueSQL = signInLookupSQL(challengeColumn: "challenge")

    /// A single row whatever exists: each part is NULL when missing; last, whether a sealed challenge with key `?1` and
    /// expiry `?3` (0 for a stored challenge) was spent.
    static func signInLookupSQL(challengeColumn: String) -> String {
        """
        SELECT \(SQLiteSchema.qualified(SQLiteSchema.challengeColumns, "c")), \(SQLiteSchema.qualified(SQLiteSchema.credentialColumns, "cr")),
            \(SQLiteSchema.userColumns(of: "u")), e.external_id,
            EXISTS (SELECT 1 FROM spent_challenges sp WHERE sp.expires_at = ?3 AND sp.key = ?1)
        FROM (SELECT 1)
        LEFT JOIN challenges c ON c.\(challengeColumn) = ?1 AND c.ceremony = 'authentication' AND c.consumed = 0
        LEFT JOIN credentials cr ON cr.id = ?2
        LEFT JOIN users u ON u.id = cr.user_id
        LEFT JOIN external_users e ON e.user_id = u.id
        """
    }

    public func saveChallenge(_ challenge: ChallengeRecord) async throws(StorageError) {
        try await writeRaw { raw throws(StorageError) in try challenge.insert(raw) }
    }

    public func consumeChallenge(key: String, ceremony: ChallengeRecord.Ceremony, now: Date) async throws(StorageError) -> ChallengeRecord? {
        try await consume(column: "key", value: key, ceremony: ceremony, now: now)
    }

    public func consumeChallenge(value: String, ceremony: ChallengeRecord.Ceremony, now: Date) async throws(StorageError) -> ChallengeRecord? {
        try await consume(column: "challenge", value: value, ceremony: ceremony, now: now)
    }

    /// `UPDATE … RETURNING` in one statement: of concurrent consumers exactly one gets the row. A consumed challenge is
    /// marked, not deleted: the mark changes one page of the table (rows sit in the order they were issued), where a
    /// delete would also change a page of each of the random-keyed indexes (key, challenge) — on the sign-in path that
    /// made most of what each commit wrote. Marked rows are deleted in bulk by the next purge (``purgeExpiredChallenges(now:)``).
    func consume(column: String, value: String, ceremony: ChallengeRecord.Ceremony, now: Date) async throws(StorageError) -> ChallengeRecord? {
        let record = try await write { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: "UPDATE challenges SET consumed = 1 WHERE \(column) = ? AND ceremony = ? AND consumed = 0 RETURNING \(SQLiteSchema.challengeColumns)"),
                arguments: [value, ceremony.rawValue]
            ).map(ChallengeRecord.init(row:))
        }
        guard let record, record.expiresAt > now else { return nil }
        return record
    }

    public func spendChallenge(key: String, expiresAt: Date, now: Date) async throws(StorageError) -> Bool {
        try await writeRaw { raw throws(StorageError) in try Self.spendChallenge(raw, key: key, expiresAt: expiresAt, now: now) }
    }

    /// On a raw read-only connection: every sealed registration reads it.
    public func isChallengeSpent(key: String, expiresAt: Date) async throws(StorageError) -> Bool {
        try readers.withConnection { connection throws(StorageError) in
            let statement = try connection.statement("SELECT 1 FROM spent_challenges WHERE expires_at = ? AND key = ?")
            defer { statement.reset() }  // ends the read transaction
            try statement.bind(1, SQLiteSchema.milliseconds(expiresAt))
            try statement.bind(2, key)
            return try statement.step()
        }
    }

    public func purgeExpiredChallenges(now: Date) async throws(StorageError) -> Int {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM spent_challenges WHERE expires_at <= ?").execute(
                arguments: [SQLiteSchema.milliseconds(now.addingTimeInterval(-ChallengeRecord.spentRecordRetention))])
            // Consumed challenges go too, whatever their expiry: the table holds what is pending plus what was consumed
            // since the last purge.
            try db.cachedStatement(sql: "DELETE FROM challenges WHERE expires_at <= ? OR consumed = 1").execute(arguments: [SQLiteSchema.milliseconds(now)])
            return db.changesCount
        }
    }

    public func secret(named name: String, orCreate make: @escaping @Sendable () -> [UInt8]) async throws(StorageError) -> [UInt8] {
        try await write { db in
            if let existing = try Data.fetchOne(db.cachedStatement(sql: "SELECT value FROM secrets WHERE name = ?"), arguments: [name]) {
                return [UInt8](existing)
            }
            let created = make()
            try db.cachedStatement(sql: "INSERT INTO secrets (name, value) VALUES (?, ?)").execute(arguments: [name, Data(created)])
            return created
        }
    }

    public func challengeCount() async throws(StorageError) -> Int {
        try await read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM challenges WHERE consumed = 0") ?? 0 }
    }
}

/// A sign-in's latest decision, set inside the writer's batch and read by the caller after it ended.
final class LastDecision<T: Sendable>: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var decision: (write: SignInWrite, result: T)?

    func set(_ value: (write: SignInWrite, result: T)) { lock.withLock { decision = value } }

    /// The result of a decision that records nothing (a refusal, or no usable challenge).
    var refusal: T? {
        lock.withLock {
            guard let decision else { return nil }
            if case .record = decision.write { return nil }
            return decision.result
        }
    }
}
