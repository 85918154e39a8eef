import Foundation
import PasskeyStorage

/// Ceremony events waiting to be written together (``DeferredEventRepository``): one multi-row `INSERT` every 50 ms,
/// or as soon as 256 are waiting, or when someone reads the log, instead of a round trip that each request waits for.
///
/// One writer task drains the queue, so batches are written one after the other, and a reader that asked for a flush
/// is resumed once every event queued before its request is stored (or failed), or when its own deadline passes: a
/// database that does not answer must not hold up the log's readers longer than any other call.
final class PostgresEventQueue: @unchecked Sendable {
    typealias Completion = @Sendable (EventRecord?) -> Void
    static let interval: Duration = .milliseconds(50)
    static let batchLimit = 256
    /// Events held while the database does not answer; past this many, new ones are given up (their completion gets
    /// `nil`, and the recorder still publishes them live), so an outage cannot grow memory without bound.
    static let backlogLimit = 10_000

    /// Writes a batch and answers, in the same order, each event stored (with its id) or nil where it failed.
    typealias Write = @Sendable ([EventRecord]) async -> [EventRecord?]

    // Guarded by `lock`; touched by request tasks, readers and the writer task.
    private let lock = NSLock()
    private var pending: [(event: EventRecord, done: Completion)] = []
    /// Readers waiting for everything queued before them to be stored, by ticket.
    private var flushWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter = 0
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

    /// Returns once every event queued before this call has been written (or has failed), or after `timeout`.
    func flush(within timeout: Duration, watch: DeadlineWatch) async {
        let stopping: Task<Void, Never>? = lock.withLock { closed ? writer : nil }
        // Shutting down: the final batch may still be on its way.
        if let stopping { return await stopping.value }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ticket = lock.withLock { () -> Int? in
                guard writer != nil, !closed else { return nil }
                nextWaiter += 1
                flushWaiters[nextWaiter] = continuation
                wakeLocked()
                return nextWaiter
            }
            guard let ticket else { return continuation.resume() }
            // Whoever removes the waiter resumes it: the writer after its batch, or this deadline.
            _ = watch.add(deadline: .now + timeout) {
                self.lock.withLock { self.flushWaiters.removeValue(forKey: ticket) }?.resume()
            }
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
            let (batch, waiters, stop) = lock.withLock { () -> ([(event: EventRecord, done: Completion)], [Int], Bool) in
                woken = false
                defer { pending = [] }
                return (pending, Array(flushWaiters.keys), closed)
            }
            if !batch.isEmpty {
                let stored = await write(batch.map(\.event))
                for (index, item) in batch.enumerated() { item.done(index < stored.count ? stored[index] : nil) }
            }
            // Only the readers that were waiting when the batch was taken: a later one waits for the next batch.
            let resumed = lock.withLock { waiters.compactMap { flushWaiters.removeValue(forKey: $0) } }
            for waiter in resumed { waiter.resume() }
            if stop { return }
        }
    }
}
