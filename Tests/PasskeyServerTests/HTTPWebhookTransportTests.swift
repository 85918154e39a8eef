import Foundation
@testable import PasskeyServer
import PasskeyRelyingParty
import PasskeyTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The AsyncHTTPClient transport connects to the address it is given, never to what the name resolves to: a name that
/// does not resolve at all, written in mixed case, still reaches the listener at the pinned address.
@Suite("Webhook transport: the pinned address", .serialized)
struct HTTPWebhookTransportTests {
    /// Every post here ends at once (refused, or no TLS from the listener); the whole suite running on two cores once
    /// made a refused first address use all of 5 s, so the second was never tried.
    static let timeout = Duration.seconds(30)

    @Test("a name is sent to the address the policy allowed, whatever its case, and a dead address gives way to the next")
    func pinned() async throws {
        let folder = try WebhookProcessTests.folder()
        let connections = folder.appendingPathComponent("connections.log")
        let ports = try LocalPorts.free(2)
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        listener.arguments = ["python3", "-c", WebhookRebindingTests.listener, String(ports[0]), connections.path]
        listener.standardOutput = FileHandle.nullDevice
        listener.standardError = FileHandle.nullDevice
        try listener.run()
        defer { kill(listener.processIdentifier, SIGKILL) }
        #expect(try await WebhookProcessTests.eventually(10) { ((try? String(contentsOf: connections, encoding: .utf8)) ?? "").contains("ready") })

        // `.invalid` never resolves: a connection can only come from the pinned address.
        let url = try WebhookURL(parsing: "https://Pinned.Example.INVALID:\(ports[0])/hooks")
        let transport = HTTPWebhookTransport()
        let answer = await transport.post(url: url, connectingTo: [IPAddress.v4(127, 0, 0, 1)], headers: [], body: Array("{}".utf8), timeout: Self.timeout)
        #expect(answer.status == nil && answer.failure != .refusedByPolicy, "\(answer)")
        let seen = (try? String(contentsOf: connections, encoding: .utf8)) ?? ""
        #expect(seen.components(separatedBy: "connection").count - 1 == 1, "one connection to the pinned address: \(seen)")

        // A first address where nothing listens (the listener is bound to 127.0.0.1 only) gives way to the next.
        let next = await transport.post(url: url, connectingTo: [IPAddress.v4(127, 0, 0, 2), IPAddress.v4(127, 0, 0, 1)], headers: [], body: [], timeout: Self.timeout)
        let again = (try? String(contentsOf: connections, encoding: .utf8)) ?? ""
        #expect(again.components(separatedBy: "connection").count - 1 == 2, "the second address was tried: \(again) \(next)")
        #expect(next.detail?.contains("127.0.0.2") == true, "\(next)")
        let dead = try WebhookURL(parsing: "https://pinned.example.invalid:\(ports[1])/hooks")
        let failed = await transport.post(url: dead, connectingTo: [IPAddress.v4(127, 0, 0, 1)], headers: [], body: [], timeout: Self.timeout)
        #expect(failed.failure == .noAnswer && failed.detail?.contains("127.0.0.1") == true, "\(failed)")
    }
}
