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

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) { self.registry = registry }

    /// Records one call: `code` is nil for a success.
    public func record(ceremony: String, step: String, code: String?, duration: Duration) {
        registry.makeCounter(
            name: "passkey_ceremonies_total",
            labels: [("ceremony", ceremony), ("step", step), ("result", code == nil ? "success" : "failure"), ("code", code ?? "none")]
        ).increment()
        registry.makeDurationHistogram(
            name: "passkey_ceremony_duration_seconds", labels: [("ceremony", ceremony), ("step", step)], buckets: Self.buckets
        ).record(duration)
    }

    /// The Prometheus text exposition.
    public func exposition() -> [UInt8] { registry.emitToBuffer() }
}
