import Logging

/// `GET /health`'s database check: answered within ``timeout`` whatever the database does, and a change of state logged
/// once, at warning when the database becomes unreachable and at notice when it is back.
///
/// A PostgreSQL pool that cannot connect keeps retrying until its query timeout (5 s by default), while load balancers
/// and Kubernetes give a probe 1 to 5 s: the probe timed out instead of seeing the 503. The check now runs in a task of
/// its own and loses the race against the deadline; it is cancelled and its late result dropped. And an outage
/// with no traffic had shown only in PostgresNIO's info lines, which alerting on warnings misses.
actor DatabaseHealth {
    /// How long `/health` waits for the database before it answers 503.
    static let timeout: Duration = .seconds(2)

    private var reachable = true
    private let check: @Sendable () async throws -> Void

    init(check: @escaping @Sendable () async throws -> Void) { self.check = check }

    /// Whether the database answered in time; logs a change from the last probe.
    func probe(logger: Logger) async -> Bool {
        let answered = await Self.race(Self.timeout, check)
        if answered != reachable {
            reachable = answered
            if answered {
                logger.notice("health: the database is reachable again")
            } else {
                logger.warning("health: the database is unreachable (no answer within \(Self.timeout)); ceremonies answer 503 until it is back")
            }
        }
        return answered
    }

    /// True when `check` returned within `timeout`. The check is not awaited past the deadline (a structured race would
    /// wait for it).
    static func race(_ timeout: Duration, _ check: @escaping @Sendable () async throws -> Void) async -> Bool {
        let (outcomes, continuation) = AsyncStream.makeStream(of: Bool.self)
        let worker = Task {
            continuation.yield((try? await check()) != nil)
            continuation.finish()
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            continuation.yield(false)
            continuation.finish()
        }
        var iterator = outcomes.makeAsyncIterator()
        let answered = await iterator.next() ?? false
        timer.cancel()
        if !answered { worker.cancel() }
        return answered
    }
}
