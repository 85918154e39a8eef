import Foundation
public import PasskeyStorage
import GRDB

/// SQLite storage (the default): one file, WAL journal, `synchronous=FULL` so an answered registration survives a
/// crash or power loss. Writes are serialized by SQLite; reads run concurrently.
public final class SQLiteRepository: PasskeyRepository {
    let pool: DatabasePool
    let writer: GroupCommitWriter
    /// Raw read-only connections for the sign-in lookup.
    let readers: ReadConnectionPool
    /// Where the database lives, for start-up messages.
    public let path: String

    /// Opens (creating it and its folder if needed) and migrates the database at `path`.
    ///
    /// - Parameter migrate: false for a caller that must change nothing (a dry run): the schema is then only checked,
    ///   and an older one is `storage_unavailable`.
    public init(path: String, migrate: Bool = true) throws(StorageError) {
        self.path = path
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // Durability first: fsync at every commit, also in WAL mode.
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        configuration.busyMode = .timeout(5)
        do {
            if migrate {
                try Self.createPrivately(path)
            } else {
                // Checked read-only before the pool opens: opening it turns WAL on, which writes to an empty file.
                var readOnly = Configuration()
                readOnly.readonly = true
                let queue = try DatabaseQueue(path: path, configuration: readOnly)
                let current = try queue.read { db in try SQLiteSchema.migrator.hasCompletedMigrations(db) }
                try queue.close()
                guard current else {
                    throw StorageError(.unavailable, "the database at \(path) has an older schema than this server's (or none): run passkey-server migrate first")
                }
            }
            let pool = try DatabasePool(path: path, configuration: configuration)
            // GRDB switches its writer connection to `synchronous=NORMAL` when it turns WAL on, after
            // `prepareDatabase` ran: set FULL again on the connection that commits, or commits are not synced.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            if migrate {
                try SQLiteSchema.migrator.migrate(pool)
                try pool.write { db in
                    try SQLiteSchema.fillUsernameKeys(db)
                    try SQLiteSchema.nameUnnamedAccounts(db)
                }
            }
            self.pool = pool
            writer = GroupCommitWriter(pool: pool, path: path)
            readers = ReadConnectionPool(path: path)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(.unavailable, "cannot open SQLite database at \(path): \(error)")
        }
    }

    /// Creates the database's folder (0700) and an empty database file (0600) when they do not exist yet: the file
    /// holds the token signing keys and admin sessions, so only the server's user may read it. SQLite gives the WAL
    /// and shared-memory files the database file's mode. Existing files keep the mode their owner gave them.
    static func createPrivately(_ path: String) throws {
        let manager = FileManager.default
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        if !manager.fileExists(atPath: folder.path) {
            do { try manager.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) } catch {
                // Foundation's error prints as an NSError dump; say it as the rest of the start-up errors do.
                let underlying = (error as? CocoaError)?.underlying ?? ((error as NSError).userInfo[NSUnderlyingErrorKey] as? any Error)
                let reason = underlying.map { $0 as NSError }.flatMap { $0.domain == NSPOSIXErrorDomain ? String(cString: strerror(Int32($0.code))) : nil }
                throw StorageError(.unavailable, "cannot create the folder \(folder.path) for the database: \(reason ?? error.localizedDescription)")
            }
        }
        if !manager.fileExists(atPath: path) {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if descriptor >= 0 { close(descriptor) }
        }
    }

    /// Runs a read, mapping GRDB errors to ``StorageError``.
    ///
    /// On the calling thread: a WAL read never waits for writers, and takes microseconds, so hopping to GRDB's reader
    /// queue and back (as its async `read` does) would cost more than the read itself. Without a read transaction:
    /// every read here is one statement, so BEGIN and COMMIT around it would buy nothing. (The sign-in lookup does not
    /// come here: it runs on the raw read connections, ``lookUpSignIn(challenge:credentialID:now:)``.)
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StorageError) -> T {
        do { return try Self.readHere(pool, body) } catch { throw Self.map(error) }
    }

    /// GRDB's synchronous read (a synchronous context selects it over the async overload).
    static func readHere<T>(_ pool: DatabasePool, _ body: (Database) throws -> T) throws -> T { try pool.unsafeRead(body) }

    /// Runs a write in the next group-committed transaction, mapping GRDB errors to ``StorageError``.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StorageError) -> T {
        do { return try await writer.write { db, _ in try body(db) } } catch { throw Self.map(error) }
    }

    /// A write on the raw writer connection (see ``RawConnection``): for the writes every ceremony makes.
    func writeRaw<T: Sendable>(_ body: @escaping @Sendable (RawConnection) throws(StorageError) -> T) async throws(StorageError) -> T {
        do { return try await writer.writeRaw(body) } catch { throw Self.map(error) }
    }

    static func map(_ error: any Error) -> StorageError {
        if let storage = error as? StorageError { return storage }
        if let database = error as? DatabaseError {
            switch database.resultCode {
            case .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_MISMATCH: return StorageError(.corrupt, database.description)
            default: return StorageError(.unavailable, database.description)
            }
        }
        return StorageError(.corrupt, "\(error)")
    }

    /// The settings in force, for health checks and start-up messages: `journal_mode`, `synchronous` (of the writer
    /// connection, the one whose commits must be synced), `sqlite_version`.
    public func settings() async throws(StorageError) -> [String: String] {
        try await write { db in
            [
                "journal_mode": try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "",
                "synchronous": try Int.fetchOne(db, sql: "PRAGMA synchronous").map(String.init) ?? "",
                "sqlite_version": try String.fetchOne(db, sql: "SELECT sqlite_version()") ?? "",
            ]
        }
    }
}
