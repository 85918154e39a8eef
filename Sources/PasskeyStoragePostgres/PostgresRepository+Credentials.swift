public import Foundation
public import PasskeyStorage
import PostgresNIO

/// Credentials: registration (with its account and, when asked, the ceremony's challenge) in one transaction, sign-ins
/// by compare-and-set on the counter.
extension PostgresRepository: CredentialRepository {
    public func credential(id: [UInt8]) async throws(StorageError) -> CredentialRecordEntry? {
        let logger = self.logger
        let rows = try await withConnection("credential by id") { connection in
            try await connection.rows("SELECT \(unescaped: PostgresSchema.credentialColumns) FROM credentials WHERE id = \(ByteBuffer(id))", logger)
        }
        return try rows.first.map { row throws(StorageError) in try CredentialRecordEntry(PostgresRowReader(row)) }
    }

    public func credentials(userID: String) async throws(StorageError) -> [CredentialRecordEntry] {
        let logger = self.logger
        let rows = try await withConnection("credentials of a user") { connection in
            try await connection.rows(CredentialsOfUser(userID: userID), logger)
        }
        var credentials: [CredentialRecordEntry] = []
        for row in rows { credentials.append(try CredentialRecordEntry(PostgresRowReader(row))) }
        return credentials
    }

    public func register(_ credential: CredentialRecordEntry, for user: UserRecord, spending: ChallengeSpend, now: Date) async throws(StorageError) {
        switch spending {
        case .nothing: try await registerSpendingNothing(credential, for: user)
        case .stored(let key): try await register(credential, for: user, consumingStored: key, now: now)
        case .sealed(let key, let expiresAt): try await register(credential, for: user, spendingSealed: key, expiresAt: expiresAt, now: now)
        }
    }

    public func recordSignIn(
        credentialID: [UInt8], expectedSignCount: UInt32, newSignCount: UInt32, backupState: Bool, at time: Date, spending: ChallengeSpend
    ) async throws(StorageError) {
        switch spending {
        case .nothing:
            try await moveCounter(credentialID: credentialID, expectedSignCount: expectedSignCount, newSignCount: newSignCount, backupState: backupState, at: time)
        case .stored(let key):
            try await recordSignIn(
                credentialID: credentialID, expectedSignCount: expectedSignCount, newSignCount: newSignCount, backupState: backupState, at: time,
                consumingStored: key)
        case .sealed(let key, let expiresAt):
            try await recordSignIn(
                credentialID: credentialID, expectedSignCount: expectedSignCount, newSignCount: newSignCount, backupState: backupState, at: time,
                spendingSealed: key, expiresAt: expiresAt)
        }
    }

    func registerSpendingNothing(_ credential: CredentialRecordEntry, for user: UserRecord) async throws(StorageError) {
        let logger = self.logger
        try await transaction("register") { connection in
            try await Self.register(connection, credential: credential, user: user, logger: logger)
        }
    }

    func register(_ credential: CredentialRecordEntry, for user: UserRecord, consumingStored challengeKey: String, now: Date)
        async throws(StorageError)
    {
        let logger = self.logger
        try await transaction("register consuming a challenge") { connection in
            try await Self.register(connection, credential: credential, user: user, consumingChallenge: challengeKey, now: now, logger: logger)
        }
    }

    /// One statement, so one round trip and one commit: the checks and the three inserts are its parts
    /// (``sealedRegistration(_:for:challengeKey:expiresAt:)``), and a unique violation in any of them aborts it whole.
    func register(
        _ credential: CredentialRecordEntry, for user: UserRecord, spendingSealed challengeKey: String, expiresAt: Date, now: Date
    ) async throws(StorageError) {
        guard expiresAt > now else { throw StorageError(.challengeConsumed, "the challenge has expired") }
        let logger = self.logger
        let query = Self.sealedRegistration(credential, for: user, challengeKey: challengeKey, expiresAt: expiresAt)
        let outcome = try await withConnection("register spending a challenge") { connection in
            let rows: [PostgresRow]
            do { rows = try await connection.rows(query, logger) } catch let error as PSQLError where error.serverInfo?[.constraintName] == "users_pkey" {
                // The ceremony's account exists: it was completed before (its spent record lost, as after a move).
                throw StorageError(.challengeConsumed, "the ceremony's account exists: the challenge was used before")
            }
            guard let row = rows.first else { throw StorageError(.corrupt, "the registration statement returned no row") }
            let reader = PostgresRowReader(row)
            return (
                used: try reader.value(0, Bool.self), nameTaken: try reader.value(1, Bool.self), spent: try reader.value(2, Bool.self),
                stored: try reader.value(3, Bool.self))
        }
        if outcome.used { throw StorageError(.challengeConsumed, "the challenge was already used") }
        if outcome.nameTaken { throw StorageError(.usernameTaken, "username belongs to another account") }
        guard outcome.spent, outcome.stored else { throw StorageError(.challengeConsumed, "the challenge was already used") }
    }

