import Foundation
import Hummingbird
import HummingbirdTesting
import PasskeyServer
import PasskeyServerTestSupport
import PasskeyWire
import Testing

/// Recovery and onboarding links over HTTP against the real router: minted by the backend, redeemed by their holder.
@Suite("Recovery and onboarding links")
struct AccountLinkAPITests {
    /// Registers `name` on `device` through the public API; returns the answer.
    func register(_ client: any TestClientProtocol, _ name: String, _ device: Device) async throws -> JSONResponse {
        let options = try await client.call(.get, "/generate-registration-options?username=\(name)")
        return try await client.call(.post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
    }

    /// Redeems `token` with `device`: options, then verify.
    func redeem(_ client: any TestClientProtocol, _ token: String, _ device: Device) async throws -> (options: JSONResponse, verified: JSONResponse?) {
        let options = try await client.call(.post, "/links/options", headers: ConnectHarness.bearer(token))
        guard options.status == .ok else { return (options, nil) }
        let verified = try await client.call(
            .post, "/links/verify", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)],
            headers: ConnectHarness.bearer(token))
        return (options, verified)
    }

    @Test("a lost device: the link replaces the account's passkeys in one step, the old ones are refused, the new one signs in, the link works once")
    func lostDevice() async throws {
        let harness = try await ConnectHarness()
        let server = harness.server
        let old = try Device(server: server, credentialID: 1)
        let replacement = try Device(server: server, credentialID: 2)
        try await server.run { client in
            let ann = try await register(client, "ann", old)
            let userID = try #require(ann["userId"]?.stringValue)
            let minted = try await client.call(.post, "/users/\(userID)/links?by=userId", json: ["replacePasskeys": true], headers: harness.backend)
            #expect(minted.status == .ok, "\(minted.json)")
            let token = try #require(minted["token"]?.stringValue)
            #expect(token.hasPrefix("pal_"))
            #expect(minted["url"]?.stringValue == "http://localhost:8080/#link=" + token)
            #expect(minted["replacesPasskeys"] == true && minted["userId"]?.stringValue == userID)
            // Stored hashed: the secret is nowhere in storage.
            #expect(await server.repository.connectToken(hash: Array(token.utf8), now: Date()) == nil)

            let (options, verified) = try await redeem(client, token, replacement)
            #expect(options["replacesPasskeys"] == true && options["excludeCredentials"]?.arrayValue?.isEmpty != false, "\(options.json)")
            #expect(options["user"]?.objectValue?["name"] == "ann")
            #expect(verified?.status == .ok && verified?["verified"] == true, "\(String(describing: verified?.json))")
            #expect(verified?["userId"]?.stringValue == userID && verified?["replacedPasskeys"] == 1)
            #expect(verified?["signedPasskeyData"]?.stringValue?.isEmpty == false)

            // The old passkey is gone; the new one signs in to the same account.
            let oldSignIn = try await harness.signIn(client, device: old, signCount: 5)
            #expect(oldSignIn["error"] == "passkey_deleted_on_server", "\(oldSignIn.json)")
            let newSignIn = try await harness.signIn(client, device: replacement, signCount: 1)
            #expect(newSignIn.status == .ok && newSignIn["userId"]?.stringValue == userID, "\(newSignIn.json)")

            // Single use.
            let again = try await redeem(client, token, try Device(server: server, credentialID: 3))
            #expect(again.options.status == .unauthorized && again.options["error"] == "account_link_invalid", "\(again.options.json)")
        }
    }

    @Test("a link's options complete only where the link is redeemed, append options never there; a refused attempt leaves both usable")
    func optionsStayWithTheirLink() async throws {
        let harness = try await ConnectHarness()
        let server = harness.server
        let old = try Device(server: server, credentialID: 1)
        let other = try Device(server: server, credentialID: 2)
        let replacement = try Device(server: server, credentialID: 3)
        try await server.run { client in
            let ann = try await register(client, "ann", old)
            let userID = try #require(ann["userId"]?.stringValue)
            let minted = try await client.call(.post, "/users/\(userID)/links?by=userId", json: ["replacePasskeys": true], headers: harness.backend)
            let token = try #require(minted["token"]?.stringValue)
            let options = try await client.call(.post, "/links/options", headers: ConnectHarness.bearer(token))
            #expect(options.status == .ok, "\(options.json)")
            // Completed without the link, where other registrations complete: refused, so the link is not bypassed (it
            // would stay usable and the lost device's passkey would stay).
            let response = other.create(options.json)
            let elsewhere: [(String, JSONValue)] = [
                ("/verify-registration", ["challengeKey": options["challengeKey"] ?? nil, "cred": response]),
                ("/verify-registration", ["cred": response]),
                ("/connect/append/verify", ["challengeKey": options["challengeKey"] ?? nil, "cred": response]),
                ("/api/complete-registration", ["credential": response]),
            ]
            for (path, body) in elsewhere {
                let answer = try await client.call(.post, path, json: body)
                #expect(answer.status == .badRequest && answer["error"] == "challenge_invalid", "\(path): \(answer.json)")
            }
            #expect(await server.repository.credentials(userID: userID).map(\.id) == [old.authenticator.credentialID])
            // The link and its options still work where they belong, and replace the old passkey.
            let redeemed = try await client.call(
                .post, "/links/verify", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": replacement.create(options.json)],
                headers: ConnectHarness.bearer(token))
            #expect(redeemed.status == .ok && redeemed["replacedPasskeys"] == 1, "\(redeemed.json)")
            #expect(await server.repository.credentials(userID: userID).map(\.id) == [replacement.authenticator.credentialID])

            // Append options (made with a connect token) are not a link's: redeeming a link with them is refused and
            // uses up neither.
            let appendOptions = try await harness.appendOptions(client)
            let appLink = try #require(try await client.call(.post, "/users/app-user-1/links", json: [:], headers: harness.backend)["token"]?.stringValue)
            let mixed = try await client.call(
                .post, "/links/verify", json: ["challengeKey": appendOptions["challengeKey"] ?? nil, "cred": other.create(appendOptions.json)],
                headers: ConnectHarness.bearer(appLink))
            #expect(mixed.status == .badRequest && mixed["error"] == "challenge_invalid", "\(mixed.json)")
            #expect(try await client.call(.post, "/links/options", headers: ConnectHarness.bearer(appLink)).status == .ok)
        }
    }

    @Test("an onboarding link adds a passkey and keeps the others; a cancelled ceremony does not use it up")
    func onboarding() async throws {
        let harness = try await ConnectHarness()
        let server = harness.server
        let first = try Device(server: server, credentialID: 1)
        let second = try Device(server: server, credentialID: 2)
        try await server.run { client in
            let bo = try await register(client, "bo", first)
            let userID = try #require(bo["userId"]?.stringValue)
            let minted = try await client.call(.post, "/users/\(userID)/links", json: [:], headers: harness.backend)
            let token = try #require(minted["token"]?.stringValue)
            #expect(minted["replacesPasskeys"] == false)
            // Options fetched and abandoned (the person closed the sheet): the link still works.
            let abandoned = try await client.call(.post, "/links/options", headers: ConnectHarness.bearer(token))
            #expect(abandoned.status == .ok)
            #expect(abandoned["excludeCredentials"]?.arrayValue?.count == 1, "the account's passkey is excluded: \(abandoned.json)")
            let (_, verified) = try await redeem(client, token, second)
            #expect(verified?["replacedPasskeys"] == 0, "\(String(describing: verified?.json))")
            #expect(await server.repository.credentials(userID: userID).count == 2)
            // The abandoned options cannot be completed with the used link.
            let late = try await client.call(
                .post, "/links/verify", json: ["challengeKey": abandoned["challengeKey"] ?? nil, "cred": try Device(server: server, credentialID: 4).create(abandoned.json)],
                headers: ConnectHarness.bearer(token))
            #expect(late.status == .unauthorized && late["error"] == "account_link_invalid", "\(late.json)")
            #expect(await server.repository.credentials(userID: userID).count == 2)
        }
    }

    @Test("every unusable link gets one answer: unknown, malformed, expired, revoked, another kind of token, a disabled account")
    func refusals() async throws {
        let harness = try await ConnectHarness()
        let server = harness.server
        let device = try Device(server: server, credentialID: 1)
        try await server.run { client in
            let cy = try await register(client, "cy", device)
            let userID = try #require(cy["userId"]?.stringValue)
            func mint(_ body: JSONValue = [:]) async throws -> String {
                try #require(try await client.call(.post, "/users/\(userID)/links", json: body, headers: harness.backend)["token"]?.stringValue)
            }
            func answer(_ authorization: String?) async throws -> JSONResponse {
                try await client.call(.post, "/links/options", headers: authorization.map { [.authorization: $0] } ?? [:])
            }
            var cases: [(String, String?)] = [
                ("no token", nil), ("not bearer", "Basic abc"), ("unknown", "Bearer pal_" + String(repeating: "A", count: 43)),
                ("an API key", "Bearer " + harness.apiKey),
            ]
            let expiring = try await mint(["expiresIn": 300])
            server.clock.advance(301)
            cases.append(("expired", "Bearer " + expiring))
            let revoked = try await mint()
            let revocation = try await client.call(.delete, "/users/\(userID)/links", headers: harness.backend)
            #expect(revocation["revoked"] == 2, "the expired link, not yet purged, and this one: \(revocation.json)")
            cases.append(("revoked", "Bearer " + revoked))
            let disabledLink = try await mint()
            _ = try await client.call(.patch, "/users/\(userID)", json: ["disabled": true], headers: harness.backend)
            cases.append(("disabled account", "Bearer " + disabledLink))
            var messages: Set<String> = []
            for (what, authorization) in cases {
                let refused = try await answer(authorization)
                #expect(refused.status == .unauthorized && refused["error"] == "account_link_invalid", "\(what): \(refused.json)")
                messages.insert(refused["message"]?.stringValue ?? "")
            }
            #expect(messages.count == 1, "one message for every case: \(messages)")

            // Minting: only with an API key, for an account that is enabled, for a sane lifetime.
            _ = try await client.call(.patch, "/users/\(userID)", json: ["disabled": false], headers: harness.backend)
            #expect(try await client.call(.post, "/users/\(userID)/links", json: [:])["error"] == "api_key_missing")
            for lifetime in [0, 299, 2_592_001] {
                let wrong = try await client.call(.post, "/users/\(userID)/links", json: ["expiresIn": .number(Double(lifetime))], headers: harness.backend)
                #expect(wrong.status == .badRequest && wrong["error"] == "field_invalid", "\(lifetime): \(wrong.json)")
            }
            let unknownUser = try await client.call(.post, "/users/nobody/links", json: [:], headers: harness.backend)
            #expect(unknownUser.status == .notFound && unknownUser["error"] == "user_not_found")
        }
    }

    @Test("an admin makes a recovery link on the user's page after a fresh check, and revokes it; both are in the log")
    func dashboard() async throws {
        let harness = try DashboardHarness()
        let server = harness.server
        try await server.run { client in
            let session = try await harness.setUp(client)
            let registered = try await harness.registerUser(client, "eve", device: try Device(server: server, credentialID: 0x21))
            let userID = try #require(registered["userId"]?.stringValue)
            let page = String(buffer: try await client.execute(uri: "/dashboard/users/\(userID)", method: .get, headers: session.headers).body)
            #expect(page.contains("Make a link") && page.contains("valid 24 hours"))

            let withoutCSRF = try await client.call(.post, "/dashboard/api/users/\(userID)/links", json: [:], headers: session.headers)
            #expect(withoutCSRF.status == .forbidden, "\(withoutCSRF.json)")
            server.clock.advance(301)
            let stale = try await client.call(.post, "/dashboard/api/users/\(userID)/links", json: [:], headers: session.withCSRF)
            #expect(stale["error"] == "fresh_check_required", "\(stale.json)")
            let fresh = try await harness.signIn(client, signCount: 1)
            let made = try await client.call(.post, "/dashboard/api/users/\(userID)/links", json: ["replacePasskeys": true], headers: fresh.withCSRF)
            #expect(made.status == .ok && made["replacesPasskeys"] == true, "\(made.json)")
            let token = try #require(made["token"]?.stringValue)
            #expect(made["url"]?.stringValue == "http://localhost:8080/#link=" + token)
            let options = try await client.call(.post, "/links/options", headers: ConnectHarness.bearer(token))
            #expect(options.status == .ok && options["replacesPasskeys"] == true, "\(options.json)")

            let revoked = try await client.call(.delete, "/dashboard/api/users/\(userID)/links", headers: fresh.withCSRF)
            #expect(revoked["revoked"] == 1, "\(revoked.json)")
            let refused = try await client.call(.post, "/links/options", headers: ConnectHarness.bearer(token))
            #expect(refused["error"] == "account_link_invalid")
            let events = try await client.call(.get, "/dashboard/api/events?user=eve", headers: fresh.headers)
            let kinds = events["events"]?.arrayValue?.compactMap { $0.objectValue?["kind"]?.stringValue } ?? []
            #expect(kinds.contains("admin.link_user") && kinds.contains("admin.unlink_user") && kinds.contains("link.options"), "\(kinds)")
            // The token is in no event.
            #expect(!events.json.serialized().contains(token))
        }
    }
}
