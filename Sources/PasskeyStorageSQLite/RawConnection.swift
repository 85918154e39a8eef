import Foundation
import GRDBSQLite
import PasskeyStorage

/// A SQLite connection driven through the C API, for the few statements on the sign-in path.
///
/// GRDB serves everything else. On the path that runs once per sign-in its generality costs more than SQLite itself
/// (a dispatch queue per access, argument arrays of enums, statement authorizers, generic row decoding): the sign-in
/// lookup took about 70 µs of CPU through GRDB for three primary-key reads. Here a statement is prepared once per
/// connection, bound, stepped and read by position.
///
/// Not thread-safe: one thread uses a connection at a time (``ReadConnectionPool`` hands them out).
final class RawConnection {
    let handle: OpaquePointer
    /// Whether this object opened the connection and closes it (not a borrowed one).
    private let owned: Bool
    private var statements: [String: RawStatement] = [:]

    /// Opens `path` for writing, with the settings the writer needs: `synchronous=FULL` (every commit synced),
    /// foreign keys enforced, and a busy timeout for checkpoints. The database must exist and be in WAL mode already.
    convenience init(writerPath path: String) throws(StorageError) {
        try self.init(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX)
        try execute("PRAGMA synchronous = FULL")
        try execute("PRAGMA foreign_keys = ON")
    }

    /// Drives a connection someone else owns and closes (GRDB's writer connection, on the writer thread).
    init(borrowing handle: OpaquePointer) {
        self.handle = handle
        owned = false
    }

    /// Opens `path` read-only: these connections never write, so a bug cannot corrupt through them.
    convenience init(readOnlyPath path: String) throws(StorageError) {
        try self.init(path: path, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX)
    }

    private init(path: String, flags: Int32) throws(StorageError) {
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw StorageError(.unavailable, "cannot open SQLite database at \(path): \(message)")
        }
        self.handle = handle
        owned = true
        // Wait for a checkpoint or recovery holding the WAL index, as the writer does, instead of failing at once.
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit {
        statements.removeAll()  // finalized before the connection closes
        if owned { sqlite3_close_v2(handle) }
    }

    /// The statement for `sql`, prepared on first use and reused after (reset, bindings cleared).
    func statement(_ sql: String) throws(StorageError) -> RawStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        var prepared: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
        guard status == SQLITE_OK, let prepared else { throw error(status) }
        let statement = RawStatement(prepared, connection: self)
        statements[sql] = statement
        return statement
    }

    /// Runs a statement that returns no rows (prepared once), e.g. `BEGIN IMMEDIATE`.
    func execute(_ sql: String) throws(StorageError) {
        try statement(sql).execute()
    }

    /// Whether no transaction is open.
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The connection's last error as a ``StorageError``: corruption codes as `corrupt`, everything else (busy, I/O,
    /// out of memory) as `unavailable`.
    func error(_ status: Int32) -> StorageError {
        let message = String(cString: sqlite3_errmsg(handle))
        switch status & 0xFF {
        case SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_MISMATCH: return StorageError(.corrupt, "SQLite error \(status): \(message)")
        default: return StorageError(.unavailable, "SQLite error \(status): \(message)")
        }
    }
}

/// A prepared statement: bind by 1-based position, step, read columns by 0-based position (``ColumnReader``).
final class RawStatement {
    let handle: OpaquePointer
    /// Unowned: the connection keeps its statements and finalizes them before it closes.
    private unowned let connection: RawConnection

    init(_ handle: OpaquePointer, connection: RawConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// SQLite copies the bytes (`SQLITE_TRANSIENT`), so the Swift buffer need not outlive the call.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    func bind(_ index: Int32, _ text: String) throws(StorageError) {
        let status = sqlite3_bind_text(handle, index, text, -1, Self.transient)
        guard status == SQLITE_OK else { throw connection.error(status) }
    }

    func bind(_ index: Int32, _ bytes: [UInt8]) throws(StorageError) {
        let status = bytes.withUnsafeBytes { buffer in
            // An empty array may have no base address; SQLite reads a zero-length blob from any non-null pointer.
            sqlite3_bind_blob(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), Self.transient)
        }
        guard status == SQLITE_OK else { throw connection.error(status) }
    }

    func bind(_ index: Int32, _ value: Int64) throws(StorageError) {
        let status = sqlite3_bind_int64(handle, index, value)
        guard status == SQLITE_OK else { throw connection.error(status) }
    }

    func bind(_ index: Int32, _ value: Bool) throws(StorageError) { try bind(index, value ? 1 : 0 as Int64) }

    /// NULL when `nil`. (Parameters start as NULL after a reset, so binding `nil` only documents the intent.)
    func bind(_ index: Int32, _ text: String?) throws(StorageError) {
        if let text { try bind(index, text) } else { try bindNull(index) }
    }

    func bind(_ index: Int32, _ bytes: [UInt8]?) throws(StorageError) {
        if let bytes { try bind(index, bytes) } else { try bindNull(index) }
    }

    func bind(_ index: Int32, _ value: Int64?) throws(StorageError) {
        if let value { try bind(index, value) } else { try bindNull(index) }
    }

    func bindNull(_ index: Int32) throws(StorageError) {
        let status = sqlite3_bind_null(handle, index)
        guard status == SQLITE_OK else { throw connection.error(status) }
    }

    /// Steps until done, for statements that return no rows, then resets.
    func execute() throws(StorageError) {
        defer { reset() }
        while try step() {}
    }

    /// Moves to the next row: `true` with a row to read, `false` when done.
    func step() throws(StorageError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let status: throw connection.error(status)
        }
    }
}

extension RawStatement: ColumnReader {
    func isNull(_ index: Int) -> Bool { sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL }

    func text(_ index: Int) throws(StorageError) -> String {
        let column = Int32(index)
        guard sqlite3_column_type(handle, column) == SQLITE_TEXT, let characters = sqlite3_column_text(handle, column) else {
            throw StorageError(.corrupt, "column \(index) is not text")
        }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: characters, count: count), as: UTF8.self)
    }

    func blob(_ index: Int) throws(StorageError) -> [UInt8] {
        let column = Int32(index)
        guard sqlite3_column_type(handle, column) == SQLITE_BLOB else { throw StorageError(.corrupt, "column \(index) is not a blob") }
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: bytes, count: count))
    }

    func int64(_ index: Int) throws(StorageError) -> Int64 {
        let column = Int32(index)
        guard sqlite3_column_type(handle, column) == SQLITE_INTEGER else { throw StorageError(.corrupt, "column \(index) is not an integer") }
        return sqlite3_column_int64(handle, column)
    }
}

/// Read-only connections for the sign-in path, handed to one caller at a time.
///
/// In WAL mode a read never waits for the writer, so a caller uses a connection on its own thread and gives it back
/// within microseconds; connections are opened on demand (as many as callers read at once) and at most
/// ``maximumIdle`` stay open.
final class ReadConnectionPool: @unchecked Sendable {
    static let maximumIdle = 8
    private let path: String
    // Guarded by `lock`.
    private let lock = NSLock()
    private var idle: [RawConnection] = []

    init(path: String) { self.path = path }

    func withConnection<T>(_ body: (RawConnection) throws(StorageError) -> T) throws(StorageError) -> T {
        let connection: RawConnection
        if let reused = lock.withLock({ idle.popLast() }) { connection = reused } else { connection = try RawConnection(readOnlyPath: path) }
        defer {
            lock.withLock {
                if idle.count < Self.maximumIdle { idle.append(connection) }
            }
        }
        return try body(connection)
    }
}
