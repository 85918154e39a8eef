import Foundation
import GRDB
import PasskeyStorage

/// Group commit: concurrent writes share one transaction, so one fsync (`synchronous=FULL`) makes many durable.
///
/// Every caller resumes only after the transaction holding its write has committed — durability is exactly as with one
/// transaction per write, but a disk that needs milliseconds per fsync no longer caps throughput at one write per fsync.
/// When a batch holds several writes, each runs in its own savepoint, so one write's failure rolls back that write
/// only; a batch of one runs without savepoint statements (its failure rolls the transaction back).
///
/// The transactions run on one dedicated thread that sleeps on a condition variable while there is nothing to write:
/// a write costs one wake-up of that thread per batch instead of a task, an actor hop and a dispatch-queue hop per
/// write, and the fsync waits there rather than on the cooperative thread pool that serves requests.
final class GroupCommitWriter: Sendable {
    /// One queued write: `perform` runs inside the shared transaction, `finish` reports the outcome after commit.
    struct PendingWrite: Sendable {
        /// Runs the write; `isolated` asks for a savepoint around it. Throws only to roll a batch of one back.
        let perform: @Sendable (Database, _ isolated: Bool) throws -> Void
        let finish: @Sendable ((any Error)?) -> Void
    }

    /// Largest batch in one transaction (bounds how long the write lock is held).
    static let maximumBatch = 512

    private let queue: WriteQueue

    init(pool: DatabasePool) {
        let queue = WriteQueue()
        self.queue = queue
        let thread = Thread { queue.run(pool: pool) }
        thread.name = "passkey-sqlite-writer"
        thread.start()
    }

    deinit { queue.stop() }

    /// Runs `body` in the next shared transaction and returns its result once that transaction committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let outcome = Outcome<T>()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let pending = PendingWrite(
                perform: { db, isolated in
                    if isolated {
                        do {
                            try db.inSavepoint {
                                do {
                                    outcome.set(.success(try body(db)))
                                    return .commit
                                } catch {
                                    outcome.set(.failure(error))
                                    return .rollback
                                }
                            }
                        } catch {
                            outcome.set(.failure(error))
                        }
                    } else {
                        do { outcome.set(.success(try body(db))) } catch {
                            outcome.set(.failure(error))
                            throw WriteFailed()
                        }
                    }
                },
                finish: { commitError in
                    if let commitError { continuation.resume(throwing: commitError) } else { continuation.resume() }
                })
            if !queue.enqueue(pending) {
                continuation.resume(throwing: StorageError(.unavailable, "the database was closed"))
            }
        }
        return try outcome.get()
    }
}

/// The pending writes and the writer thread's loop. Shared by the writer and its thread; the thread ends after `stop()`.
final class WriteQueue: @unchecked Sendable {
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var pending: [GroupCommitWriter.PendingWrite] = []
    private var stopped = false

    /// Adds a write and wakes the thread; `false` once stopped.
    func enqueue(_ write: GroupCommitWriter.PendingWrite) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return false }
        pending.append(write)
        condition.signal()
        return true
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    /// Waits for writes and commits them in batches; writes queued during a transaction form the next batch. After
    /// `stop()`, writes still queued are committed before the thread ends.
    func run(pool: DatabasePool) {
        while true {
            condition.lock()
            while pending.isEmpty && !stopped { condition.wait() }
            if pending.isEmpty && stopped {
                condition.unlock()
                return
            }
            let batch = Array(pending.prefix(GroupCommitWriter.maximumBatch))
            pending.removeFirst(batch.count)
            condition.unlock()
            commit(batch, pool: pool)
        }
    }

    private func commit(_ batch: [GroupCommitWriter.PendingWrite], pool: DatabasePool) {
        let isolated = batch.count > 1
        do {
            try pool.write { db in
                for write in batch { try write.perform(db, isolated) }
            }
            for write in batch { write.finish(nil) }
        } catch is WriteFailed {
            // A batch of one whose write failed: its outcome holds the error, and the rollback is its answer.
            for write in batch { write.finish(nil) }
        } catch {
            // BEGIN or COMMIT failed (I/O, disk full…): nothing was committed, whatever the outcomes say.
            for write in batch { write.finish(error) }
        }
    }
}

/// Thrown by a batch of one to roll its transaction back after the write failed (the write's own error is in its outcome).
struct WriteFailed: Error {}

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
