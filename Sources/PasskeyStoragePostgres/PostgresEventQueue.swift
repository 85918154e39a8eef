import Foundation
import PasskeyStorage

/// Ceremony events waiting to be written together (``DeferredEventRepository``): one multi-row `INSERT` every 50 ms,
/// or as soon as 256 are waiting, or when someone reads the log, instead of a round trip that each request waits for.
///
/// One writer task drains the queue, so batches are written one after the other, and a reader that asked for a flush
/// is resumed only after every event queued before its request is stored (or failed).
final class PostgresEventQueue: @unchecked Sendable {
    typealias Completion = @Sendable (EventRecord?) -> Void
    static let interval: Duration = .milliseconds(50)
    static let batchLimit = 256
    /// Events held while the database does not answer; past this many, new ones are given up (their completion gets
    /// `nil`, and the recorder still publishes them live), so an outage cannot grow memory without bound.
    static let backlogLimit = 10_000

    /// Writes a batch and answers the stored events (with ids) in the same order.
    typealias Write = @Sendable ([EventRecord]) async throws(StorageError) -> [EventRecord]

    // Guarded by `lock`; touched by request tasks, readers and the writer task.
    private let lock = NSLock()
    private var pending: [(event: EventRecord, done: Completion)] = []
    /// Readers waiting for everything queued before them to be stored.
    private var flushWaiters: [CheckedContinuation<Void, Never>] = []
    /// Wakes the writer early (a full batch, a reader, shutdown); nil while it sleeps out its interval undisturbed.
    private var wake: CheckedContinuation<Void, Never>?
    private var woken = false
    private var writer: Task<Void, Never>?
    private var closed = false

    /// Queues an event; starts the writer task on first use.
    func append(_ event: EventRecord, write: @escaping Write, done: @escaping Completion) {
        let accepted = lock.withLock { () -> Bool in
            guard !closed, pending.count < Self.backlogLimit else { return false }
            pending.append((event, done))
            if writer == nil { writer = Task { await self.run(write) } }
            if pending.count >= Self.batchLimit {
                wakeLocked()
            } else if pending.count == 1 {
                // The first event of a batch sets the batch's deadline. (A timer left from a batch that was written
                // early only makes the next batch a little smaller.)
                Task {
                    try? await Task.sleep(for: Self.interval)
                    self.lock.withLock { self.wakeLocked() }
                }
            }
            return true
        }
        if !accepted { done(nil) }
    }

    /// Returns once every event queued before this call has been written (or has failed).
    func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let alone = lock.withLock { () -> Bool in
                guard writer != nil, !closed else { return true }
                flushWaiters.append(continuation)
                wakeLocked()
                return false
            }
            if alone { continuation.resume() }
        }
    }

    /// Writes what is queued and stops the writer; later events are refused (their completion gets `nil`).
    func close() async {
        let task: Task<Void, Never>? = lock.withLock {
            closed = true
            wakeLocked()
            return writer
        }
        await task?.value
    }

    private func wakeLocked() {
        woken = true
        if let wake {
            self.wake = nil
            wake.resume()
        }
    }

    private func run(_ write: Write) async {
        while true {
            // Idle until woken: by a batch's deadline, a full batch, a reader or shutdown. No polling while no events come.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = lock.withLock { () -> Bool in
                    if woken { return true }
                    wake = continuation
                    return false
                }
                if now { continuation.resume() }
            }
            let (batch, waiters, stop) = lock.withLock { () -> ([(event: EventRecord, done: Completion)], [CheckedContinuation<Void, Never>], Bool) in
                woken = false
                defer {
                    pending = []
                    flushWaiters = []
                }
                return (pending, flushWaiters, closed)
            }
            if !batch.isEmpty {
                do {
                    let stored = try await write(batch.map(\.event))
                    for (index, item) in batch.enumerated() { item.done(index < stored.count ? stored[index] : nil) }
                } catch {
                    for item in batch { item.done(nil) }
                }
            }
            for waiter in waiters { waiter.resume() }
            if stop { return }
        }
    }
}