    /// A new account's registration with its sealed challenge, in one statement:
    /// - `checks`: whether the challenge was used (recorded as spent, or its account exists: completed before, its
    ///   record lost), and whether the name belongs to an account (as ``PostgresSchema/userNamed(_:columns:)`` finds it);
    ///   a used challenge answers first, as the stores that check in turn answer;
    /// - `spent`: the challenge recorded as spent unless a check refused; nothing when a concurrent completion recorded
    ///   it first (the primary key: the later one waits for it, then inserts nothing);
    /// - `account` and `passkey`: inserted only after `spent`. The account's id has no `ON CONFLICT`: `users_pkey`, a
    ///   passkey ID registered before (`credentials_pkey`: `credential_exists`, §7.1 step 26) or a name a concurrent
    ///   registration took (the username index: `username_taken`) aborts the whole statement, so nothing is written. The
    ///   passkey's foreign key is checked at the end of the statement, when its account is there.
    ///
    /// Returns one row: used, taken, spent, stored.
    static func sealedRegistration(_ credential: CredentialRecordEntry, for user: UserRecord, challengeKey: String, expiresAt: Date)
        -> PostgresQuery
    {
        let expiry = PostgresTime.milliseconds(expiresAt)
        var sql = PostgresQuery.StringInterpolation(literalCapacity: 1_600, interpolationCount: 34)
        sql.appendLiteral("WITH checks AS (SELECT EXISTS (SELECT 1 FROM spent_challenges WHERE expires_at = ")
        sql.appendInterpolation(expiry)
        sql.appendLiteral(" AND key = ")
        sql.appendInterpolation(challengeKey)
        sql.appendLiteral(") OR EXISTS (SELECT 1 FROM users WHERE id = ")
        sql.appendInterpolation(user.id)
        sql.appendLiteral(") AS used, ")
        if let name = user.username {
            sql.appendLiteral("EXISTS (SELECT 1 FROM users WHERE ")
            PostgresSchema.appendUsernameMatch(name, to: &sql)
            sql.appendLiteral(") AS taken), ")
        } else {
            sql.appendLiteral("false AS taken), ")
        }
        sql.appendLiteral("spent AS (INSERT INTO spent_challenges (expires_at, key) SELECT ")
        sql.appendInterpolation(expiry)
        sql.appendLiteral("::bigint, ")
        sql.appendInterpolation(challengeKey)
        sql.appendLiteral("::text FROM checks WHERE NOT checks.used AND NOT checks.taken ON CONFLICT (expires_at, key) DO NOTHING RETURNING 1), ")
        sql.appendLiteral("account AS (INSERT INTO users (\(userColumnNames)) SELECT ")
        appendValues(of: user, to: &sql)
        sql.appendLiteral(" FROM spent RETURNING 1), ")
        sql.appendLiteral("passkey AS (INSERT INTO credentials (\(credentialColumnNames)) SELECT ")
        appendValues(of: credential, to: &sql)
        sql.appendLiteral(" FROM account RETURNING 1) ")
        sql.appendLiteral("SELECT checks.used, checks.taken, EXISTS (SELECT 1 FROM spent), EXISTS (SELECT 1 FROM passkey) FROM checks")
        return PostgresQuery(stringInterpolation: sql)
    }

