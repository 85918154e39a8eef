import Foundation
import PasskeyRelyingParty
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyWire
import Testing

/// A receiver in process: answers each POST as `answer` says, and keeps what it got.
actor RecordingTransport: WebhookTransport {
    struct Received: Sendable {
        let url: String
        let headers: [String: String]
        let body: [UInt8]
        /// The addresses the dispatcher allowed the transport to connect to.
        let addresses: [IPAddress]
        var type: String? { (try? JSONValue.parse(body))?.objectValue?["type"]?.stringValue }
        var userID: String? { (try? JSONValue.parse(body))?.objectValue?["data"]?.objectValue?["userId"]?.stringValue }
    }

    private(set) var received: [Received] = []
    private var answer: @Sendable (String, Int) async -> WebhookResponse

    init(answer: @escaping @Sendable (_ url: String, _ count: Int) async -> WebhookResponse = { _, _ in WebhookResponse(status: 204) }) {
        self.answer = answer
    }

    func setAnswer(_ answer: @escaping @Sendable (String, Int) async -> WebhookResponse) { self.answer = answer }

    func post(url: WebhookURL, connectingTo addresses: [IPAddress], headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) async
        -> WebhookResponse
    {
        received.append(
            Received(
                url: url.text, headers: Dictionary(headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }), body: body, addresses: addresses))
        let count = received.filter { $0.url == url.text }.count
        return await answer(url.text, count)
    }

    func bodies(to url: String) -> [Received] { received.filter { $0.url == url } }
}

@Suite("Webhook delivery (dispatcher)")
struct WebhookDispatcherTests {
    static func user(_ name: String, _ handle: UInt8) -> UserRecord {
        UserRecord(userHandle: [UInt8](repeating: handle, count: 32), username: name, displayName: name, isAnonymous: false, createdAt: Date())
    }

    static func credential(_ id: UInt8, of user: UserRecord) -> CredentialRecordEntry {
        CredentialRecordEntry(
            id: [id, id, id, id], userID: user.id, publicKey: [1], algorithm: -7, signCount: 0, uvInitialized: true, transports: [],
            backupEligible: true, backupState: true, aaguid: "00000000-0000-0000-0000-000000000000", attestationFormat: "none",
            attestationType: "None", createdAt: Date())
    }

    static func dispatcher(
        _ repository: InMemoryRepository, _ transport: RecordingTransport, delays: [Duration] = [.milliseconds(50), .milliseconds(50)],
        owner: String = "test"
    ) -> WebhookDispatcher<InMemoryRepository> {
        WebhookDispatcher(
            repository: repository, transport: transport, policy: WebhookRetryPolicy(delays: delays, timeout: .seconds(2)),
            resolver: StaticHostResolver(), pollInterval: .milliseconds(20), owner: owner)
    }

    /// Polls until `condition` holds, up to 20 s (a loaded machine), then one last look.
    static func eventually(_ condition: @Sendable () async throws -> Bool) async throws -> Bool {
        for _ in 0..<1000 where try await !condition() { try await Task.sleep(for: .milliseconds(20)) }
        return try await condition()
    }

    @Test("messages go out in order, signed with the endpoint's secret (both during a rotation's overlap), each once")
    func signedAndOrdered() async throws {
        let repository = InMemoryRepository()
        let endpoints = WebhookEndpoints(repository: repository, resolver: StaticHostResolver())
        let first = try await endpoints.create(url: "https://hooks.example.com/a")
        let ann = Self.user("ann", 1)
        try await repository.register(Self.credential(1, of: ann), for: ann)
        try await repository.renameCredential(id: [1, 1, 1, 1], userID: ann.id, name: "Phone")
        let transport = RecordingTransport()
        let dispatcher = Self.dispatcher(repository, transport)
        try await dispatcher.deliver(endpointID: first.id)
        let sent = await transport.received
        #expect(sent.compactMap(\.type) == ["user.created", "passkey.created", "passkey.renamed"])
        let secret = try #require(WebhookSecret(first.secret))
        for message in sent {
            let id = try WebhookSignature.verify(body: message.body, header: { message.headers[$0] }, secrets: [secret])
            #expect(id.hasPrefix("msg_"))
            #expect(message.headers["content-type"] == "application/json")
        }
        let payload = try JSONValue.parse(sent[2].body).objectValue
        #expect(payload?["data"]?.objectValue?["passkeyName"] == "Phone" && payload?["data"]?.objectValue?["credentialId"] == "AQEBAQ")
        #expect(try await repository.webhookDeliveries(endpointID: first.id, before: nil, limit: 10).allSatisfy { $0.state == .delivered && $0.attempts == 1 })

        // Rotation: the old secret signs beside the new one until the overlap ends, so a receiver with either accepts.
        let rotated = try await endpoints.rotateSecret(id: first.id, overlap: 3600)
        try await repository.deleteCredential(id: [1, 1, 1, 1], userID: ann.id)
        try await dispatcher.deliver(endpointID: first.id)
        let last = try #require(await transport.received.last)
        #expect(last.type == "passkey.deleted" && last.headers["webhook-signature"]?.split(separator: " ").count == 2)
        for key in [first.secret, rotated.secret] {
            #expect(throws: Never.self) { try WebhookSignature.verify(body: last.body, header: { last.headers[$0] }, secrets: [try #require(WebhookSecret(key))]) }
        }
        // Without an overlap the old secret stops at once.
        let urgent = try await endpoints.rotateSecret(id: first.id, overlap: 0)
        try await repository.deleteUser(id: ann.id)
        try await dispatcher.deliver(endpointID: first.id)
        let final = try #require(await transport.received.last)
        #expect(final.type == "user.deleted" && final.headers["webhook-signature"]?.split(separator: " ").count == 1)
        #expect(throws: RelyingPartyError.self) { try WebhookSignature.verify(body: final.body, header: { final.headers[$0] }, secrets: [try #require(WebhookSecret(rotated.secret))]) }
        #expect(throws: Never.self) { try WebhookSignature.verify(body: final.body, header: { final.headers[$0] }, secrets: [try #require(WebhookSecret(urgent.secret))]) }
    }

