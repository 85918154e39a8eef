import Foundation
import NIOCore
public import PasskeyStorage
import PostgresNIO

/// The metadata BLOB in force: one row, replaced only by a BLOB with a higher serial number.
extension PostgresRepository: MetadataRepository {
    public func metadataBLOB() async throws(StorageError) -> StoredMetadataBLOB? {
        let logger = self.logger
        let rows = try await withConnection("metadata BLOB") { connection in
            try await connection.rows("SELECT number, bytes, verified_at, next_update FROM metadata_blob WHERE id = 1", logger)
        }
        guard let row = rows.first else { return nil }
        let reader = PostgresRowReader(row)
        return StoredMetadataBLOB(
            number: Int(try reader.value(0, Int64.self)), bytes: try reader.bytes(1), verifiedAt: PostgresTime.date(try reader.value(2, Int64.self)),
            nextUpdate: PostgresTime.date(try reader.value(3, Int64.self)))
    }

    public func storeMetadataBLOB(_ blob: StoredMetadataBLOB) async throws(StorageError) -> Bool {
        let logger = self.logger
        let number = Int64(blob.number)
        let verifiedAt = PostgresTime.milliseconds(blob.verifiedAt)
        let nextUpdate = PostgresTime.milliseconds(blob.nextUpdate)
        let rows = try await withConnection("store metadata BLOB") { connection in
            try await connection.rows(
                """
                INSERT INTO metadata_blob (id, number, bytes, verified_at, next_update)
                VALUES (1, \(number), \(ByteBuffer(bytes: blob.bytes)), \(verifiedAt), \(nextUpdate))
                ON CONFLICT (id) DO UPDATE SET number = excluded.number, bytes = excluded.bytes, verified_at = excluded.verified_at,
                    next_update = excluded.next_update
                WHERE excluded.number > metadata_blob.number
                RETURNING 1
                """, logger)
        }
        return rows.count == 1
    }
}
