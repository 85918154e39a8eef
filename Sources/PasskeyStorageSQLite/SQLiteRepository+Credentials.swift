public import Foundation
public import PasskeyStorage
import GRDB

/// Passkeys: registered (with the challenge spent in the same transaction), signed in with, renamed, deleted.
extension SQLiteRepository {
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

    public func register(_ credential: CredentialRecordEntry, for user: UserRecord, spending: ChallengeSpend, now: Date) async throws(StorageError) {
        switch spending {
        case .nothing: try await write { db in _ = try Self.register(db, credential: credential, user: user) }
        case .stored(let key): try await register(credential, for: user, consumingStored: key, now: now)
        case .sealed(let key, let expiresAt): try await register(credential, for: user, spendingSealed: key, expiresAt: expiresAt, now: now)
        }
    }

    public func recordSignIn(
        credentialID: [UInt8], expectedSignCount: UInt32, newSignCount: UInt32, backupState: Bool, at time: Date, spending: ChallengeSpend
    ) async throws(StorageError) {
        try await writeRaw { raw throws(StorageError) in
            try Self.spend(raw, spending, now: time)
            try Self.recordSignIn(
                raw, credentialID: credentialID, expectedSignCount: expectedSignCount, newSignCount: newSignCount, backupState: backupState,
                at: time)
        }
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

    func register(_ credential: CredentialRecordEntry, for user: UserRecord, consumingStored challengeKey: String, now: Date)
        async throws(StorageError)
    {
        do {
            try await writer.write { db, raw in
                try Self.register(db, raw, credential: credential, user: user, consumingChallenge: challengeKey, now: now)
            }
        } catch { throw Self.map(error) }
    }

    func register(
        _ credential: CredentialRecordEntry, for user: UserRecord, spendingSealed challengeKey: String, expiresAt: Date, now: Date
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

    /// ``register(_:for:consumingStored:now:)``'s statements, inside the caller's transaction.
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

    /// Spends what `spending` names inside the caller's transaction; throws `challenge_consumed` when it was spent or
    /// expired at `now` (the write then rolls back).
    static func spend(_ raw: RawConnection, _ spending: ChallengeSpend, now: Date) throws(StorageError) {
        switch spending {
        case .nothing: break
        case .stored(let key): try takeChallenge(raw, key: key, now: now)
        case .sealed(let key, let expiresAt):
            guard try spendChallenge(raw, key: key, expiresAt: expiresAt, now: now) else {
                throw StorageError(.challengeConsumed, "the challenge was already used or has expired")
            }
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

    @discardableResult
    public func renameCredential(id: [UInt8], userID: String, name: String) async throws(StorageError) -> CredentialRecordEntry {
        let renamed = try await write { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "UPDATE credentials SET name = ? WHERE id = ? AND user_id = ? RETURNING \(SQLiteSchema.credentialColumns)"),
                arguments: [name, Data(id), userID]
            ).map(CredentialRecordEntry.init(row:))
        }
        guard let renamed else { throw StorageError(.notFound, "credential not found for this user") }
        return renamed
    }

    public func deleteCredential(id: [UInt8], userID: String) async throws(StorageError) {
        let changed = try await write { db in
            try db.cachedStatement(sql: "DELETE FROM credentials WHERE id = ? AND user_id = ?").execute(arguments: [Data(id), userID])
            return db.changesCount
        }
        guard changed == 1 else { throw StorageError(.notFound, "credential not found for this user") }
    }
}
