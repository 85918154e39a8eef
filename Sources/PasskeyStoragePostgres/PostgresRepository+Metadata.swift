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

    public func metadataBLOBNumber() async throws(StorageError) -> Int? {
        let logger = self.logger
        let rows = try await withConnection("metadata BLOB number") { connection in
            try await connection.rows("SELECT number FROM metadata_blob WHERE id = 1", logger)
        }
        guard let row = rows.first else { return nil }
        return Int(try PostgresRowReader(row).value(0, Int64.self))
    }

    /// The row is locked (or, while there is none, the insert conflicts) before the serial is compared, so of two
    /// instances storing at once the second sees the first's BLOB.
    public func storeMetadataBLOB(_ blob: StoredMetadataBLOB, replacing previous: Int?, announcing messages: [WebhookMessageRecord]) async throws(StorageError) -> Bool {
        let logger = self.logger
        let number = Int64(blob.number)
        let verifiedAt = PostgresTime.milliseconds(blob.verifiedAt)
        let nextUpdate = PostgresTime.milliseconds(blob.nextUpdate)
        return try await transaction("store metadata BLOB") { connection in
            let rows = try await connection.rows("SELECT number FROM metadata_blob WHERE id = 1 FOR UPDATE", logger)
            let stored = try rows.first.map { Int(try PostgresRowReader($0).value(0, Int64.self)) }
            guard Self.mayStore(blob, stored: stored, previous: previous) else { return false }
            let written = try await connection.rows(
                """
                INSERT INTO metadata_blob (id, number, bytes, verified_at, next_update)
                VALUES (1, \(number), \(ByteBuffer(bytes: blob.bytes)), \(verifiedAt), \(nextUpdate))
                ON CONFLICT (id) DO UPDATE SET number = excluded.number, bytes = excluded.bytes, verified_at = excluded.verified_at,
                    next_update = excluded.next_update
                WHERE metadata_blob.number IS NOT DISTINCT FROM \(stored.map(Int64.init))
                RETURNING 1
                """, logger)
            // Two first stores at once: the second insert waited on the first's row and found another serial.
            guard written.count == 1 else { return false }
            for message in messages { try await Self.enqueue(message, connection, logger) }
            return true
        }
    }
}
