public import PasskeyStorage
import GRDB

extension SQLiteRepository {
    public func totals() async throws(StorageError) -> StorageTotals {
        try await read { db in
            let row = try Row.fetchOne(db.cachedStatement(sql: """
                    SELECT (SELECT COUNT(*) FROM users), (SELECT COUNT(*) FROM users WHERE is_anonymous),
                        (SELECT COUNT(*) FROM credentials), (SELECT COUNT(*) FROM admins)
                    """))
            guard let row else { return StorageTotals(users: 0, anonymousUsers: 0, passkeys: 0, admins: 0) }
            return StorageTotals(
                users: try row.decode(Int.self, atIndex: 0), anonymousUsers: try row.decode(Int.self, atIndex: 1),
                passkeys: try row.decode(Int.self, atIndex: 2), admins: try row.decode(Int.self, atIndex: 3))
        }
    }

    public func credentialCounts(userIDs: [String]) async throws(StorageError) -> [String: Int] {
        guard !userIDs.isEmpty else { return [:] }
        return try await read { db in
            let marks = Array(repeating: "?", count: userIDs.count).joined(separator: ", ")
            var counts: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT user_id, COUNT(*) FROM credentials WHERE user_id IN (\(marks)) GROUP BY user_id",
                arguments: StatementArguments(userIDs)) {
                counts[try row.decode(String.self, atIndex: 0)] = try row.decode(Int.self, atIndex: 1)
            }
            return counts
        }
    }
}
