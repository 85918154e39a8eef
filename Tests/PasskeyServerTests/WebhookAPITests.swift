import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PasskeyRelyingParty
import PasskeyServer
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyWire
import Testing

/// Webhook endpoints over HTTP against the real router: the backend API (API key), the dashboard's API, and the
/// messages the public ceremonies leave in the outbox.
@Suite("Webhooks over HTTP")
struct WebhookAPITests {
    @Test("the backend manages endpoints with its API key; the secret is answered once; bad input gets stable codes")
    func backendAPI() async throws {
        let harness = try await ConnectHarness()
        try await harness.server.run { client in
            #expect(try await client.call(.get, "/webhooks").status == .unauthorized)
            let created = try await client.call(
                .post, "/webhooks", json: ["url": "https://hooks.example.com/passkeys", "description": "billing", "eventTypes": ["user.deleted", "passkey.created"]],
                headers: harness.backend)
            #expect(created.status == .ok, "\(created.json)")
            let id = try #require(created["id"]?.stringValue)
            let secret = try #require(created["secret"]?.stringValue)
            #expect(WebhookSecret(secret) != nil && created["enabled"] == true)
            #expect(created["eventTypes"] == ["user.deleted", "passkey.created"])

            let listed = try await client.call(.get, "/webhooks", headers: harness.backend)
            #expect(listed["endpoints"]?.arrayValue?.count == 1)
            #expect(!listed.json.serialized().contains(secret), "the secret is not listed")
            #expect(!(try await client.call(.get, "/webhooks/\(id)", headers: harness.backend)).json.serialized().contains(secret))

            for (body, code) in [
                (["url": "http://hooks.example.com/"] as JSONValue, "webhook_url_invalid"),
                (["url": "https://hooks.example.com/", "eventTypes": ["user.exploded"]], "webhook_event_type_unknown"),
                (["url": "https://hooks.example.com/", "eventTypes": [1]], "field_invalid"),
                (["description": "no url"], "field_missing"),
            ] {
                let refused = try await client.call(.post, "/webhooks", json: body, headers: harness.backend)
                #expect(refused.status == .badRequest && refused["error"]?.stringValue == code, "\(body.serialized()): \(refused.json)")
            }
            let missing = try await client.call(.patch, "/webhooks/whe_nope", json: ["enabled": false], headers: harness.backend)
            #expect(missing.status == .notFound && missing["error"] == "webhook_endpoint_not_found")

            let disabled = try await client.call(.patch, "/webhooks/\(id)", json: ["enabled": false, "eventTypes": []], headers: harness.backend)
            #expect(disabled["enabled"] == false && disabled["eventTypes"] == [], "\(disabled.json)")
            let rotated = try await client.call(.post, "/webhooks/\(id)/rotate-secret", json: ["overlapSeconds": 600], headers: harness.backend)
            let newSecret = try #require(rotated["secret"]?.stringValue)
            #expect(newSecret != secret && rotated["previousSecretExpiresAt"]?.stringValue != nil)
            let stored = try #require(await harness.server.repository.webhookEndpoint(id: id))
            #expect(stored.signingSecrets(at: Date()) == [newSecret, secret])

            let deliveries = try await client.call(.get, "/webhooks/\(id)/deliveries?limit=10", headers: harness.backend)
            #expect(deliveries.status == .ok && deliveries["deliveries"] == [])
            #expect(try await client.call(.get, "/webhooks/\(id)/deliveries?before=x", headers: harness.backend)["error"] == "field_invalid")
            #expect(try await client.call(.post, "/webhooks/\(id)/retry", headers: harness.backend)["retried"] == 0)
            #expect(try await client.call(.delete, "/webhooks/\(id)", headers: harness.backend)["deleted"] == true)
            #expect(try await client.call(.delete, "/webhooks/\(id)", headers: harness.backend).status == .notFound)

            // Every call is in the dashboard's log, without the secret.
            let events = await harness.server.repository.events(matching: EventFilter(), before: nil, limit: 50)
            #expect(events.contains { $0.kind == "webhook.create" && $0.explanation == "webhook endpoint \(id) added" })
            #expect(!events.contains { ($0.explanation ?? "").contains("whsec_") })
        }
    }

