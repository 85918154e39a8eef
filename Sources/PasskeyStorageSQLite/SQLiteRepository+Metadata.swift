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

    public func storeMetadataBLOB(_ blob: StoredMetadataBLOB) async throws(StorageError) -> Bool {
        try await write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO metadata_blob (id, number, bytes, verified_at, next_update) VALUES (1, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET number = excluded.number, bytes = excluded.bytes,
                        verified_at = excluded.verified_at, next_update = excluded.next_update
                    WHERE excluded.number > metadata_blob.number
                    """
            ).execute(arguments: [
                blob.number, Data(blob.bytes), SQLiteSchema.milliseconds(blob.verifiedAt), SQLiteSchema.milliseconds(blob.nextUpdate),
            ])
            return db.changesCount == 1
        }
    }
}
