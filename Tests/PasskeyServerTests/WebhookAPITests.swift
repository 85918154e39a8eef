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
            let events = try await harness.server.repository.events(matching: EventFilter(), before: nil, limit: 50)
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
                let messages = try await server.repository.webhookDeliveries(endpointID: id, before: nil, limit: 10).map(\.message).reversed()
                #expect(messages.map(\.type) == ["user.created", "passkey.created", "signin.counter_regressed"])
                let last = try #require(messages.last)
                #expect(last.detail == (allow ? "accepted" : "refused") && last.username == "ann" && last.credentialID == device.authenticator.credentialID)
                if !allow {
                    // The refusal's event names the account it proved.
                    let events = try await server.repository.events(matching: EventFilter(result: .failure), before: nil, limit: 10)
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
}