    /// ``register(_:for:spending:now:)``'s statements, inside the caller's transaction.
    static func register(
        _ connection: PostgresConnection, credential: CredentialRecordEntry, user: UserRecord, consumingChallenge challengeKey: String,
        now: Date, logger: Logger
    ) async throws {
        let taken = try await Self.takeChallenge(connection, key: challengeKey, now: now, logger: logger)
        let replaced = taken.replacesCredentialID
        // The replaced credential is locked before the new one's insert locks its owner (foreign-key check): the
        // order a sign-in and a user's deletion take these locks in, credential then user, so none of them deadlock.
        if let replaced {
            _ = try await connection.rows(
                "SELECT 1 FROM credentials WHERE id = \(ByteBuffer(replaced)) AND user_id = \(credential.userID) FOR UPDATE", logger)
        }
        // An existing account must still exist, and stays until this commits (the lock its foreign key would take):
        // a deletion that came first wins and the registration fails; one that comes later waits, then removes the
        // new passkey with the account.
        if taken.forExistingUser {
            let rows = try await connection.rows("SELECT disabled_at IS NULL FROM users WHERE id = \(credential.userID) FOR KEY SHARE", logger)
            guard let row = rows.first else { throw StorageError(.notFound, "the account was deleted during this registration") }
            guard try PostgresRowReader(row).value(0, Bool.self) else {
                throw StorageError(.accountDisabled, "the account was disabled during this registration")
            }
        }
        try await Self.register(connection, credential: credential, user: user, logger: logger)
        // A reset: the replaced passkey goes in the transaction that stores the new one (the owner's only).
        if let replaced {
            try await connection.query(
                "DELETE FROM credentials WHERE id = \(ByteBuffer(replaced)) AND user_id = \(credential.userID)", logger: logger)
        }
    }

    /// The registration's statements, inside the caller's transaction. The explicit checks give the stable codes in the
    /// usual case; when two registrations race past them, the unique constraints decide and map to the same codes.
    static func register(_ connection: PostgresConnection, credential: CredentialRecordEntry, user: UserRecord, logger: Logger) async throws {
        // §7.1 step 26: a credential ID registered to anyone is refused, and nothing is written.
        if try await !connection.rows("SELECT 1 FROM credentials WHERE id = \(ByteBuffer(credential.id))", logger).isEmpty {
            throw StorageError(.credentialExists, "credential ID already registered")
        }
        if try await connection.rows("SELECT 1 FROM users WHERE id = \(user.id)", logger).isEmpty {
            try await insertNewUser(connection, user, logger: logger)
        }
        try await connection.query(insertCredentials([credential], table: "credentials"), logger: logger)
    }

    /// Inserts into `table`: `credentials`, or `admin_credentials` (same columns).
    static func insertCredentials(_ credentials: [CredentialRecordEntry], table: String) -> PostgresQuery {
        var sql = PostgresQuery.StringInterpolation(literalCapacity: 300 + 60 * credentials.count, interpolationCount: 15 * credentials.count)
        sql.appendLiteral("INSERT INTO \(table) (\(credentialColumnNames)) VALUES")
        for (index, credential) in credentials.enumerated() {
            sql.appendLiteral(index == 0 ? " (" : ", (")
            appendValues(of: credential, to: &sql)
            sql.appendLiteral(")")
        }
        return PostgresQuery(stringInterpolation: sql)
    }

    static let credentialColumnNames = """
        id, user_id, public_key, algorithm, sign_count, uv_initialized, transports, backup_eligible, backup_state, aaguid, \
        attestation_format, attestation_type, name, created_at, last_used_at
        """

