/// When a failed delivery is tried again: after each delay in turn; once they are used up, the delivery is `failed`
/// and the endpoint's next message goes (an operator can retry failed deliveries later).
public struct WebhookRetryPolicy: Sendable, Hashable {
    /// The waits before the 2nd, 3rd, … attempt. The default is the Standard Webhooks schedule: 5 s, 5 min, 30 min,
    /// 2 h, 5 h, 10 h, 10 h (about 28 hours from the first attempt to the last).
    public var delays: [Duration]
    /// How long one attempt may take before it counts as failed.
    public var timeout: Duration

    public init(
        delays: [Duration] = [.seconds(5), .seconds(300), .seconds(1_800), .seconds(7_200), .seconds(18_000), .seconds(36_000), .seconds(36_000)],
        timeout: Duration = .seconds(15)
    ) {
        self.delays = delays
        self.timeout = timeout
    }

    /// The wait after failed attempt number `attempt` (1 for the first); nil when no retry is left.
    public func delay(after attempt: Int) -> Duration? { attempt >= 1 && attempt <= delays.count ? delays[attempt - 1] : nil }
}
