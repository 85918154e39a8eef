import Foundation
import GRDB
import PasskeyStorage

/// Group commit: concurrent writes share one transaction, so one fsync (`synchronous=FULL`) makes many durable.
///
/// Every caller resumes only after the transaction holding its write has committed — durability is exactly as with one
/// transaction per write, but a disk that needs milliseconds per fsync no longer caps throughput at one write per fsync.
/// When a batch holds several writes, each runs in its own savepoint, so one write's failure rolls back that write
/// only; a batch of one runs without savepoint statements (its failure rolls the transaction back). The transaction
/// and savepoint statements are prepared once (GRDB would parse them on every use).
///
/// The transactions run on one dedicated thread that sleeps on a condition variable while there is nothing to write: a
/// write costs one wake-up of that thread per batch instead of a task, an actor hop and a dispatch-queue hop per write,
/// and the fsync waits there rather than on the cooperative thread pool that serves requests.
final class GroupCommitWriter: Sendable {
    /// One queued write: `perform` runs inside the shared transaction, `finish` reports the outcome after commit.
    struct PendingWrite: Sendable {
        /// Whether the write needs GRDB's `Database`; without it the batch can run on the writer's own raw connection.
        let usesGRDB: Bool
        /// A staged write's first two steps (``GroupCommitWriter/writeRaw(read:decide:apply:)``): `read` runs inside the
        /// transaction before any write of the batch, `decide` after all reads, on several threads at once.
        var read: (@Sendable (RawConnection) -> Void)? = nil
        var decide: (@Sendable () -> Void)? = nil
        /// Runs the write: with GRDB's connection (when `usesGRDB`) and a raw connection, the same one GRDB drives or
        /// the writer's own. Throws to report the write's failure (its savepoint, or the whole transaction for a batch of
        /// one, then rolls back).
        let perform: @Sendable (Database?, RawConnection) throws -> Void
        let finish: @Sendable ((any Error)?) -> Void
    }

    /// Largest batch in one transaction (bounds how long the write lock is held).
    static let maximumBatch = 512

    private let queue: WriteQueue

    /// `path` is the database `pool` opened: the writer opens its own raw connection to it for batches without GRDB.
    init(pool: DatabasePool, path: String) {
        let queue = WriteQueue()
        self.queue = queue
        let thread = Thread {
            queue.run(pool: pool, path: path)
        }
        thread.name = "passkey-sqlite-writer"
        thread.start()
    }

    deinit { queue.stop() }

    /// Runs `body` with GRDB in the next shared transaction and returns its result once that transaction committed.
    /// `body` also gets the same connection raw, for statements of the hot paths.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database, RawConnection) throws -> T) async throws -> T {
        try await enqueue(usesGRDB: true) { db, raw in
            guard let db else { throw StorageError(.unavailable, "a GRDB write ran without GRDB") }
            return try body(db, raw)
        }
    }

    /// Runs `body` on a raw connection (prepared statements, no GRDB layers) in the next shared transaction: for the
    /// writes every ceremony makes. A batch of such writes runs without GRDB at all.
    func writeRaw<T: Sendable>(_ body: @escaping @Sendable (RawConnection) throws(StorageError) -> T) async throws -> T {
        try await enqueue(usesGRDB: false) { _, raw in try body(raw) }
    }

    /// A write in three steps, for work that must read and write in one transaction with costly work between: `read`
    /// runs on the writer's connection inside the shared transaction (before the batch's writes, so on a page cache that
    /// other connections' commits never invalidate), `decide` runs after every read of the batch, several at once on the
    /// machine's cores (it must not touch the database), and `apply` runs in the write's savepoint with what both
    /// returned. Returns `apply`'s result once the transaction committed.
    ///
    /// The batch's reads all come before its writes: a read does not see what another write of the same batch will
    /// change, so `apply` must check what it relies on (compare-and-set) and may read again.
    func writeRaw<Read: Sendable, Decision: Sendable, T: Sendable>(
        read: @escaping @Sendable (RawConnection) throws(StorageError) -> Read,
        decide: @escaping @Sendable (Read) -> Decision,
        apply: @escaping @Sendable (RawConnection, Read, Decision) throws(StorageError) -> T
    ) async throws -> T {
        let stages = Stages<Read, Decision>()
        return try await enqueue(
            usesGRDB: false,
            read: { raw in stages.read = Result { () throws(StorageError) in try read(raw) } },
            decide: {
                if case .success(let value) = stages.read { stages.decision = decide(value) }
            }
        ) { _, raw in
            guard let readResult = stages.read else { throw StorageError(.unavailable, "a staged write ran without its read") }
            let value = try readResult.get()
            let decision: Decision
            if let decided = stages.decision { decision = decided } else { decision = decide(value) }
            return try apply(raw, value, decision)
        }
    }

    /// Commits the deferred writes queued so far, and returns once they are durable.
    func flushDeferred() async throws {
        try await enqueue(usesGRDB: false, flush: true) { _, _ in }
    }

    private func enqueue<T: Sendable>(
        usesGRDB: Bool, flush: Bool = false, read: (@Sendable (RawConnection) -> Void)? = nil, decide: (@Sendable () -> Void)? = nil,
        _ body: @escaping @Sendable (Database?, RawConnection) throws -> T
    ) async throws -> T {
        let outcome = Outcome<T>()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let pending = PendingWrite(
                usesGRDB: usesGRDB, read: read, decide: decide,
                perform: { db, raw in
                    do { outcome.set(.success(try body(db, raw))) } catch {
                        outcome.set(.failure(error))
                        throw error
                    }
                },
                finish: { commitError in
                    if let commitError { continuation.resume(throwing: commitError) } else { continuation.resume() }
                })
            if !queue.enqueue(pending, flush: flush) {
                continuation.resume(throwing: StorageError(.unavailable, "the database was closed"))
            }
        }
        return try outcome.get()
    }

    /// Queues a write that is committed later, with other deferred writes, instead of in a transaction of its own:
    /// at most ``WriteQueue/deferredDelay`` later, sooner when many wait or a caller flushes. `finish` gets the write's
    /// result once its transaction ended (a failure when the write or the commit failed), on the writer thread.
    func writeLater<T: Sendable>(
        _ body: @escaping @Sendable (RawConnection) throws(StorageError) -> T, finish: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        let outcome = Outcome<T>()
        let pending = PendingWrite(
            usesGRDB: false,
            perform: { _, raw in
                do { outcome.set(.success(try body(raw))) } catch {
                    outcome.set(.failure(error))
                    throw error
                }
            },
            finish: { commitError in
                if let commitError { finish(.failure(commitError)) } else { finish(Result { try outcome.get() }) }
            })
        if !queue.enqueue(pending, deferred: true) { finish(.failure(StorageError(.unavailable, "the database was closed"))) }
    }
}