    /// The values of ``credentialColumnNames``, comma-separated, as bound parameters.
    static func appendValues(of credential: CredentialRecordEntry, to sql: inout PostgresQuery.StringInterpolation) {
        sql.appendInterpolation(ByteBuffer(credential.id)); sql.appendLiteral(", ")
        sql.appendInterpolation(credential.userID); sql.appendLiteral(", ")
        sql.appendInterpolation(ByteBuffer(credential.publicKey)); sql.appendLiteral(", ")
        sql.appendInterpolation(Int64(credential.algorithm)); sql.appendLiteral(", ")
        sql.appendInterpolation(Int64(credential.signCount)); sql.appendLiteral(", ")
        sql.appendInterpolation(credential.uvInitialized); sql.appendLiteral(", ")
        sql.appendInterpolation(credential.transports); sql.appendLiteral(", ")
        sql.appendInterpolation(credential.backupEligible); sql.appendLiteral(", ")
        sql.appendInterpolation(credential.backupState); sql.appendLiteral(", ")
        sql.appendInterpolation(credential.aaguid); sql.appendLiteral(", ")
        sql.appendInterpolation(credential.attestationFormat); sql.appendLiteral(", ")
        sql.appendInterpolation(credential.attestationType); sql.appendLiteral(", ")
        sql.appendInterpolation(credential.name); sql.appendLiteral(", ")
        sql.appendInterpolation(PostgresTime.milliseconds(credential.createdAt)); sql.appendLiteral(", ")
        sql.appendInterpolation(credential.lastUsedAt.map(PostgresTime.milliseconds))
    }

    /// Creates an account inside the caller's transaction: `username_taken` when its name (ASCII case folded) belongs to
    /// another account. A concurrent insert of the same id does nothing; one of the same name fails on the unique index
    /// and maps to the same code.
    static func insertNewUser(_ connection: PostgresConnection, _ user: UserRecord, logger: Logger) async throws {
        if let name = user.username,
            try await !connection.rows(PostgresSchema.userNamed(name, columns: "1"), logger).isEmpty
        {
            throw StorageError(.usernameTaken, "username belongs to another account")
        }
        try await connection.query(insertUser(user, ifNew: true), logger: logger)
    }

    /// Inserts `user`, every column. `ifNew`: a row with the same id already there is left as it is (a registration
    /// racing another of the same account); otherwise it is an error (an import, which must never attach to a row it did
    /// not write).
    static func insertUser(_ user: UserRecord, ifNew: Bool) -> PostgresQuery { insertUsers([user], ifNew: ifNew) }

    /// Inserts `users` in one statement (an import's batch; see ``insertUser(_:ifNew:)``).
    static func insertUsers(_ users: [UserRecord], ifNew: Bool) -> PostgresQuery {
        var sql = PostgresQuery.StringInterpolation(literalCapacity: 250 + 40 * users.count, interpolationCount: 10 * users.count)
        sql.appendLiteral("INSERT INTO users (\(userColumnNames)) VALUES")
        for (index, user) in users.enumerated() {
            sql.appendLiteral(index == 0 ? " (" : ", (")
            appendValues(of: user, to: &sql)
            sql.appendLiteral(")")
        }
        if ifNew { sql.appendLiteral(" ON CONFLICT (id) DO NOTHING") }
        return PostgresQuery(stringInterpolation: sql)
    }

    static let userColumnNames = """
        id, user_handle, username, username_key, display_name, is_anonymous, created_at, last_sign_in_at, disabled_at, \
        tokens_revoked_at
        """

    /// The values of ``userColumnNames``, comma-separated, as bound parameters.
    static func appendValues(of user: UserRecord, to sql: inout PostgresQuery.StringInterpolation) {
        sql.appendInterpolation(user.id); sql.appendLiteral(", ")
        sql.appendInterpolation(ByteBuffer(user.userHandle)); sql.appendLiteral(", ")
        sql.appendInterpolation(user.username); sql.appendLiteral(", ")
        sql.appendInterpolation(user.username.map(UsernameKey.of)); sql.appendLiteral(", ")
        sql.appendInterpolation(user.displayName); sql.appendLiteral(", ")
        sql.appendInterpolation(user.isAnonymous); sql.appendLiteral(", ")
        sql.appendInterpolation(PostgresTime.milliseconds(user.createdAt)); sql.appendLiteral(", ")
        sql.appendInterpolation(user.lastSignInAt.map(PostgresTime.milliseconds)); sql.appendLiteral(", ")
        sql.appendInterpolation(user.disabledAt.map(PostgresTime.milliseconds)); sql.appendLiteral(", ")
        sql.appendInterpolation(user.tokensRevokedAt.map(PostgresTime.milliseconds))
    }

