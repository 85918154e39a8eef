/// How webhook messages leave the process: an HTTP client the embedding app provides (passkey-server uses
/// AsyncHTTPClient). The library stays without HTTP.
public protocol WebhookTransport: Sendable {
    /// POSTs `body` (JSON) with `headers` to `url`, giving up after `timeout`; never follows a redirect. Returns the
    /// status, or why there was none. Never throws: every failure is an answer the dispatcher retries.
    ///
    /// - Parameter addresses: where to connect, in order (the next only when connecting to one failed): the addresses
    ///   ``WebhookReceiverPolicy`` allowed for the URL's host. A transport connects to these only, never resolving the
    ///   host again, and still sends the host's name (TLS server name, certificate check, `Host`).
    func post(url: WebhookURL, connectingTo addresses: [IPAddress], headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) async
        -> WebhookResponse
}

/// A receiver's answer to one attempt.
public struct WebhookResponse: Sendable, Hashable {
    /// The HTTP status; nil when no answer came.
    public var status: Int?
    /// Why no answer came, as callers see it; nil with a status.
    public var failure: WebhookFailure?
    /// What exactly went wrong (the system's words, an address), for the server's log only: it can tell what listens
    /// where on the receiver's network, which whoever manages endpoints must not learn.
    public var detail: String?

    public init(status: Int?, failure: WebhookFailure? = nil, detail: String? = nil) {
        self.status = status
        self.failure = failure
        self.detail = detail
    }

    /// 2xx: delivered. Anything else (a redirect included) is retried.
    public var delivered: Bool { status.map { (200..<300).contains($0) } ?? false }
}

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
