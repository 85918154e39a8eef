public import PasskeyStorage
import PostgresNIO

/// Server secrets, created once for all instances.
extension PostgresRepository: SecretRepository {
    /// Reads the secret; when there is none, offers one with `INSERT … ON CONFLICT DO NOTHING` and reads again. If another
    /// instance inserts first, the insert waits for it to commit and does nothing, and the second read (a new snapshot
    /// under READ COMMITTED) sees the winner's value: concurrent first calls everywhere agree on one secret.
    public func secret(named name: String, orCreate make: @escaping @Sendable () -> [UInt8]) async throws(StorageError) -> [UInt8] {
        let logger = self.logger
        let rows = try await withConnection("secret") { connection in
            let existing = try await connection.rows("SELECT value FROM secrets WHERE name = \(name)", logger)
            if !existing.isEmpty { return existing }
            try await connection.query(
                "INSERT INTO secrets (name, value) VALUES (\(name), \(ByteBuffer(make()))) ON CONFLICT (name) DO NOTHING", logger: logger)
            return try await connection.rows("SELECT value FROM secrets WHERE name = \(name)", logger)
        }
        guard let row = rows.first else { throw StorageError(.corrupt, "the secret \(name) vanished after it was stored") }
        return try PostgresRowReader(row).bytes(0)
    }
}
