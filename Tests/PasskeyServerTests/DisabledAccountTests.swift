import Foundation
import Hummingbird
import HummingbirdTesting
@testable import PasskeyServer
import PasskeyStorage
import PasskeyWire
import Testing

/// Disabled accounts: the app's backend (`PATCH /users/{id}`) or an admin (`PATCH /dashboard/api/users/{id}`) disables
/// an account; it keeps its passkeys, but nothing signs in to it, adds a passkey to it or acts for it through a token
/// until it is enabled again.
@Suite("Disabled accounts")
struct DisabledAccountTests {
    /// `PATCH /users/{id}` from the app's backend.
    static func setDisabled(
        _ harness: ConnectHarness, _ client: any TestClientProtocol, _ id: String, _ disabled: Bool, by: String = "externalUserId"
    ) async throws -> JSONResponse {
        try await client.call(.patch, "/users/\(id)?by=\(by)", json: ["disabled": .bool(disabled)], headers: harness.backend)
    }

    @Test("a disabled account's passkey signs in to nothing, after its signature verified; nothing is recorded; enabled again, it signs in")
    func signInRefused() async throws {
        let harness = try await ConnectHarness()
        let device = try Device(server: harness.server)
        try await harness.server.run { client in
            let appended = try await harness.append(client, device: device)
            #expect(appended.status == .ok, "\(appended.json)")
            let userID = try #require(appended["userId"]?.stringValue)

            let disabled = try await Self.setDisabled(harness, client, "app-user-1", true)
            #expect(disabled.status == .ok, "\(disabled.json)")
            #expect(disabled["userId"]?.stringValue == userID && disabled["disabled"] == true && disabled["username"] == "ann@example.com")
            #expect(disabled["disabledAt"]?.stringValue == ISO8601DateFormatter().string(from: harness.server.clock.now))

            // Usernameless, by challenge key.
            let options = try await client.call(.get, "/generate-authentication-options")
            let refused = try await client.call(
                .post, "/verify-authentication",
                json: ["cred": try device.get(options.json, signCount: 5), "challengeKey": options["challengeKey"] ?? nil])
            #expect(refused.status == .forbidden && refused["error"] == "account_disabled", "\(refused.json)")
            #expect(refused["signedPasskeyData"] == nil && refused["userId"] == nil)
            // Nothing recorded: the counter and the last sign-in stay; the challenge is spent.
            let credential = try #require(await harness.server.repository.credentials(userID: userID).first)
            #expect(credential.signCount == 0 && credential.lastUsedAt == nil)
            #expect(await harness.server.repository.user(id: userID)?.lastSignInAt == nil)
            let again = try await client.call(
                .post, "/verify-authentication",
                json: ["cred": try device.get(options.json, signCount: 6), "challengeKey": options["challengeKey"] ?? nil])
            #expect(again["error"] == "challenge_invalid", "\(again.json)")

            // With a username, and on the app-backend guide's path.
            let named = try await client.call(.get, "/generate-authentication-options?username=ann@example.com")
            let namedAnswer = try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(named.json, signCount: 7)])
            #expect(namedAnswer.status == .forbidden && namedAnswer["error"] == "account_disabled", "\(namedAnswer.json)")
            let guide = try await client.call(.post, "/api/authentication-challenge", json: ["username": "ann@example.com"])
            let guideAnswer = try await client.call(
                .post, "/api/complete-authentication", json: ["assertion": try device.get(guide.json, signCount: 8), "username": "ann@example.com"])
            #expect(guideAnswer.status == .forbidden && guideAnswer["error"] == "account_disabled", "\(guideAnswer.json)")

