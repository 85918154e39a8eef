public import Foundation
public import PasskeyStorage
import GRDB

/// A sign-in's storage work: one read of its challenge, passkey and account on a raw read-only connection, and the whole
/// sign-in on the writer connection.
extension SQLiteRepository {
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
            try spend(raw, ChallengeSpend(challenge, sealed: sealed), now: now)
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
