/// Why an attempt got no HTTP answer, in categories that say nothing of what is behind the receiver's address (a
/// refused connection, a reset and a timeout all read "no answer"); the stored `lastError` of a delivery.
public struct WebhookFailure: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// No address of the receiver's host may be reached (``WebhookReceiverPolicy``); nothing was sent.
    public static let refusedByPolicy = WebhookFailure(rawValue: "refused by policy: the receiver's address is not one webhooks may be sent to")
    /// The name did not resolve, nothing accepted the connection, or no answer came in time.
    public static let noAnswer = WebhookFailure(rawValue: "no answer from the receiver")
    /// The TLS handshake failed: the receiver's certificate was not accepted, or it does not speak TLS.
    public static let tlsFailed = WebhookFailure(rawValue: "TLS failed: the receiver's certificate or TLS set-up was not accepted")
}
