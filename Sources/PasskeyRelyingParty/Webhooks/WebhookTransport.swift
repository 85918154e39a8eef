/// How webhook messages leave the process: an HTTP client the embedding app provides (passkey-server uses
/// AsyncHTTPClient). The library stays without HTTP.
public protocol WebhookTransport: Sendable {
    /// POSTs `body` (JSON) with `headers` to `url`, giving up after `timeout`; never follows a redirect. Returns the
    /// status, or why there was none. Never throws: every failure is an answer the dispatcher retries.
    func post(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) async -> WebhookResponse
}

/// A receiver's answer to one attempt.
public struct WebhookResponse: Sendable, Hashable {
    /// The HTTP status; nil when no answer came (refused, reset, timed out, TLS failed).
    public var status: Int?
    /// Why there was no answer, for the dashboard: never the body or the headers sent.
    public var error: String?

    public init(status: Int?, error: String? = nil) {
        self.status = status
        self.error = error
    }

    /// 2xx: delivered. Anything else (a redirect included) is retried.
    public var delivered: Bool { status.map { (200..<300).contains($0) } ?? false }
}
