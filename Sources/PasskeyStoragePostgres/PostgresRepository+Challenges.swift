public import Foundation
public import PasskeyStorage
import PostgresNIO

/// Ceremonies in progress, shared by every instance: options from one, verification on another.
extension PostgresRepository: ChallengeRepository {
    public func saveChallenge(_ challenge: ChallengeRecord) async throws(StorageError) {
        let logger = self.logger
        try await withConnection("save challenge") { connection in
            try await connection.rows(SaveChallenge(challenge: challenge), logger)
        }
    }

    public func challenge(key: String, ceremony: ChallengeRecord.Ceremony, now: Date) async throws(StorageError) -> ChallengeRecord? {
        try await peek(.key(key), ceremony: ceremony, now: now)
    }

    public func challenge(value: String, ceremony: ChallengeRecord.Ceremony, now: Date) async throws(StorageError) -> ChallengeRecord? {
        try await peek(.value(value), ceremony: ceremony, now: now)
    }

    func peek(_ reference: ChallengeReference, ceremony: ChallengeRecord.Ceremony, now: Date) async throws(StorageError) -> ChallengeRecord? {
        let logger = self.logger
        let (column, value) = Self.column(reference)
        let rows = try await withConnection("read challenge") { connection in
            try await connection.rows(
                "SELECT \(unescaped: PostgresSchema.challengeColumns) FROM challenges WHERE \(unescaped: column) = \(value) AND ceremony = \(ceremony.rawValue)",
                logger)
        }
        guard let row = rows.first else { return nil }
        let record = try ChallengeRecord(PostgresRowReader(row))
        return record.expiresAt > now ? record : nil
    }

    /// The column a reference names (a fixed name, never client input) and the value to match.
    static func column(_ reference: ChallengeReference) -> (String, String) {
        switch reference {
        case .key(let key): ("key", key)
        case .value(let value): ("challenge", value)
        // Never stored: matches no row (stored keys are 16 random bytes, base64url).
        case .sealed: ("key", "")
        }
    }

    public func consumeChallenge(key: String, ceremony: ChallengeRecord.Ceremony, now: Date) async throws(StorageError) -> ChallengeRecord? {
        try await consume(.key(key), ceremony: ceremony, now: now)
    }

    public func consumeChallenge(value: String, ceremony: ChallengeRecord.Ceremony, now: Date) async throws(StorageError) -> ChallengeRecord? {
        try await consume(.value(value), ceremony: ceremony, now: now)
    }

    /// `DELETE … RETURNING` in one statement: of concurrent consumers, on any number of instances, exactly one gets the row.
    func consume(_ reference: ChallengeReference, ceremony: ChallengeRecord.Ceremony, now: Date) async throws(StorageError) -> ChallengeRecord? {
        let logger = self.logger
        let (column, value) = Self.column(reference)
        let rows = try await withConnection("consume challenge") { connection in
            try await connection.rows(
                """
                DELETE FROM challenges WHERE \(unescaped: column) = \(value) AND ceremony = \(ceremony.rawValue)
                RETURNING \(unescaped: PostgresSchema.challengeColumns)
                """, logger)
        }
        guard let row = rows.first else { return nil }
        let record = try ChallengeRecord(PostgresRowReader(row))
        return record.expiresAt > now ? record : nil
    }

    public func spendChallenge(key: String, expiresAt: Date, now: Date) async throws(StorageError) -> Bool {
        guard expiresAt > now else { return false }
        let logger = self.logger
        return try await withConnection("spend challenge") { connection in
            // The primary key makes one winner across instances: a second insert of the key returns no row.
            try await !connection.rows(
                """
                INSERT INTO spent_challenges (expires_at, key) VALUES (\(PostgresTime.milliseconds(expiresAt)), \(key))
                ON CONFLICT (expires_at, key) DO NOTHING RETURNING 1
                """, logger
            ).isEmpty
        }
    }

    public func isChallengeSpent(key: String, expiresAt: Date) async throws(StorageError) -> Bool {
        let logger = self.logger
        return try await withConnection("read a spent challenge") { connection in
            try await !connection.rows(
                "SELECT 1 FROM spent_challenges WHERE expires_at = \(PostgresTime.milliseconds(expiresAt)) AND key = \(key)", logger
            ).isEmpty
        }
    }

    public func purgeExpiredChallenges(now: Date) async throws(StorageError) -> Int {
        let logger = self.logger
        let milliseconds = PostgresTime.milliseconds(now)
        return try await withConnection("purge challenges") { connection in
            let forgotten = PostgresTime.milliseconds(now.addingTimeInterval(-ChallengeRecord.spentRecordRetention))
            try await connection.query("DELETE FROM spent_challenges WHERE expires_at <= \(forgotten)", logger: logger)
            return try await connection.rows("DELETE FROM challenges WHERE expires_at <= \(milliseconds) RETURNING 1", logger).count
        }
    }

    public func challengeCount() async throws(StorageError) -> Int {
        let logger = self.logger
        let rows = try await withConnection("count challenges") { connection in
            try await connection.rows("SELECT count(*) FROM challenges", logger)
        }
        guard let row = rows.first else { throw StorageError(.corrupt, "count(*) returned no row") }
        return Int(try PostgresRowReader(row).value(0, Int64.self))
    }
}
