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
