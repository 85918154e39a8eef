import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import PasskeyRelyingParty

/// Sends webhook messages with AsyncHTTPClient: certificates verified against the system's roots, no redirects
/// followed (a receiver that moved answers 3xx, which is retried and shows on the dashboard), the answer's body read
/// up to 64 KiB and dropped.
final class HTTPWebhookTransport: WebhookTransport {
    let client: HTTPClient

    init() {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func post(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) async -> WebhookResponse {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000))
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return WebhookResponse(status: Int(response.status.code))
        } catch {
            return WebhookResponse(status: nil, error: Self.reason(error))
        }
    }

    /// What went wrong, in words for the dashboard: never the request (its URL may carry a receiver's token).
    static func reason(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout: return "no answer within the timeout"
            case .remoteConnectionClosed: return "the receiver closed the connection"
            default: return "the request failed (\(error))"
            }
        }
        let text = String(describing: error)
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("NIOSSL") || text.contains("handshake") { return "TLS failed: \(text.prefix(160))" }
        return "the request failed: \(text.prefix(160))"
    }

    func shutdown() async { try? await client.shutdown() }
}
