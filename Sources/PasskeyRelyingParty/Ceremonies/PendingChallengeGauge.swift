import Foundation

/// How many ceremonies are pending, without counting the challenges table on every options request (a full count per
/// request costs more as the table grows, and every instance of a PostgreSQL deployment would run it).
///
/// The count is read from storage at most once a second; in between, each challenge this instance issues adds one to
/// the estimate. The bound ``CeremonyConfiguration/maximumPendingChallenges`` is therefore exact for one instance and
/// approximate by at most a second of other instances' options across several.
final class PendingChallengeGauge: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var counted = 0
    private var issuedSince = 0
    private var countedAt: Date?

    static var refreshInterval: TimeInterval { 1 }

    /// The estimate, or `nil` when storage must be counted again (never counted, stale, or the clock went back).
    func estimate(now: Date) -> Int? {
        lock.withLock {
            guard let countedAt, now >= countedAt, now.timeIntervalSince(countedAt) < Self.refreshInterval else { return nil }
            return counted + issuedSince
        }
    }

    func record(count: Int, at time: Date) {
        lock.withLock {
            counted = count
            issuedSince = 0
            countedAt = time
        }
    }

    func issued() { lock.withLock { issuedSince += 1 } }
}
