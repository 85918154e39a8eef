import Foundation
import GRDB
public import PasskeyStorage

extension SQLiteRepository {
    /// Writes a consistent copy of the SQLite database at `path` to `output` while servers keep using it: one snapshot
    /// (SQLite's `VACUUM INTO`, a single read of the whole database, which in WAL mode waits for no writer and makes
    /// none wait), compacted, with its own WAL merged in. A file copy is not a backup: recent commits live in the `-wal`
    /// file, and a copy taken during a checkpoint can miss tables.
    ///
    /// The database is opened read-only and not migrated: a backup changes nothing. The copy is written with mode 0600
    /// (it holds the server's signing keys and secrets) and is refused when `output` exists.
    ///
    /// - Returns: the copy's size in bytes.
    public static func backup(databaseAt path: String, to output: String) throws(StorageError) -> Int {
        guard FileManager.default.fileExists(atPath: path) else { throw StorageError(.notFound, "no database at \(path)") }
        guard !FileManager.default.fileExists(atPath: output) else {
            throw StorageError(.recordExists, "\(output) exists: a backup never replaces a file")
        }
        do {
            // The copy's file first, empty and private: VACUUM INTO writes into it, keeping its mode.
            guard FileManager.default.createFile(atPath: output, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw StorageError(.unavailable, "cannot create \(output)")
            }
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(5)
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            try queue.inDatabase { db in try db.execute(sql: "VACUUM INTO ?", arguments: [output]) }
            let size = (try FileManager.default.attributesOfItem(atPath: output)[.size] as? NSNumber)?.intValue ?? 0
            return size
        } catch let error as StorageError {
            try? FileManager.default.removeItem(atPath: output)
            throw error
        } catch {
            try? FileManager.default.removeItem(atPath: output)
            throw StorageError(.unavailable, "the backup of \(path) failed: \(error)")
        }
    }
}
