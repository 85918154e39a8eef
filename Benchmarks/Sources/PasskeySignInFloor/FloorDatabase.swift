import Foundation
import GRDBSQLite
import Synchronization

/// The least storage a sign-in with passkey-server's guarantees needs, on SQLite's C API with nothing of the project's:
/// a read of the account's passkey IDs for the options, a read of the passkey for the verification, and one durable
/// write (`synchronous=FULL`) that records the challenge as spent and moves the counter before the answer. Writes of
/// concurrent requests share one transaction (group commit on a thread of its own), as any server that wants more
/// than one durable sign-in per fsync must do.
final class FloorDatabase: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What a verification reads: the passkey's public key (X9.63) and counter.
    struct Passkey: Sendable {
        let publicKey: [UInt8]
        let signCount: UInt32
    }

    private let readers: Mutex<[Connection]>
    private let path: String
    private let writes = WriteQueue()

    /// Creates the database at `path` with `accounts` accounts named as passkey-operator-bench names them, each with a
    /// passkey of `publicKey`.
    init(path: String, accounts: Int, publicKey: [UInt8], credentialID: (Int) -> [UInt8], username: (Int) -> String) throws {
        self.path = path
        let setup = try Connection(path: path, create: true)
        try setup.execute("PRAGMA journal_mode = WAL")
        try setup.execute(
            "CREATE TABLE IF NOT EXISTS credentials (id BLOB PRIMARY KEY, username TEXT NOT NULL, public_key BLOB NOT NULL, sign_count INTEGER NOT NULL, last_used_at INTEGER) WITHOUT ROWID"
        )
        try setup.execute("CREATE INDEX IF NOT EXISTS credentials_username ON credentials (username)")
        try setup.execute(
            "CREATE TABLE IF NOT EXISTS spent_challenges (expires_at INTEGER NOT NULL, nonce BLOB NOT NULL, PRIMARY KEY (expires_at, nonce)) WITHOUT ROWID")
        try setup.execute("BEGIN")
        let insert = try setup.prepare("INSERT OR IGNORE INTO credentials (id, username, public_key, sign_count) VALUES (?, ?, ?, 0)")
        for index in 0..<accounts {
            insert.reset()
            insert.bind(1, credentialID(index))
            insert.bind(2, username(index))
            insert.bind(3, publicKey)
            guard insert.step() == SQLITE_DONE else { throw setup.failure("seeding") }
        }
        try setup.execute("COMMIT")
        readers = Mutex([])
        let writer = try Connection(path: path, create: false)
        try writer.execute("PRAGMA synchronous = FULL")
        let queue = writes
        let thread = Thread { queue.run(writer) }
        thread.name = "floor-sqlite-writer"
        thread.start()
    }

    /// Runs `body` on a read connection of the pool (opened on first need).
    private func read<T>(_ body: (Connection) throws -> T) throws -> T {
        let connection = try readers.withLock { $0.popLast() } ?? Connection(path: path, create: false)
        defer { readers.withLock { $0.append(connection) } }
        return try body(connection)
    }

    /// The IDs of `username`'s passkeys, for `allowCredentials`.
    func credentialIDs(username: String) throws -> [[UInt8]] {
        try read { connection in
            let statement = try connection.cached("SELECT id FROM credentials WHERE username = ?")
            statement.bind(1, username)
            var ids: [[UInt8]] = []
            while statement.step() == SQLITE_ROW { ids.append(statement.blob(0)) }
            return ids
        }
    }

    /// The passkey with `id`, or nil.
    func passkey(id: [UInt8]) throws -> Passkey? {
        try read { connection in
            let statement = try connection.cached("SELECT public_key, sign_count FROM credentials WHERE id = ?")
            statement.bind(1, id)
            guard statement.step() == SQLITE_ROW else { return nil }
            return Passkey(publicKey: statement.blob(0), signCount: UInt32(truncatingIfNeeded: sqlite3_column_int64(statement.handle, 1)))
        }
    }

    /// Records the challenge `nonce` as spent and the passkey's new counter in one transaction, and returns once that
    /// transaction is durable: false when the challenge was spent already.
    func spend(nonce: [UInt8], expiresAt: Int64, credentialID: [UInt8], signCount: UInt32, now: Int64) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            writes.enqueue(
                WriteQueue.Write(nonce: nonce, expiresAt: expiresAt, credentialID: credentialID, signCount: signCount, now: now, continuation: continuation))
        }
    }
}

