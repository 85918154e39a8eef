import Foundation
public import PasskeyStorage
import GRDB

/// Server secrets, created once by whichever instance asks first.
extension SQLiteRepository {
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
}
