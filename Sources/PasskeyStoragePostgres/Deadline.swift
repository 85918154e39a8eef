import Foundation
import PasskeyStorage

/// Runs storage work with a time limit, so a request never waits on the database longer than the configured query
/// timeout: past it the caller gets `storage_unavailable` and the HTTP edge answers 503.
///
/// The work runs in its own task and the caller is resumed by whichever finishes first, the work or the timer. A structured
/// race (a task group) would have to wait for the losing child, and a query on a connection whose peer vanished without a
/// TCP reset cannot be interrupted; here the late work is cancelled (which withdraws a pending connection lease) and its
/// result, if it ever comes, is dropped. A write that commits after its deadline was never acknowledged, which is what
/// the durability promise is about.
enum Deadline {
    static func run<T: Sendable>(
        _ timeout: Duration, what: @autoclosure () -> String,
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
                let timer = Task {
                    do { try await Task.sleep(for: timeout) } catch { return }  // cancelled: the work finished first
                    if race.finish(.failure(StorageError(.unavailable, "\(description): no answer from PostgreSQL within \(timeout)"))) {
                        worker.cancel()
                    }
                }
                race.attach(worker: worker, timer: timer)
            }
        } onCancel: {
            race.finish(.failure(StorageError(.unavailable, "\(description): cancelled")))
        }
    }
}

/// The state of one race: resumes the continuation exactly once, then cancels the task that lost.
private final class Race<T: Sendable>: @unchecked Sendable {
    // Guarded by `lock`; every member is touched from the worker, the timer and the caller's cancellation handler.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var pending: Result<T, any Error>?
    private var done = false
    private var worker: Task<Void, Never>?
    private var timer: Task<Void, Never>?

    func start(_ continuation: CheckedContinuation<T, any Error>) {
        let early: Result<T, any Error>? = lock.withLock {
            self.continuation = continuation
            return pending
        }
        // Cancelled before the continuation existed: resume at once.
        if let early { continuation.resume(with: early) }
    }

    func attach(worker: Task<Void, Never>, timer: Task<Void, Never>) {
        let finished = lock.withLock {
            self.worker = worker
            self.timer = timer
            return done
        }
        if finished {
            worker.cancel()
            timer.cancel()
        }
    }

    /// Delivers `result` if nothing was delivered yet; returns whether it was this call that delivered.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let (won, continuation, worker, timer): (Bool, CheckedContinuation<T, any Error>?, Task<Void, Never>?, Task<Void, Never>?) = lock.withLock {
            guard !done else { return (false, nil, nil, nil) }
            done = true
            let waiting = self.continuation
            self.continuation = nil
            if waiting == nil { pending = result }
            return (true, waiting, self.worker, self.timer)
        }
        guard won else { return false }
        continuation?.resume(with: result)
        timer?.cancel()
        if case .failure = result { worker?.cancel() }
        return true
    }
}
