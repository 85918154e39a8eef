import Foundation

/// Runs blocking work (waiting for a child process, a socket read with a timeout) on a thread of its own and returns
/// its result: blocking one of Swift concurrency's few threads (two on a 2-core machine) would stall every other test
/// running in parallel, and time-bounded ones (storage deadlines) would fail for it.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
