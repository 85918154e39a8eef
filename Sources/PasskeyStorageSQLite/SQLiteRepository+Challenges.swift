public import Foundation
public import PasskeyStorage
import GRDB

/// Ceremonies in progress: stored challenges peeked and consumed, sealed ones recorded as spent, purged, counted.
extension SQLiteRepository {
    // MARK: Challenges

    public func challenge(key: String, ceremony: ChallengeRecord.Ceremony, now: Date) async throws(StorageError) -> ChallengeRecord? {
        try await peek(.key(key), ceremony: ceremony, now: now)
    }

    public func challenge(value: String, ceremony: ChallengeRecord.Ceremony, now: Date) async throws(StorageError) -> ChallengeRecord? {
        try await peek(.value(value), ceremony: ceremony, now: now)
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

    public func challengeCount() async throws(StorageError) -> Int {
        try await read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM challenges WHERE consumed = 0") ?? 0 }
    }
}