/// The pending writes and the writer thread's loop. Shared by the writer and its thread; the thread ends after `stop()`.
final class WriteQueue: @unchecked Sendable {
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var pending: [GroupCommitWriter.PendingWrite] = []
    private var stopped = false
    /// GRDB's writer connection driven raw, and the writer's own connection; used on the writer thread only.
    private var borrowed: RawConnection?
    private var own: RawConnection?
    /// Copies the WAL into the database file beside the writer (see ``WALCheckpointer``); outlives `own`.
    private var checkpointer: WALCheckpointer?

    /// Deferred writes (``GroupCommitWriter/writeLater(_:finish:)``), when the first of them came, and whether a caller
    /// asked for them to be committed now.
    private var deferred: [GroupCommitWriter.PendingWrite] = []
    private var deferredSince: Date?
    private var flushRequested = false
    /// How long deferred writes wait at most; they are committed together when it has passed, when ``deferredBatch``
    /// of them are waiting, or when a caller flushes. Not with every awaited write: each transaction would then carry
    /// their pages too, and a commit costs per page written.
    static let deferredDelay: TimeInterval = 0.05
    static let deferredBatch = 256

    /// Adds a write and, unless `deferred`, wakes the thread; `flush` also commits the deferred writes with it.
    /// `false` once stopped.
    func enqueue(_ write: GroupCommitWriter.PendingWrite, deferred isDeferred: Bool = false, flush: Bool = false) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return false }
        if isDeferred {
            deferred.append(write)
            if deferred.count == 1 {
                deferredSince = Date()
                condition.signal()  // the thread sets its deadline
            } else if deferred.count == Self.deferredBatch {
                condition.signal()
            }
        } else {
            pending.append(write)
            if flush { flushRequested = true }
            // Only the first write of a batch wakes the thread: it takes everything queued by the time it runs (it checks
            // the queue under the lock before it sleeps, so no wake-up is lost). A signal per write cost a futex call
            // each while the thread had not run yet.
            if pending.count == 1 || flush { condition.signal() }
        }
        return true
    }

    /// Whether the deferred writes are to be committed now. Called with `condition` locked.
    private func deferredDue(at now: Date) -> Bool {
        guard let since = deferredSince else { return false }
        return flushRequested || deferred.count >= Self.deferredBatch || now >= since.addingTimeInterval(Self.deferredDelay)
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    /// Waits for writes and commits them in batches; writes queued during a transaction form the next batch. After
    /// `stop()`, writes still queued are committed before the thread ends.
    func run(pool: DatabasePool, path: String) {
        var batch: [GroupCommitWriter.PendingWrite] = []
        while true {
            condition.lock()
            while pending.isEmpty && !stopped && !deferredDue(at: Date()) {
                if let since = deferredSince {
                    _ = condition.wait(until: since.addingTimeInterval(Self.deferredDelay))
                } else {
                    condition.wait()
                }
            }
            if pending.isEmpty && deferred.isEmpty && stopped {
                condition.unlock()
                borrowed = nil
                own = nil
                checkpointer?.stop()
                checkpointer = nil
                return
            }
            // Deferred writes first (they are older) when they are due, then up to the batch limit of awaited ones.
            if stopped || deferredDue(at: Date()) {
                swap(&batch, &deferred)
                deferredSince = nil
            }
            flushRequested = false  // a flush with nothing deferred has nothing left to ask for
            let room = max(1, GroupCommitWriter.maximumBatch - batch.count)
            if pending.count <= room {
                batch.append(contentsOf: pending)
                pending.removeAll(keepingCapacity: true)
            } else {
                batch.append(contentsOf: pending.prefix(room))
                pending.removeFirst(room)
            }
            condition.unlock()
            commit(batch, pool: pool, path: path)
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// Commits a batch: through GRDB's writer connection when a write needs GRDB, otherwise on the writer's own raw
    /// connection (no dispatch queue, no GRDB bookkeeping). Only this thread writes, so the two connections never
    /// wait for each other.
    private func commit(_ batch: [GroupCommitWriter.PendingWrite], pool: DatabasePool, path: String) {
        do {
            if batch.contains(where: \.usesGRDB) {
                try pool.writeWithoutTransaction { db in
                    guard let connection = borrowed ?? db.sqliteConnection.map(RawConnection.init(borrowing:)) else {
                        throw StorageError(.unavailable, "the database was closed")
                    }
                    borrowed = connection
                    try run(batch, db: db, on: connection)
                }
            } else {
                let connection = try own ?? openOwnConnection(path: path)
                try run(batch, db: nil, on: connection)
            }
            for write in batch { write.finish(nil) }
        } catch let failure as BatchFailed {
            // Nothing was committed. A write that failed on its own has its error in its outcome; the others get why
            // the transaction failed.
            for (index, write) in batch.enumerated() { write.finish(failure.failedWrites.contains(index) ? nil : failure.cause) }
        } catch {
            for write in batch { write.finish(error) }
        }
    }

    /// The writer's own connection, its commits reported to a background checkpointer.
    private func openOwnConnection(path: String) throws(StorageError) -> RawConnection {
        let connection = try RawConnection(writerPath: path)
        let checkpointer = checkpointer ?? WALCheckpointer(path: path)
        checkpointer.install(on: connection)
        self.checkpointer = checkpointer
        own = connection
        return connection
    }

    /// One transaction for the batch, its statements prepared once: `BEGIN IMMEDIATE` (the write lock up front, so the
    /// transaction never fails to upgrade), a savepoint per write when there are several (one write's failure rolls
    /// back that write only), `COMMIT` (the fsync). A batch of one needs no savepoint: its failure rolls the
    /// transaction back. Throws ``BatchFailed`` when nothing was committed.
    private func run(_ batch: [GroupCommitWriter.PendingWrite], db: Database?, on connection: RawConnection) throws(BatchFailed) {
        let isolated = batch.count > 1
        var failed: Set<Int> = []
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            throw BatchFailed(cause: error, failedWrites: [])
        }
        // Staged writes: their reads first, then their decisions on every core at once (this thread takes part).
        let decisions = batch.compactMap { write -> (@Sendable () -> Void)? in
            write.read?(connection)
            return write.decide
        }
        if decisions.count > 1 {
            DispatchQueue.concurrentPerform(iterations: decisions.count) { index in decisions[index]() }
        } else {
            for decide in decisions { decide() }
        }
        do {
            for (index, write) in batch.enumerated() {
                if isolated { try connection.execute("SAVEPOINT batch_write") }
                do { try write.perform(db, connection) } catch {
                    failed.insert(index)
                    guard isolated else { throw error }
                    try connection.execute("ROLLBACK TO batch_write")
                }
                if isolated { try connection.execute("RELEASE batch_write") }
            }
            try connection.execute("COMMIT")
        } catch {
            // The write of a batch of one failed, or a statement of ours did (I/O, disk full): nothing is kept.
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            throw BatchFailed(cause: error, failedWrites: failed)
        }
    }
}

/// A transaction that committed nothing: why, and which writes failed on their own (their outcome holds their error).
struct BatchFailed: Error {
    let cause: any Error
    let failedWrites: Set<Int>
}


/// A staged write's read and decision, handed from step to step. Each is set once, on one thread, before the next
/// step starts (`concurrentPerform` returns after every decision), so no two threads touch it at once.
final class Stages<Read: Sendable, Decision: Sendable>: @unchecked Sendable {
    var read: Result<Read, StorageError>?
    var decision: Decision?
}

/// A write's result, set inside the transaction and read after it committed.
final class Outcome<T: Sendable>: @unchecked Sendable {
    // Guarded by `lock`: set once on the writer's thread, read by the caller after the commit.
    private let lock = NSLock()
    private var result: Result<T, any Error>?

    func set(_ value: Result<T, any Error>) { lock.withLock { result = value } }

    func get() throws -> T {
        let value = lock.withLock { result }
        guard let value else { throw StorageError(.unavailable, "a write finished without a result") }
        return try value.get()
    }
}
