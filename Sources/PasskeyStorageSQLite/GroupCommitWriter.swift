import Foundation
import GRDB
import PasskeyStorage

/// Group commit: concurrent writes share one transaction, so one fsync (`synchronous=FULL`) makes many durable.
///
/// Each write runs in its own savepoint, so one write's failure rolls back that write only; every caller resumes after
/// the transaction holding its write has committed — durability is exactly as with one transaction per write, but a
/// disk that needs milliseconds per fsync no longer caps throughput at one write per fsync.
actor GroupCommitWriter {
    /// One queued write: `perform` runs inside the shared transaction, `finish` reports the outcome after commit.
    struct PendingWrite: Sendable {
        let perform: @Sendable (Database) -> Void
        let finish: @Sendable ((any Error)?) -> Void
    }

    /// Largest batch in one transaction (bounds how long the write lock is held).
    static let maximumBatch = 512

    let pool: DatabasePool
    private var queue: [PendingWrite] = []
    private var draining = false

    init(pool: DatabasePool) { self.pool = pool }

    /// Runs `body` in a savepoint of the next shared transaction and returns its result once that transaction committed.
    nonisolated func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let outcome = Outcome<T>()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let pending = PendingWrite(
                perform: { db in
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
                },
                finish: { commitError in
                    if let commitError { continuation.resume(throwing: commitError) } else { continuation.resume() }
                })
            Task { await self.enqueue(pending) }
        }
        return try outcome.get()
    }

    private func enqueue(_ pending: PendingWrite) {
        queue.append(pending)
        guard !draining else { return }
        draining = true
        Task { await drain() }
    }

    private func drain() async {
        while !queue.isEmpty {
            let batch = Array(queue.prefix(Self.maximumBatch))
            queue.removeFirst(batch.count)
            do {
                // Writes queued while this transaction runs form the next batch.
                try await pool.write { db in
                    for pending in batch { pending.perform(db) }
                }
                for pending in batch { pending.finish(nil) }
            } catch {
                for pending in batch { pending.finish(error) }
            }
        }
        draining = false
    }
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