    @Test("ceremonies leave their messages in the outbox; a counter regression is reported, refused or accepted")
    func ceremoniesWriteMessages() async throws {
        for allow in [false, true] {
            let harness = try await ConnectHarness { $0.allowCounterRegression = allow }
            let server = harness.server
            let device = try Device(server: server, credentialID: 4)
            try await server.run { client in
                let created = try await client.call(.post, "/webhooks", json: ["url": "https://hooks.example.com/a"], headers: harness.backend)
                let id = try #require(created["id"]?.stringValue)
                let options = try await client.call(.get, "/generate-registration-options?username=ann")
                let registered = try await client.call(
                    .post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
                #expect(registered.status == .ok)
                #expect(try await harness.signIn(client, device: device, signCount: 5).status == .ok)
                let regressed = try await harness.signIn(client, device: device, signCount: 2)
                #expect(regressed.status == (allow ? .ok : .badRequest), "\(regressed.json)")
                let messages = await server.repository.webhookDeliveries(endpointID: id, before: nil, limit: 10).map(\.message).reversed()
                #expect(messages.map(\.type) == ["user.created", "passkey.created", "signin.counter_regressed"])
                let last = try #require(messages.last)
                #expect(last.detail == (allow ? "accepted" : "refused") && last.username == "ann" && last.credentialID == device.authenticator.credentialID)
                if !allow {
                    // The refusal's event names the account it proved.
                    let events = await server.repository.events(matching: EventFilter(result: .failure), before: nil, limit: 10)
                    #expect(events.contains { $0.code == "counter_regressed" && $0.username == "ann" })
                }
            }
        }
    }

    @Test("the dashboard lists endpoints and deliveries, and changes them with a fresh check")
    func dashboard() async throws {
        let token = String(repeating: "k", count: 40)
        let harness = try DashboardHarness { $0.dashboard.adminToken = token }
        let bearer: HTTPFields = [.authorization: "Bearer \(token)"]
        try await harness.server.run { client in
            let created = try await client.call(
                .post, "/dashboard/api/webhooks", json: ["url": "https://hooks.example.com/d", "eventTypes": ["user.created"]], headers: bearer)
            #expect(created.status == .ok && created["secret"]?.stringValue?.hasPrefix("whsec_") == true, "\(created.json)")
            let id = try #require(created["id"]?.stringValue)
            _ = try await harness.registerUser(client, "ann", device: try Device(server: harness.server))
            let listed = try await client.call(.get, "/dashboard/api/webhooks", headers: bearer)
            #expect(listed["endpoints"]?.arrayValue?.count == 1 && listed["eventTypes"]?.arrayValue?.count == WebhookEventType.all.count)
            let delivery = try #require(listed["deliveries"]?.arrayValue?.first?.objectValue)
            #expect(delivery["type"] == "user.created" && delivery["state"] == "pending" && delivery["attempts"] == 0)
            #expect(!listed.json.serialized().contains(created["secret"]?.stringValue ?? "-"))
            let rotated = try await client.call(.post, "/dashboard/api/webhooks/\(id)/rotate", json: ["overlapSeconds": 0], headers: bearer)
            #expect(rotated["secret"]?.stringValue != created["secret"]?.stringValue && rotated["previousSecretExpiresAt"] == .null)
            let changed = try await client.call(.patch, "/dashboard/api/webhooks/\(id)", json: ["enabled": false], headers: bearer)
            #expect(changed["enabled"] == false)
            #expect(try await client.call(.delete, "/dashboard/api/webhooks/\(id)", headers: bearer)["deleted"] == true)
            let events = try await client.call(.get, "/dashboard/api/events", headers: bearer)
            let kinds = events["events"]?.arrayValue?.compactMap { $0.objectValue?["kind"]?.stringValue } ?? []
            #expect(["admin.add_webhook", "admin.rotate_webhook", "admin.change_webhook", "admin.remove_webhook"].allSatisfy(kinds.contains), "\(kinds)")
        }
    }

    /// Every receiver a black-box review had the server POST to (issue 45): loopback, private and link-local
    /// addresses in every spelling, the machine's own address, names that resolve inside the network and a cloud
    /// metadata name. `own.example.com` resolves to the machine's address, `db.example.com` to a private one (as names
    /// from /etc/hosts or internal DNS do).
    static let internalReceivers = [
        "https://127.0.0.1/hooks", "https://[::1]/hooks", "https://2130706433/hooks", "https://0x7f.1/hooks", "https://017700000001/hooks",
        "https://[::ffff:127.0.0.1]/hooks", "https://0.0.0.0/hooks", "https://203.0.114.9/hooks", "https://own.example.com/hooks",
        "https://db.example.com/hooks", "https://localhost/hooks", "https://10.0.0.1/hooks", "https://169.254.169.254/latest/meta-data/",
        "https://[fd00:ec2::254]/hooks", "https://metadata.google.internal/computeMetadata/v1/", "http://127.0.0.1:8080/hooks",
        "http://localhost/hooks", "https://[::ffff:a9fe:a9fe]/", "https://[64:ff9b::a9fe:a9fe]/", "https://[2002:a00:1::]/",
        "https://mixed.example.com/hooks",
    ]

    static func receiverPolicy(_ configuration: inout ServerConfiguration) {
        configuration.webhooks.receivers.ownAddresses = [IPAddress.v4(203, 0, 114, 9)]
        configuration.webhooks.resolver = StaticHostResolver([
            "own.example.com": [IPAddress.v4(203, 0, 114, 9)], "db.example.com": [IPAddress.v4(10, 0, 0, 7)],
            "mixed.example.com": [StaticHostResolver.publicAddress, IPAddress.v4(192, 168, 0, 2)],
        ])
    }

    @Test("receivers at internal addresses are refused in every spelling, through the backend API and the dashboard, naming why")
    func internalReceiversRefused() async throws {
        let token = String(repeating: "k", count: 40)
        let connect = try await ConnectHarness(Self.receiverPolicy)
        let dashboard = try DashboardHarness {
            Self.receiverPolicy(&$0)
            $0.dashboard.adminToken = token
        }
        for (server, headers, path) in [
            (connect.server, connect.backend, "/webhooks"), (dashboard.server, [.authorization: "Bearer \(token)"] as HTTPFields, "/dashboard/api/webhooks"),
        ] {
            try await server.run { client in
                for url in Self.internalReceivers {
                    let refused = try await client.call(.post, path, json: ["url": .string(url)], headers: headers)
                    #expect(refused.status == .badRequest && refused["error"] == "webhook_url_invalid", "\(path) \(url): \(refused.json)")
                    let message = refused["message"]?.stringValue ?? ""
                    #expect(message.contains("not a public") || message.contains("http:// is only") || message.contains("write it as such"), "\(url): \(message)")
                }
                // The address itself is not echoed for a name: the kind of address is all the caller learns.
                let named = try await client.call(.post, path, json: ["url": "https://db.example.com/hooks"], headers: headers)
                #expect(named["message"]?.stringValue?.contains("10.0.0.7") == false, "\(named.json)")
                // Changing an endpoint's URL is checked alike.
                let created = try await client.call(.post, path, json: ["url": "https://hooks.example.com/a"], headers: headers)
                let id = try #require(created["id"]?.stringValue, "\(created.json)")
                let moved = try await client.call(.patch, "\(path)/\(id)", json: ["url": "https://169.254.169.254/"], headers: headers)
                #expect(moved.status == .badRequest && moved["error"] == "webhook_url_invalid", "\(moved.json)")
                #expect(try await server.repository.webhookEndpoint(id: id)?.url == "https://hooks.example.com/a")
            }
        }
    }

    @Test("an operator's allowance opens named networks and hosts, http:// included, and nothing else")
    func allowedReceivers() async throws {
        let harness = try await ConnectHarness {
            Self.receiverPolicy(&$0)
            $0.webhooks.receivers.allowedNetworks = [IPNetwork("10.0.0.0/24")].compactMap { $0 }
            $0.webhooks.receivers.allowedHosts = ["localhost"]
        }
        try await harness.server.run { client in
            for url in ["http://10.0.0.1:8080/hooks", "https://db.example.com/hooks", "http://localhost:9000/hooks"] {
                let created = try await client.call(.post, "/webhooks", json: ["url": .string(url)], headers: harness.backend)
                #expect(created.status == .ok, "\(url): \(created.json)")
            }
            for url in ["https://10.0.1.1/hooks", "https://127.0.0.1/hooks", "http://hooks.example.com/hooks"] {
                let refused = try await client.call(.post, "/webhooks", json: ["url": .string(url)], headers: harness.backend)
                #expect(refused["error"] == "webhook_url_invalid", "\(url): \(refused.json)")
            }
        }
    }

    @Test("URLs and descriptions that would show as something else are refused; endpoints are capped")
    func strictInputAndCap() async throws {
        let harness = try await ConnectHarness { $0.webhooks.receivers.maximumEndpoints = 3 }
        try await harness.server.run { client in
            for url in [
                "https://10.0.0.1/x\rhttps://backend.example.com/hooks", "https://hooks.example.com/a\nb", "https://hooks.example.com/\u{1B}[31m",
                "https://hooks.example.com/\u{0}", "https://hooks.example.com/a\tb", "https://hooks.example.com/a b", "https://hooks.example.com/\u{202E}moc",
                "https://hooks.example.com:0/", "https://hooks.example.com:65536/",
            ] {
                let refused = try await client.call(.post, "/webhooks", json: ["url": .string(url)], headers: harness.backend)
                #expect(refused.status == .badRequest && refused["error"] == "webhook_url_invalid", "\(url.debugDescription): \(refused.json)")
            }
            let stacked = "a" + String(repeating: "\u{0301}", count: 20_000)
            for description in [
                "a\rb", "a\nb", "\u{1B}[2J", "a\u{0}", "a\tb", "pay\u{202E}lanigiro", "zero\u{200B}width", "line\u{2028}sep", stacked, "\u{3164}",
                "a\u{115F}", "a\u{034F}b", "a\u{FE0F}", "a\u{E0100}", "a\u{17B4}", "\u{2800}", "no\u{00A0}break",
            ] {
                let refused = try await client.call(
                    .post, "/webhooks", json: ["url": "https://hooks.example.com/", "description": .string(description)], headers: harness.backend)
                #expect(refused.status == .badRequest && refused["error"] == "field_invalid", "\(description.debugDescription): \(refused.json)")
            }
            for index in 0..<3 {
                let created = try await client.call(.post, "/webhooks", json: ["url": .string("https://hooks.example.com/\(index)")], headers: harness.backend)
                #expect(created.status == .ok, "\(created.json)")
            }
            let over = try await client.call(.post, "/webhooks", json: ["url": "https://hooks.example.com/3"], headers: harness.backend)
            #expect(over.status == .conflict && over["error"] == "webhook_endpoint_limit", "\(over.json)")
        }
    }

    @Test("at delivery, a name that resolves to an internal address now gets nothing sent, and the delivery says only 'refused by policy'")
    func rebindingAtDelivery() async throws {
        let repository = InMemoryRepository()
        let transport = RecordingTransport()
        let resolver = SwitchingResolver()
        let endpoints = WebhookEndpoints(repository: repository, resolver: resolver)
        let endpoint = try await endpoints.create(url: "https://rebind.example.com/hooks")
        let user = WebhookDispatcherTests.user("ann", 1)
        try await repository.register(WebhookDispatcherTests.credential(1, of: user), for: user)
        // After the endpoint was saved, its name resolves to loopback (DNS rebinding), then to other internal addresses.
        let insideAddresses = [[IPAddress.v4(127, 0, 0, 1)], [IPAddress.v4(169, 254, 169, 254), IPAddress.v6(0, 0, 0, 0, 0, 0, 0, 1)]]
        for (round, addresses) in insideAddresses.enumerated() {
            await resolver.set(addresses)
            let later = Date().addingTimeInterval(Double(round) * 120)
            let dispatcher = WebhookDispatcher(
                repository: repository, transport: transport, policy: WebhookRetryPolicy(delays: [.seconds(60), .seconds(60), .seconds(60)], timeout: .seconds(2)),
                resolver: resolver, owner: "test", now: { later })
            try await dispatcher.deliver(endpointID: endpoint.id)
            // The oldest message is the one tried (in order: the rest wait for it).
            let delivery = try #require(try await repository.webhookDeliveries(endpointID: endpoint.id, before: nil, limit: 10).last)
            #expect(delivery.attempts == round + 1 && delivery.state == .pending, "\(delivery)")
            #expect(delivery.lastError == WebhookFailure.refusedByPolicy.rawValue && delivery.lastStatus == nil, "\(delivery)")
        }
        #expect(await transport.received.isEmpty, "nothing was sent")
        // A mix of public and internal addresses: only the public one is given to the transport.
        await resolver.set([IPAddress.v4(10, 0, 0, 1), StaticHostResolver.publicAddress])
        let later = Date().addingTimeInterval(600)
        let dispatcher = WebhookDispatcher(repository: repository, transport: transport, resolver: resolver, owner: "test", now: { later })
        try await dispatcher.deliver(endpointID: endpoint.id)
        #expect(await transport.received.first?.addresses == [StaticHostResolver.publicAddress])
    }
}

extension WebhookAPITests {
    @Test("an address the machine gains while it runs is refused from then on, when saved and at delivery")
    func addressGainedLater() async throws {
        let repository = InMemoryRepository()
        let transport = RecordingTransport()
        let resolver = SwitchingResolver()
        let endpoints = WebhookEndpoints(repository: repository, resolver: resolver)
        let gained = IPAddress.v4(93, 184, 215, 20)
        let endpoint = try await endpoints.create(url: "https://93.184.215.20/hooks")
        let user = WebhookDispatcherTests.user("ann", 1)
        try await repository.register(WebhookDispatcherTests.credential(1, of: user), for: user)
        await resolver.setLocal([gained])
        do {
            _ = try await endpoints.create(url: "https://93.184.215.20/other")
            Issue.record("the machine's new address was accepted")
        } catch {
            #expect(error.code == .webhookURLInvalid && error.message.contains("an address of this machine"), "\(error.message)")
        }
        let dispatcher = WebhookDispatcher(
            repository: repository, transport: transport, policy: WebhookRetryPolicy(delays: [.seconds(60)], timeout: .seconds(2)), resolver: resolver,
            owner: "test")
        try await dispatcher.deliver(endpointID: endpoint.id)
        let delivery = try #require(try await repository.webhookDeliveries(endpointID: endpoint.id, before: nil, limit: 10).last)
        #expect(delivery.lastError == WebhookFailure.refusedByPolicy.rawValue, "\(delivery)")
        #expect(await transport.received.isEmpty)
    }
}

/// A resolver whose answer the test changes: a name that resolved publicly when saved and internally later.
actor SwitchingResolver: WebhookHostResolver {
    var current: [IPAddress] = [StaticHostResolver.publicAddress]
    /// The machine's addresses, which the test changes too.
    var local: Set<IPAddress> = []
    func set(_ addresses: [IPAddress]) { current = addresses }
    func setLocal(_ addresses: Set<IPAddress>) { local = addresses }
    func addresses(of name: String) async throws(WebhookHostResolutionError) -> [IPAddress] { current }
    func localAddresses() async -> Set<IPAddress> { local }
}
