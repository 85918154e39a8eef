import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PasskeyServer
import PasskeyTestSupport
import PasskeyWire
import Testing

/// The live log across two `passkey-server` processes on one PostgreSQL database: a ceremony on A reaches a dashboard
/// stream on B (LISTEN/NOTIFY, then the shared event store).
@Suite("Dashboard live log across instances on PostgreSQL", .enabled(if: TestPostgres.enabled, "PASSKEY_TEST_POSTGRES_URL is not set"))
struct DashboardMultiInstanceTests {
    @Test("a failed ceremony on one instance appears on the other instance's live stream", .timeLimit(.minutes(2)))
    func crossInstanceLiveLog() async throws {
        let url = try #require(TestPostgres.freshURL(), Comment(rawValue: TestPostgres.missingMessage))
        let token = String(repeating: "t", count: 40)
        let ports = try LocalPorts.free(2)
        async let startA = ServerProcess.start(database: url, port: ports[0], extraArguments: ["--options-per-minute", "10000"])
        async let startB = ServerProcess.start(database: url, port: ports[1], environment: ["PASSKEY_ADMIN_TOKEN": token])
        let (serverA, serverB) = try await (startA, startB)
        defer {
            serverA.stop()
            serverB.stop()
        }
        // B's stream, with the break-glass token: ends after the first failure it sees.
        let received = Outcome()
        let stream = Task {
            let client = TestClient(host: "127.0.0.1", port: serverB.port)
            client.connect()
            let response = try? await client.execute(
                TestClient.Request("/dashboard/events/stream?max=1&result=failure", method: .get, authority: "localhost", headers: [.authorization: "Bearer \(token)"]))
            try? await client.shutdown()
            await received.set(response?.body.map { String(buffer: $0) } ?? "")
        }
        // Failed ceremonies on A until B's stream has one (B's subscription may start after the first); at most 20 s.
        let a = ProcessClient(port: serverA.port)
        let deadline = ContinuousClock.now + .seconds(20)
        while await received.text == nil, ContinuousClock.now < deadline {
            let failed = await a.call(.post, "/verify-registration", json: ["challengeKey": "no-such-ceremony", "cred": ["id": "AAAA"]])
            #expect(failed.status == 400)
            try await Task.sleep(for: .milliseconds(200))
        }
        await a.close()
        if await received.text == nil { serverB.stop() }  // ends the stream request, so the test cannot hang
        await stream.value
        let text = await received.text ?? ""
        let data = try #require(text.split(separator: "\n").first { $0.hasPrefix("data: ") }, "no event reached B's stream: \(text)")
        let event = try JSONValue.parse(String(data.dropFirst(6))).objectValue ?? [:]
        #expect(event["kind"] == "registration.verify")
        #expect(event["result"] == "failure")
        #expect(event["code"]?.stringValue?.isEmpty == false)
    }
}

/// What the stream task read, once it has.
actor Outcome {
    var text: String?
    func set(_ value: String) { text = value }
}