    /// Deletes the challenge inside the caller's transaction; `challenge_consumed` when it was gone or expired (the
    /// transaction then rolls back, leaving an expired challenge for the purger). Of concurrent deleters of one row the
    /// first holds its lock until commit; the others then find it gone.
    @discardableResult
    static func takeChallenge(_ connection: PostgresConnection, key: String, now: Date, logger: Logger) async throws -> TakenChallenge {
        let rows = try await connection.rows(
            "DELETE FROM challenges WHERE key = \(key) RETURNING expires_at, replaces_credential_id, for_existing_user", logger)
        guard let row = rows.first, try PostgresRowReader(row).value(0, Int64.self) > PostgresTime.milliseconds(now) else {
            throw StorageError(.challengeConsumed, "the challenge was already used or has expired")
        }
        let reader = PostgresRowReader(row)
        return TakenChallenge(replacesCredentialID: try reader.optionalBytes(1), forExistingUser: try reader.value(2, Bool.self))
    }

    /// Of a consumed registration challenge: the credential it replaces, and whether its account must exist.
    struct TakenChallenge {
        let replacesCredentialID: [UInt8]?
        let forExistingUser: Bool
    }

    /// The counter's compare-and-set, with the passkey's last use (the owner's last sign-in: ``PostgresSchema/userColumns``).
    func moveCounter(
        credentialID: [UInt8], expectedSignCount: UInt32, newSignCount: UInt32, backupState: Bool, at time: Date
    ) async throws(StorageError) {
        let logger = self.logger
        let milliseconds = PostgresTime.milliseconds(time)
        try await withConnection("record sign-in") { connection in
            let rows = try await connection.rows(
                """
                WITH moved AS (
                    UPDATE credentials SET sign_count = \(Int64(newSignCount)), backup_state = \(backupState), last_used_at = \(milliseconds)
                    WHERE id = \(ByteBuffer(credentialID)) AND sign_count = \(Int64(expectedSignCount))
                    RETURNING id
                )
                SELECT EXISTS (SELECT 1 FROM moved)
                """, logger)
            try await Self.checkMoved(rows, column: 0, connection, credentialID: credentialID, logger: logger)
        }
    }

    /// The challenge's deletion and the counter's compare-and-set (with the passkey's last use) in one statement: atomic
    /// by itself, so no `BEGIN` and `COMMIT` round trips.
    ///
    /// The credential row is locked first (`FOR NO KEY UPDATE`, the lock its UPDATE takes anyway, and only while its
    /// counter is still `expectedSignCount`), so
    /// sign-ins of one credential run one after the other and a sign-in whose counter moved meanwhile deletes nothing.
    /// The challenge's DELETE then decides between completions of one ceremony: the first holds the challenge row's
    /// lock until it commits, and the others find the row gone, so their UPDATE does not run. On any failure nothing is
    /// written. (Checking the challenge inside the UPDATE instead would not be safe: a waiting UPDATE re-checks its own
    /// row, not the challenge, and counter-0 authenticators would both pass.)
    func recordSignIn(
        credentialID: [UInt8], expectedSignCount: UInt32, newSignCount: UInt32, backupState: Bool, at time: Date,
        consumingStored challengeKey: String
    ) async throws(StorageError) {
        let logger = self.logger
        let milliseconds = PostgresTime.milliseconds(time)
        try await withConnection("record sign-in consuming a challenge") { connection in
            let rows = try await connection.rows(
                RecordSignInConsumingChallenge(
                    values: RecordSignInValues(
                        credentialID: credentialID, expectedSignCount: expectedSignCount, challengeKey: challengeKey, milliseconds: milliseconds,
                        newSignCount: newSignCount, backupState: backupState)), logger)
            guard let row = rows.first else { throw StorageError(.corrupt, "the sign-in statement returned no row") }
            let columns = PostgresRowReader(row)
            if try columns.value(0, Bool.self) { return }
            // Nothing was written. The credential was there with the expected counter, so the challenge could not be
            // taken: used (perhaps by a concurrent completion) or expired.
            if try columns.value(1, Bool.self) { throw StorageError(.challengeConsumed, "the challenge was already used or has expired") }
            // The credential was not: a challenge that is gone or expired still answers first, as in every other store;
            // then a moved counter or a missing credential. The challenge is read again, not from the statement's
            // snapshot: when a concurrent completion of the same ceremony moved the counter, it has committed (this
            // statement waited for its lock) and the challenge it took is gone now, though the snapshot still has it.
            let challengeLeft = try await connection.rows(
                "SELECT 1 FROM challenges WHERE key = \(challengeKey) AND expires_at > \(milliseconds)", logger)
            guard !challengeLeft.isEmpty else { throw StorageError(.challengeConsumed, "the challenge was already used or has expired") }
            try await Self.checkMoved(rows, column: 0, connection, credentialID: credentialID, logger: logger)
        }
    }