/// The writes waiting for the next transaction, and the writer thread's loop.
final class WriteQueue: @unchecked Sendable {
    struct Write {
        let nonce: [UInt8]
        let expiresAt: Int64
        let credentialID: [UInt8]
        let signCount: UInt32
        let now: Int64
        let continuation: CheckedContinuation<Bool, any Error>
    }

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var pending: [Write] = []

    func enqueue(_ write: Write) {
        condition.lock()
        pending.append(write)
        if pending.count == 1 { condition.signal() }
        condition.unlock()
    }

    /// Takes everything queued, writes it in one transaction, commits (synced), then resumes each writer.
    func run(_ connection: Connection) {
        while true {
            condition.lock()
            while pending.isEmpty { condition.wait() }
            let batch = pending
            pending.removeAll(keepingCapacity: true)
            condition.unlock()
            var outcomes: [Bool] = []
            do {
                try connection.execute("BEGIN IMMEDIATE")
                let spend = try connection.cached("INSERT INTO spent_challenges (expires_at, nonce) VALUES (?, ?)")
                let count = try connection.cached("UPDATE credentials SET sign_count = ?, last_used_at = ? WHERE id = ?")
                for write in batch {
                    spend.reset()
                    spend.bind(1, write.expiresAt)
                    spend.bind(2, write.nonce)
                    // A constraint failure ends this statement only: the others of the batch go on.
                    guard spend.step() == SQLITE_DONE else {
                        outcomes.append(false)
                        continue
                    }
                    count.reset()
                    count.bind(1, Int64(write.signCount))
                    count.bind(2, write.now)
                    count.bind(3, write.credentialID)
                    guard count.step() == SQLITE_DONE else { throw connection.failure("counter") }
                    outcomes.append(true)
                }
                try connection.execute("COMMIT")
                for (write, outcome) in zip(batch, outcomes) { write.continuation.resume(returning: outcome) }
            } catch {
                try? connection.execute("ROLLBACK")
                for write in batch { write.continuation.resume(throwing: error) }
            }
        }
    }
}

/// A SQLite connection with its prepared statements; one thread at a time.
final class Connection: @unchecked Sendable {
    let handle: OpaquePointer
    private var statements: [String: Statement] = [:]

    init(path: String, create: Bool) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0)
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
            if let handle { sqlite3_close_v2(handle) }
            throw FloorDatabase.Failure(description: "cannot open \(path)")
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    func failure(_ what: String) -> FloorDatabase.Failure {
        FloorDatabase.Failure(description: "\(what): \(String(cString: sqlite3_errmsg(handle)))")
    }

    func prepare(_ sql: String) throws -> Statement {
        var prepared: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil) == SQLITE_OK, let prepared else {
            throw failure(sql)
        }
        return Statement(prepared)
    }

    /// The statement for `sql`, prepared once per connection, reset for a new use.
    func cached(_ sql: String) throws -> Statement {
        if let statement = statements[sql] {
            statement.reset()
            return statement
        }
        let statement = try prepare(sql)
        statements[sql] = statement
        return statement
    }

    func execute(_ sql: String) throws {
        let statement = try cached(sql)
        let status = statement.step()
        guard status == SQLITE_DONE || status == SQLITE_ROW else { throw failure(sql) }
        statement.reset()
    }
}

final class Statement {
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }
    deinit { sqlite3_finalize(handle) }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func step() -> Int32 { sqlite3_step(handle) }

    func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }

    func bind(_ index: Int32, _ value: [UInt8]) {
        value.withUnsafeBytes { bytes in
            // SQLITE_TRANSIENT: SQLite copies the bytes before this returns.
            _ = sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }
    }

    func bind(_ index: Int32, _ value: String) {
        _ = sqlite3_bind_text(handle, index, value, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
    }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}