    @Test("a receiver that fails for a while gets every message once it recovers, in order, retried on schedule; one that never recovers fails each for good")
    func retriesAndRecovery() async throws {
        let repository = InMemoryRepository()
        let endpoints = WebhookEndpoints(repository: repository, resolver: StaticHostResolver())
        let flaky = try await endpoints.create(url: "https://hooks.example.com/flaky")
        let dead = try await endpoints.create(url: "https://hooks.example.com/dead")
        for index in 1...4 {
            let user = Self.user("user\(index)", UInt8(index))
            try await repository.register(Self.credential(UInt8(index), of: user), for: user)
        }
        // The flaky one answers 500 to its first three requests, then 200; the dead one never answers.
        let transport = RecordingTransport { url, count in
            url.hasSuffix("dead") ? WebhookResponse(status: nil, failure: .noAnswer, detail: "connection refused") : WebhookResponse(status: count <= 3 ? 500 : 200)
        }
        let dispatcher = Self.dispatcher(repository, transport, delays: [.milliseconds(30), .milliseconds(30), .milliseconds(30)])
        let running = Task { await dispatcher.run() }
        defer { running.cancel() }
        #expect(
            try await Self.eventually {
                try await repository.webhookDeliveries(endpointID: nil, before: nil, limit: 100).allSatisfy { $0.state != .pending }
            })
        let flakyDeliveries = await repository.webhookDeliveries(endpointID: flaky.id, before: nil, limit: 100)
        #expect(flakyDeliveries.count == 8 && flakyDeliveries.allSatisfy { $0.state == .delivered })
        #expect(flakyDeliveries.last?.attempts == 4, "the first message took 3 failures and a success")
        let flakyBodies = await transport.bodies(to: flaky.url)
        // What the receiver saw: the first message four times, then each of the others once, in the order written.
        let ids = flakyBodies.map { $0.headers["webhook-id"] ?? "" }
        var distinct: [String] = []
        for id in ids where distinct.last != id { distinct.append(id) }
        #expect(distinct == flakyDeliveries.reversed().map(\.message.id), "order kept, nothing skipped")
        #expect(ids.count == 8 + 3, "only the failed message was sent again")
        // The dead receiver: each message tried 4 times (the first and 3 retries), then failed; nothing held up the other.
        let deadDeliveries = await repository.webhookDeliveries(endpointID: dead.id, before: nil, limit: 100)
        #expect(deadDeliveries.count == 8 && deadDeliveries.allSatisfy { $0.state == .failed && $0.attempts == 4 && $0.lastError == WebhookFailure.noAnswer.rawValue })
        // An operator retries the failed ones once it is back.
        await transport.setAnswer { _, _ in WebhookResponse(status: 202) }
        #expect(try await endpoints.retryFailed(id: dead.id) == 8)
        #expect(
            try await Self.eventually {
                try await repository.webhookDeliveries(endpointID: dead.id, before: nil, limit: 100).allSatisfy { $0.state == .delivered }
            })
    }

    @Test("a slow receiver delays only its own messages")
    func slowReceiverIsolated() async throws {
        let repository = InMemoryRepository()
        let endpoints = WebhookEndpoints(repository: repository, resolver: StaticHostResolver())
        let slow = try await endpoints.create(url: "https://hooks.example.com/slow")
        let fast = try await endpoints.create(url: "https://hooks.example.com/fast")
        let transport = RecordingTransport { url, _ in
            if url.hasSuffix("slow") { try? await Task.sleep(for: .seconds(30)) }
            return WebhookResponse(status: 200)
        }
        let dispatcher = Self.dispatcher(repository, transport)
        let running = Task { await dispatcher.run() }
        defer { running.cancel() }
        for index in 1...5 {
            let user = Self.user("user\(index)", UInt8(index))
            try await repository.register(Self.credential(UInt8(index), of: user), for: user)
        }
        #expect(
            try await Self.eventually {
                try await repository.webhookDeliveries(endpointID: fast.id, before: nil, limit: 100).filter { $0.state == .delivered }.count == 10
            })
        let slowDelivered = await repository.webhookDeliveries(endpointID: slow.id, before: nil, limit: 100).filter { $0.state == .delivered }
        #expect(slowDelivered.isEmpty, "the slow one is still on its first message")
        #expect(await transport.bodies(to: slow.url).count == 1)
    }

    @Test("two dispatchers on one store deliver each message once")
    func twoInstances() async throws {
        let repository = InMemoryRepository()
        let endpoint = try await WebhookEndpoints(repository: repository, resolver: StaticHostResolver()).create(url: "https://hooks.example.com/a")
        let transport = RecordingTransport { _, _ in
            try? await Task.sleep(for: .milliseconds(2))
            return WebhookResponse(status: 200)
        }
        let one = Task { await Self.dispatcher(repository, transport, owner: "one").run() }
        let two = Task { await Self.dispatcher(repository, transport, owner: "two").run() }
        defer {
            one.cancel()
            two.cancel()
        }
        for index in 1...30 {
            let user = Self.user("user\(index)", UInt8(index))
            try await repository.register(Self.credential(UInt8(index), of: user), for: user)
        }
        #expect(
            try await Self.eventually {
                try await repository.webhookDeliveries(endpointID: endpoint.id, before: nil, limit: 100).allSatisfy { $0.state == .delivered }
            })
        let ids = await transport.received.map { $0.headers["webhook-id"] ?? "" }
        #expect(ids.count == 60 && Set(ids).count == 60)
    }

    @Test("payloads carry what each type says, and nothing secret")
    func payloads() throws {
        let message = WebhookMessageRecord(
            sequence: 3, id: "msg_1", type: "recovery.link_used", createdAt: Date(timeIntervalSince1970: 1_800_000_000.25), userID: "u1",
            username: "ann", displayName: "Ann", externalUserID: "shop-1", credentialID: [0xfb, 0xff], credentialName: "Phone", detail: "replaced")
        #expect(
            WebhookPayload.json(of: message).serialized()
                == #"{"type":"recovery.link_used","timestamp":"2027-01-15T08:00:00.250Z","data":{"userId":"u1","username":"ann","displayName":"Ann","externalUserId":"shop-1","credentialId":"-_8","passkeyName":"Phone","passkeysReplaced":true}}"#
        )
        var regressed = message
        regressed.type = "signin.counter_regressed"
        regressed.detail = "accepted"
        #expect(WebhookPayload.json(of: regressed).objectValue?["data"]?.objectValue?["outcome"] == "accepted")
        var renamed = message
        renamed.type = "passkey.renamed"
        renamed.detail = "Old"
        #expect(WebhookPayload.json(of: renamed).objectValue?["data"]?.objectValue?["previousName"] == "Old")
        var deleted = message
        deleted.type = "user.deleted"
        deleted.credentialID = nil
        let data = try #require(WebhookPayload.json(of: deleted).objectValue?["data"]?.objectValue)
        #expect(data.map(\.name) == ["userId", "username", "displayName", "externalUserId"])
    }

    @Test("endpoint settings are checked: https only (http to a receiver the operator allowed), known event types, overlap bounds; a missing endpoint is 404's code")
    func endpointRules() async throws {
        let endpoints = WebhookEndpoints(
            repository: InMemoryRepository(), receivers: WebhookReceiverPolicy(allowedNetworks: [try #require(IPNetwork("127.0.0.0/8"))]),
            resolver: StaticHostResolver())
        for url in ["http://hooks.example.com/a", "ftp://x", "https://user:pw@hooks.example.com/", "https://hooks.example.com/#f", "/relative", "https://"] {
            await #expect(throws: RelyingPartyError.self, "\(url)") { _ = try await endpoints.create(url: url) }
        }
        let local = try await endpoints.create(url: "http://127.0.0.1:9000/hook", eventTypes: ["user.created", "user.created"])
        #expect(local.eventTypes == ["user.created"] && local.secret.hasPrefix("whsec_") && local.id.hasPrefix("whe_"))
        do {
            _ = try await endpoints.create(url: "https://hooks.example.com/", eventTypes: ["user.exploded"])
            Issue.record("accepted an unknown type")
        } catch { #expect(error.code == .webhookEventTypeUnknown) }
        do {
            _ = try await endpoints.rotateSecret(id: local.id, overlap: 8 * 86_400)
            Issue.record("accepted an overlap of 8 days")
        } catch { #expect(error.code == .fieldInvalid) }
        do {
            _ = try await endpoints.update(id: "whe_missing", enabled: false)
            Issue.record("changed a missing endpoint")
        } catch { #expect(error.code == .webhookEndpointNotFound) }
    }
}
