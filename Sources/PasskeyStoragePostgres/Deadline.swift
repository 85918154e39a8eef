import Foundation
import PasskeyStorage

/// Runs storage work with a time limit, so a request never waits on the database longer than the configured query
/// timeout: past it the caller gets `storage_unavailable` and the HTTP edge answers 503.
///
/// The work runs in its own task and the caller is resumed by whichever comes first, the work's result or the deadline.
/// A structured race (a task group) would have to wait for the losing child, and a query on a connection whose peer
/// vanished without a TCP reset cannot be interrupted; here the late work is cancelled (which withdraws a pending
/// connection lease) and its result, if it ever comes, is dropped. A write that commits after its deadline was never
/// acknowledged, which is what the durability promise is about.
///
/// Deadlines are watched by one ``DeadlineWatch`` per repository rather than a timer task per call: a timer per call
/// (a task, a sleep and its cancellation) cost more CPU than the query's own bookkeeping in the sign-in benchmark.
enum Deadline {
    static func run<T: Sendable>(
        _ timeout: Duration, what: @autoclosure () -> String, watch: DeadlineWatch,
        _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let race = Race<T>()
        let description = what()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                race.start(continuation)
                let worker = Task {
                    do { race.finish(.success(try await work())) } catch { race.finish(.failure(error)) }
                }
                let ticket = watch.add(deadline: .now + timeout) {
                    race.finish(.failure(StorageError(.unavailable, "\(description): no answer from PostgreSQL within \(timeout)")))
                }
                race.attach(worker: worker, ticket: ticket, watch: watch)
            }
        } onCancel: {
            race.finish(.failure(StorageError(.unavailable, "\(description): cancelled")))
        }
    }
}

/// The deadlines of calls in flight, checked every ``resolution`` by one task that runs only while there are any.
/// Timeouts are seconds long, so a call times out at most one resolution late.
final class DeadlineWatch: @unchecked Sendable {
    static let resolution: Duration = .milliseconds(50)

    // Guarded by `lock`; touched by every call and by the sweeping task.
    private let lock = NSLock()
    private var entries: [Int: (deadline: ContinuousClock.Instant, expire: @Sendable () -> Void)] = [:]
    private var nextTicket = 0
    private var sweeping = false

    /// Watches a deadline; `expire` runs once it passes, unless ``remove(_:)`` came first. Returns the ticket to remove it.
    func add(deadline: ContinuousClock.Instant, expire: @escaping @Sendable () -> Void) -> Int {
        let (ticket, start) = lock.withLock { () -> (Int, Bool) in
            nextTicket += 1
            entries[nextTicket] = (deadline, expire)
            let start = !sweeping
            sweeping = true
            return (nextTicket, start)
        }
        if start { Task { await self.sweep() } }
        return ticket
    }

    func remove(_ ticket: Int) {
        _ = lock.withLock { entries.removeValue(forKey: ticket) }
    }

    private func sweep() async {
        while true {
            try? await Task.sleep(for: Self.resolution)
            let now = ContinuousClock.now
            let (expired, stop) = lock.withLock { () -> ([@Sendable () -> Void], Bool) in
                var expired: [@Sendable () -> Void] = []
                for (ticket, entry) in entries where entry.deadline <= now {
                    expired.append(entry.expire)
                    entries.removeValue(forKey: ticket)
                }
                // Stop while nothing is watched; the next `add` starts a new sweep.
                if entries.isEmpty { sweeping = false }
                return (expired, entries.isEmpty)
            }
            for expire in expired { expire() }
            if stop { return }
        }
    }
}

/// The state of one race: resumes the continuation exactly once, then cancels the work if it lost, or stops watching
/// the deadline if the work won.
private final class Race<T: Sendable>: @unchecked Sendable {
    // Guarded by `lock`; every member is touched from the worker, the deadline watch and the caller's cancellation handler.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var pending: Result<T, any Error>?
    private var done = false
    private var worker: Task<Void, Never>?
    private var ticket: (id: Int, watch: DeadlineWatch)?

    func start(_ continuation: CheckedContinuation<T, any Error>) {
        let early: Result<T, any Error>? = lock.withLock {
            self.continuation = continuation
            return pending
        }
        // Cancelled before the continuation existed: resume at once.
        if let early { continuation.resume(with: early) }
    }

    func attach(worker: Task<Void, Never>, ticket: Int, watch: DeadlineWatch) {
        let finished = lock.withLock {
            self.worker = worker
            self.ticket = (ticket, watch)
            return done
        }
        if finished {
            worker.cancel()
            watch.remove(ticket)
        }
    }

    /// Delivers `result` if nothing was delivered yet; returns whether it was this call that delivered.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let (won, continuation, worker, ticket): (Bool, CheckedContinuation<T, any Error>?, Task<Void, Never>?, (id: Int, watch: DeadlineWatch)?) =
            lock.withLock {
                guard !done else { return (false, nil, nil, nil) }
                done = true
                let waiting = self.continuation
                self.continuation = nil
                if waiting == nil { pending = result }
                return (true, waiting, self.worker, self.ticket)
            }
        guard won else { return false }
        continuation?.resume(with: result)
        if let ticket { ticket.watch.remove(ticket.id) }
        if case .failure = result { worker?.cancel() }
        return true
    }
}