            // Someone without the passkey learns nothing about the account: a wrong signature is refused as one.
            let probe = try await client.call(.get, "/generate-authentication-options")
            var forged = try device.get(probe.json, signCount: 9)
            if case .object(var object) = forged, case .object(var response)? = object["response"] {
                response["signature"] = .string(Base64URL.encode([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]))
                object["response"] = .object(response)
                forged = .object(object)
            }
            let forgedAnswer = try await client.call(.post, "/verify-authentication", json: ["cred": forged])
            #expect(forgedAnswer.status == .badRequest && forgedAnswer["error"] == "signature_invalid", "\(forgedAnswer.json)")

            let enabled = try await Self.setDisabled(harness, client, userID, false, by: "userId")
            #expect(enabled.status == .ok && enabled["disabled"] == false && enabled["disabledAt"] == .null, "\(enabled.json)")
            let signedIn = try await harness.signIn(client, device: device, signCount: 10)
            #expect(signedIn.status == .ok && signedIn["userId"]?.stringValue == userID, "\(signedIn.json)")
        }
    }

    @Test("a disabled account gets no connect token, its earlier tokens stop working, and its signedPasskeyData no longer verifies")
    func tokensRefused() async throws {
        let harness = try await ConnectHarness()
        let device = try Device(server: harness.server)
        try await harness.server.run { client in
            #expect(try await harness.append(client, device: device).status == .ok)
            let signedIn = try await harness.signIn(client, device: device, signCount: 1)
            let signedData = try #require(signedIn["signedPasskeyData"]?.stringValue)
            // A second sign-in whose token the backend verifies only after the account is enabled again.
            let later = try #require(try await harness.signIn(client, device: device, signCount: 2)["signedPasskeyData"]?.stringValue)
            let listToken = try await harness.token(client, "passkey-list")
            let appendToken = try await harness.token(client, "passkey-append")
            // Options made before the account was disabled.
            let pending = try await harness.appendOptions(client)
            #expect(pending.status == .ok)

            #expect(try await Self.setDisabled(harness, client, "app-user-1", true).status == .ok)

            for type in ["passkey-append", "passkey-list", "passkey-delete", "passkey-login"] {
                // With new names: a refused mint does not rename the account either.
                let minted = try await client.call(
                    .post, "/connect/tokens",
                    json: ["type": .string(type), "user": ["id": "app-user-1", "name": "mallory@example.com", "displayName": "Mallory"]],
                    headers: harness.backend)
                #expect(minted.status == .forbidden && minted["error"] == "account_disabled", "\(type): \(minted.json)")
            }
            let stored = try #require(try await harness.server.repository.user(externalID: "app-user-1"))
            #expect(stored.username == "ann@example.com" && stored.displayName == "Ann")
            // The log names the account of each refusal, and says which way each backend change went.
            let events = await harness.server.repository.events(matching: EventFilter(user: stored.id), before: nil, limit: 100)
            #expect(events.filter { $0.kind == "connect.token" && $0.code == "account_disabled" }.count == 4, "\(events.map(\.kind))")
            #expect(events.contains { $0.kind == "manage.update-user" && $0.result == .success && $0.explanation == "user disabled" })
            // The tokens minted before went with the disable.
            let listed = try await client.call(.get, "/connect/passkeys", headers: ConnectHarness.bearer(listToken))
            #expect(listed.status == .unauthorized && listed["error"] == "connect_token_invalid", "\(listed.json)")
            let options = try await client.call(.post, "/connect/append/options", json: [:], headers: ConnectHarness.bearer(appendToken))
            #expect(options.status == .unauthorized && options["error"] == "connect_token_invalid", "\(options.json)")
            // Options made before the disable were spent by it.
            let second = try Device(server: harness.server, credentialID: 0xc2)
            let completed = try await client.call(
                .post, "/connect/append/verify", json: ["challengeKey": pending["challengeKey"] ?? nil, "cred": second.create(pending.json)])
            #expect(completed.status == .badRequest && completed["error"] == "challenge_invalid", "\(completed.json)")
            #expect(try await harness.server.repository.credential(id: [UInt8](repeating: 0xc2, count: 32)) == nil)
            let verified = try await client.call(
                .post, "/connect/verify", json: ["signedPasskeyData": .string(signedData)], headers: harness.backend)
            #expect(verified.status == .forbidden && verified["error"] == "account_disabled", "\(verified.json)")

            // The backend still manages the account: its passkeys are listed.
            let passkeys = try await client.call(.get, "/users/app-user-1/passkeys", headers: harness.backend)
            #expect(passkeys.status == .ok && passkeys["passkeys"]?.arrayValue?.count == 1, "\(passkeys.json)")

            // Enabled again: the tokens minted before the disable stay gone; new ones work.
            #expect(try await Self.setDisabled(harness, client, "app-user-1", false).status == .ok)
            let old = try await client.call(.get, "/connect/passkeys", headers: ConnectHarness.bearer(listToken))
            #expect(old.status == .unauthorized && old["error"] == "connect_token_invalid", "\(old.json)")
            let fresh = try await harness.token(client, "passkey-list")
            #expect(try await client.call(.get, "/connect/passkeys", headers: ConnectHarness.bearer(fresh)).status == .ok)
            // A sign-in from before the disable does not count after it.
            let revoked = try await client.call(.post, "/connect/verify", json: ["signedPasskeyData": .string(later)], headers: harness.backend)
            #expect(revoked.status == .badRequest && revoked["error"] == "token_revoked", "\(revoked.json)")
            // A refusal does not use a token up: checked again, each is refused for its reason, never as a replay.
            for token in [signedData, later] {
                let again = try await client.call(.post, "/connect/verify", json: ["signedPasskeyData": .string(token)], headers: harness.backend)
                #expect(again.status == .badRequest && again["error"] == "token_revoked", "\(again.json)")
            }
            // One from after the enable does (a second later: iat is in whole seconds).
            harness.server.clock.advance(1)
            let renewed = try #require(try await harness.signIn(client, device: device, signCount: 3)["signedPasskeyData"]?.stringValue)
            let accepted = try await client.call(.post, "/connect/verify", json: ["signedPasskeyData": .string(renewed)], headers: harness.backend)
            #expect(accepted.status == .ok && accepted["success"] == true, "\(accepted.json)")
        }
    }

    @Test("an anonymous account's refused sign-in is in the event log under its user id")
    func anonymousEvent() async throws {
        let harness = try DashboardHarness()
        try await harness.server.run { client in
            let session = try await harness.setUp(client)
            let device = try Device(server: harness.server, credentialID: 0x12)
            let options = try await client.call(.get, "/generate-registration-options")
            let registered = try await client.call(
                .post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            let userID = try #require(registered["userId"]?.stringValue)
            #expect(registered["isAnonymous"] == true)
            _ = try await harness.server.repository.setUserDisabled(id: userID, disabledAt: harness.server.clock.now)
            let signIn = try await client.call(.get, "/generate-authentication-options")
            let refused = try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(signIn.json, signCount: 1)])
            #expect(refused["error"] == "account_disabled", "\(refused.json)")
            let events = try await client.call(.get, "/dashboard/api/events?result=failure", headers: session.headers)
            let event = events["events"]?.arrayValue?.first { $0.objectValue?["code"] == "account_disabled" }?.objectValue
            #expect(event?["userId"]?.stringValue == userID && event?["kind"] == "authentication.verify", "\(events.json)")
        }
    }

    @Test("PATCH /users/{id} needs the API key and a boolean, and names unknown accounts")
    func backendRequestErrors() async throws {
        let harness = try await ConnectHarness()
        let device = try Device(server: harness.server)
        try await harness.server.run { client in
            #expect(try await harness.append(client, device: device).status == .ok)
            let anonymous = try await client.call(.patch, "/users/app-user-1", json: ["disabled": true])
            #expect(anonymous.status == .unauthorized, "\(anonymous.json)")
            let missing = try await client.call(.patch, "/users/app-user-1", json: [:], headers: harness.backend)
            #expect(missing.status == .badRequest && missing["error"] == "field_missing", "\(missing.json)")
            let text = try await client.call(.patch, "/users/app-user-1", json: ["disabled": "yes"], headers: harness.backend)
            #expect(text.status == .badRequest && text["error"] == "field_invalid", "\(text.json)")
            let unknown = try await client.call(.patch, "/users/nobody", json: ["disabled": true], headers: harness.backend)
            #expect(unknown.status == .notFound && unknown["error"] == "user_not_found", "\(unknown.json)")
            #expect(try await harness.server.repository.user(externalID: "app-user-1")?.isDisabled == false)
        }
    }

    @Test("an admin disables and enables a user from the dashboard: recorded in the log, shown on the pages")
    func dashboard() async throws {
        let harness = try DashboardHarness()
        try await harness.server.run { client in
            let session = try await harness.setUp(client)
            let device = try Device(server: harness.server, credentialID: 0x11)
            let registered = try await harness.registerUser(client, "ann", device: device)
            let userID = try #require(registered["userId"]?.stringValue)

            let withoutCSRF = try await client.call(.patch, "/dashboard/api/users/\(userID)", json: ["disabled": true], headers: session.headers)
            #expect(withoutCSRF.status == .forbidden, "\(withoutCSRF.json)")
            #expect(await harness.server.repository.user(id: userID)?.isDisabled == false)

            let disabled = try await client.call(.patch, "/dashboard/api/users/\(userID)", json: ["disabled": true], headers: session.withCSRF)
            #expect(disabled.status == .ok && disabled["disabled"] == true && disabled["username"] == "ann", "\(disabled.json)")
            let page = String(buffer: try await client.execute(uri: "/dashboard/users/\(userID)", method: .get, headers: session.headers).body)
            #expect(page.contains("disabled since") && page.contains("Enable this user"))
            let list = String(buffer: try await client.execute(uri: "/dashboard/users", method: .get, headers: session.headers).body)
            #expect(list.contains("<td>disabled</td>"))
            let detail = try await client.call(.get, "/dashboard/api/users/\(userID)", headers: session.headers)
            #expect(detail["disabled"] == true, "\(detail.json)")

            let options = try await client.call(.get, "/generate-authentication-options")
            let refused = try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(options.json, signCount: 1)])
            #expect(refused["error"] == "account_disabled", "\(refused.json)")

            // Both ways need a recent passkey check of the admin: enabling lets the account sign in again.
            harness.server.clock.advance(301)
            let stale = try await client.call(.patch, "/dashboard/api/users/\(userID)", json: ["disabled": false], headers: session.withCSRF)
            #expect(stale.status == .forbidden && stale["error"] == "fresh_check_required", "\(stale.json)")
            let fresh = try await harness.signIn(client, signCount: 1)
            let enabled = try await client.call(.patch, "/dashboard/api/users/\(userID)", json: ["disabled": false], headers: fresh.withCSRF)
            #expect(enabled.status == .ok && enabled["disabled"] == false && enabled["passkeyCount"] == 1, "\(enabled.json)")
            let events = try await client.call(.get, "/dashboard/api/events?user=ann", headers: fresh.headers)
            let kinds = events["events"]?.arrayValue?.compactMap { $0.objectValue?["kind"]?.stringValue } ?? []
            #expect(kinds.contains("admin.disable_user") && kinds.contains("admin.enable_user"), "\(kinds)")
            #expect(events["events"]?.arrayValue?.contains { $0.objectValue?["code"] == "account_disabled" && $0.objectValue?["userId"]?.stringValue == userID } == true)

            let again = try await client.call(.get, "/generate-authentication-options")
            let signedIn = try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(again.json, signCount: 2)])
            #expect(signedIn.status == .ok, "\(signedIn.json)")
        }
    }
}