    func recordSignIn(
        credentialID: [UInt8], expectedSignCount: UInt32, newSignCount: UInt32, backupState: Bool, at time: Date,
        spendingSealed challengeKey: String, expiresAt: Date
    ) async throws(StorageError) {
        guard expiresAt > time else { throw StorageError(.challengeConsumed, "the challenge was already used or has expired") }
        let logger = self.logger
        try await withConnection("record sign-in spending a challenge") { connection in
            let rows = try await connection.rows(
                RecordSignInSpendingChallenge(
                    values: RecordSignInValues(
                        credentialID: credentialID, expectedSignCount: expectedSignCount, challengeKey: challengeKey,
                        milliseconds: PostgresTime.milliseconds(time), newSignCount: newSignCount, backupState: backupState),
                    expiresAt: PostgresTime.milliseconds(expiresAt)), logger)
            guard let row = rows.first else { throw StorageError(.corrupt, "the sign-in statement returned no row") }
            let columns = PostgresRowReader(row)
            if try columns.value(0, Bool.self) { return }
            // Nothing was written. The credential was there with the expected counter, so the key was spent already
            // (perhaps by a concurrent completion, which this statement waited for).
            if try columns.value(1, Bool.self) { throw StorageError(.challengeConsumed, "the challenge was already used or has expired") }
            // The credential was not: a spent challenge still answers first, as in every other store, read after the
            // statement (a concurrent completion that moved the counter has committed its spent key by now).
            let spent = try await connection.rows(
                "SELECT 1 FROM spent_challenges WHERE expires_at = \(PostgresTime.milliseconds(expiresAt)) AND key = \(challengeKey)", logger)
            guard spent.isEmpty else { throw StorageError(.challengeConsumed, "the challenge was already used or has expired") }
            try await Self.checkMoved(rows, column: 0, connection, credentialID: credentialID, logger: logger)
        }
    }

    /// Whether the compare-and-set moved the counter; if not, tells a moved counter from a missing credential.
    static func checkMoved(_ rows: [PostgresRow], column: Int, _ connection: PostgresConnection, credentialID: [UInt8], logger: Logger) async throws {
        guard let row = rows.first else { throw StorageError(.corrupt, "the sign-in statement returned no row") }
        if try PostgresRowReader(row).value(column, Bool.self) { return }
        if try await !connection.rows("SELECT 1 FROM credentials WHERE id = \(ByteBuffer(credentialID))", logger).isEmpty {
            throw StorageError(.counterConflict, "the stored counter changed during this sign-in")
        }
        throw StorageError(.notFound, "credential not found")
    }

    @discardableResult
    public func renameCredential(id: [UInt8], userID: String, name: String) async throws(StorageError) -> CredentialRecordEntry {
        let logger = self.logger
        let rows = try await withConnection("rename credential") { connection in
            try await connection.rows(
                """
                UPDATE credentials SET name = \(name) WHERE id = \(ByteBuffer(id)) AND user_id = \(userID)
                RETURNING \(unescaped: PostgresSchema.credentialColumns)
                """, logger)
        }
        guard let row = rows.first else { throw StorageError(.notFound, "credential not found for this user") }
        return try CredentialRecordEntry(PostgresRowReader(row))
    }

    public func deleteCredential(id: [UInt8], userID: String) async throws(StorageError) {
        let logger = self.logger
        let changed = try await withConnection("delete credential") { connection in
            try await connection.rows("DELETE FROM credentials WHERE id = \(ByteBuffer(id)) AND user_id = \(userID) RETURNING 1", logger).count
        }
        guard changed == 1 else { throw StorageError(.notFound, "credential not found for this user") }
    }
}
