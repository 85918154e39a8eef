public import Prometheus

/// Ceremony counters and latency histograms, exposed at `/metrics` in the Prometheus text format.
///
/// - `passkey_ceremonies_total{ceremony, step, result, code}`: every options and verify call, by outcome and stable error code.
/// - `passkey_ceremony_duration_seconds{ceremony, step}`: how long each took, server side.
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
    nonisolated(unsafe) static let duration = MetricNameDescriptor(
        namespace: "passkey", metricName: "ceremony_duration", unitName: "seconds",
        helpText: "Server-side time of each ceremony call, storage included.")

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) { self.registry = registry }

    /// Records one call: `code` is nil for a success.
    public func record(ceremony: String, step: String, code: String?, duration: Duration) {
        registry.makeCounter(
            descriptor: Self.ceremonies,
            labels: [("ceremony", ceremony), ("step", step), ("result", code == nil ? "success" : "failure"), ("code", code ?? "none")]
        ).increment()
        registry.makeDurationHistogram(descriptor: Self.duration, labels: [("ceremony", ceremony), ("step", step)], buckets: Self.buckets)
            .record(duration)
    }

    /// The Prometheus text exposition.
    public func exposition() -> [UInt8] { registry.emitToBuffer() }
}
