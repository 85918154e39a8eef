import Foundation
import GRDB
public import PasskeyStorage

/// The metadata BLOB in force: one row, replaced only by a BLOB with a higher serial number.
extension SQLiteRepository {
    public func metadataBLOB() async throws(StorageError) -> StoredMetadataBLOB? {
        try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT number, bytes, verified_at, next_update FROM metadata_blob WHERE id = 1")).map { row in
                StoredMetadataBLOB(
                    number: row[0] as Int, bytes: [UInt8](row[1] as Data), verifiedAt: SQLiteSchema.date(row[2] as Int64),
                    nextUpdate: SQLiteSchema.date(row[3] as Int64))
            }
        }
    }

    public func metadataBLOBNumber() async throws(StorageError) -> Int? {
        try await read { db in try Int.fetchOne(db.cachedStatement(sql: "SELECT number FROM metadata_blob WHERE id = 1")) }
    }

    /// One writer: the serial read here cannot change before the write that follows it.
    public func storeMetadataBLOB(_ blob: StoredMetadataBLOB, replacing previous: Int?, announcing messages: [WebhookMessageRecord]) async throws(StorageError) -> Bool {
        try await write { db in
            let stored = try Int.fetchOne(db.cachedStatement(sql: "SELECT number FROM metadata_blob WHERE id = 1"))
            guard Self.mayStore(blob, stored: stored, previous: previous) else { return false }
            try db.cachedStatement(
                sql: """
                    INSERT INTO metadata_blob (id, number, bytes, verified_at, next_update) VALUES (1, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET number = excluded.number, bytes = excluded.bytes,
                        verified_at = excluded.verified_at, next_update = excluded.next_update
                    """
            ).execute(arguments: [
                blob.number, Data(blob.bytes), SQLiteSchema.milliseconds(blob.verifiedAt), SQLiteSchema.milliseconds(blob.nextUpdate),
            ])
            for message in messages { try Self.enqueue(message, db) }
            return true
        }
    }
}
