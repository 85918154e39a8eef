import Foundation
public import PasskeyAPI
public import Prometheus

/// Ceremony counters and latency histograms, exposed at `/metrics` in the Prometheus text format.
///
/// - `passkey_ceremonies_total{ceremony, step, result, code}`: every options and verify call, by outcome and stable error code.
/// - `passkey_ceremony_duration_seconds{ceremony, step}`: how long each took, server side.
/// - `passkey_counter_regressions_accepted_total`: sign-ins accepted although their signature counter did not increase
///   (`--allow-counter-regression`); each may be a cloned authenticator, so alert on its rate.
public struct CeremonyMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry

    static let buckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5),
    ]

    /// The metrics' names and `# HELP` lines. (`MetricNameDescriptor` holds only `let` strings but is not marked
    /// `Sendable`, hence `nonisolated(unsafe)`: nothing can mutate it.)
    nonisolated(unsafe) static let ceremonies = MetricNameDescriptor(
        namespace: "passkey", metricName: "ceremonies", unitName: "total",
        helpText: "Ceremony calls (options and verify) by ceremony, step, result and stable error code (none on success).")
    nonisolated(unsafe) static let counterRegressions = MetricNameDescriptor(
        namespace: "passkey", metricName: "counter_regressions_accepted", unitName: "total",
        helpText: "Sign-ins accepted with a signature counter that did not increase (--allow-counter-regression): possible cloned authenticators.")
    nonisolated(unsafe) static let duration = MetricNameDescriptor(
        namespace: "passkey", metricName: "ceremony_duration", unitName: "seconds",
        helpText: "Server-side time of each ceremony call, storage included.")

    /// The counter and histogram of each (ceremony, step, code) seen so far: the registry builds a metric's name and
    /// label list and takes its lock on every `make…` call, which cost more than the increment itself on every request.
    /// Bounded: ceremonies, steps and codes are fixed sets in the server's code.
    private let cache = MetricCache()

    private let acceptedRegressions: Counter

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        acceptedRegressions = registry.makeCounter(descriptor: Self.counterRegressions)
    }

    /// Records a sign-in accepted with a counter that did not increase.
    public func recordAcceptedCounterRegression() { acceptedRegressions.increment() }

    /// Records one call: `code` is nil for a success.
    public func record(ceremony: String, step: String, code: ErrorCode?, duration: Duration) {
        let code = code?.rawValue
        let metrics = cache.metrics(for: MetricCache.Key(ceremony: ceremony, step: step, code: code)) {
            (
                registry.makeCounter(
                    descriptor: Self.ceremonies,
                    labels: [("ceremony", ceremony), ("step", step), ("result", code == nil ? "success" : "failure"), ("code", code ?? "none")]),
                registry.makeDurationHistogram(
                    descriptor: Self.duration, labels: [("ceremony", ceremony), ("step", step)], buckets: Self.buckets)
            )
        }
        metrics.counter.increment()
        metrics.histogram.record(duration)
    }

    /// The Prometheus text exposition.
    public func exposition() -> [UInt8] { registry.emitToBuffer() }
}

/// The metrics of each label combination, made once.
final class MetricCache: @unchecked Sendable {
    struct Key: Hashable {
        let ceremony: String
        let step: String
        let code: String?
    }

    // Guarded by `lock`. Counters and histograms are themselves safe to use from any thread.
    private let lock = NSLock()
    private var made: [Key: (counter: Counter, histogram: DurationHistogram)] = [:]

    func metrics(for key: Key, make: () -> (Counter, DurationHistogram)) -> (counter: Counter, histogram: DurationHistogram) {
        if let existing = lock.withLock({ made[key] }) { return existing }
        // Made outside the lock (the registry has its own, and returns the same metric for the same labels).
        let (counter, histogram) = make()
        return lock.withLock {
            if let existing = made[key] { return existing }
            made[key] = (counter, histogram)
            return (counter, histogram)
        }
    }
}
