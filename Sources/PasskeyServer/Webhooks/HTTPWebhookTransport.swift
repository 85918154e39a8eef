import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import PasskeyRelyingParty

/// Sends webhook messages with AsyncHTTPClient: certificates verified against the system's roots, no redirects
/// followed (a receiver that moved answers 3xx, which is retried and shows on the dashboard), only the answer's status
/// read (the client is shut down at once, so a receiver that trickles a body holds nothing).
///
/// Each attempt connects to an address the receiver policy allowed, never to what the name resolves to by then: the
/// attempt's client maps the host to that address (`dnsOverride`, keyed by the host exactly as the client reads it from
/// the URL), and still sends the name for TLS (server name, certificate check) and `Host`. One client per attempt, so
/// no connection made for one address is reused for another, and connecting is not retried inside it: a dead address
/// gives way to the next one.
final class HTTPWebhookTransport: WebhookTransport {
    /// Connecting to more than this many of a host's addresses is not tried in one attempt.
    static let addressesTried = 3

    func post(url: WebhookURL, connectingTo addresses: [IPAddress], headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) async
        -> WebhookResponse
    {
        let deadline = NIODeadline.now() + .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
        var details: [String] = []
        for address in addresses.prefix(Self.addressesTried) {
            let outcome = await post(url: url, address: address, headers: headers, body: body, deadline: deadline)
            switch outcome {
            case .answered(let status): return WebhookResponse(status: status)
            case .failed(let failure, let detail, let tryNext):
                details.append("\(address): \(detail)")
                if !tryNext || NIODeadline.now() >= deadline {
                    return WebhookResponse(status: nil, failure: failure, detail: details.joined(separator: "; "))
                }
            }
        }
        return WebhookResponse(status: nil, failure: .noAnswer, detail: details.joined(separator: "; "))
    }

    enum Outcome {
        case answered(Int)
        /// `tryNext`: the connection was never made, so another address may be tried without sending twice.
        case failed(WebhookFailure, detail: String, tryNext: Bool)
    }

    func post(url: WebhookURL, address: IPAddress, headers: [(name: String, value: String)], body: [UInt8], deadline: NIODeadline) async -> Outcome {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        configuration.connectionPool.retryConnectionEstablishment = false
        let remaining = deadline - NIODeadline.now()
        configuration.timeout = .init(connect: remaining, read: remaining)
        if case .name(let name) = url.host {
            // The key is the host as AsyncHTTPClient reads it from the URL (Foundation's parse): were it spelt otherwise,
            // the override would miss and the client would resolve the name itself.
            guard let parsed = URL(string: url.text)?.host, parsed == name else {
                return .failed(.refusedByPolicy, detail: "the URL's host does not read back as \(name)", tryNext: false)
            }
            configuration.dnsOverride = [parsed: address.description]
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        var request = HTTPClientRequest(url: url.text)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let outcome: Outcome
        do {
            // The status is all an attempt needs; the body is left unread and the connection closed with the client.
            outcome = .answered(Int(try await client.execute(request, deadline: deadline).status.code))
        } catch {
            outcome = Self.outcome(of: error)
        }
        try? await client.shutdown()
        return outcome
    }

    /// What went wrong: a category for the delivery (which says nothing of the receiver's network), the error in
    /// words for the log (never the request: its URL may carry a receiver's token).
    static func outcome(of error: any Error) -> Outcome {
        let text = String(describing: error).prefix(200)
        if error is NIOSSLError || error is BoringSSLError || text.contains("handshake") || text.contains("NIOSSL") {
            return .failed(.tlsFailed, detail: "TLS failed: \(text)", tryNext: false)
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return .failed(.noAnswer, detail: "no connection within the timeout", tryNext: true)
            case .deadlineExceeded, .readTimeout, .writeTimeout: return .failed(.noAnswer, detail: "no answer within the timeout", tryNext: false)
            case .remoteConnectionClosed: return .failed(.noAnswer, detail: "the receiver closed the connection", tryNext: false)
            default: return .failed(.noAnswer, detail: "the request failed (\(error))", tryNext: false)
            }
        }
        // Connecting failed (refused, unreachable): nothing was sent.
        if error is NIOConnectionError || error is IOError || text.contains("connectionRefused") || text.contains("Connection refused") {
            return .failed(.noAnswer, detail: "could not connect: \(text)", tryNext: true)
        }
        return .failed(.noAnswer, detail: "the request failed: \(text)", tryNext: false)
    }
}
