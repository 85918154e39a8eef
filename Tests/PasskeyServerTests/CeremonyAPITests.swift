import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import PasskeyCore
@testable import PasskeyServer
import PasskeyStorage
import PasskeyTestSupport
import PasskeyWire
import PasskeyServerTestSupport
import Testing

@Suite("Ceremony API: the documented endpoints")
struct CeremonyAPITests {
    @Test("register a named user, then sign in with and without the username")
    func namedUser() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options?username=ann&displayName=Ann%20Lee")
            #expect(options.status == .ok)
            #expect(options["challengeKey"]?.stringValue?.isEmpty == false)
            #expect(options["rp"]?.objectValue?["id"] == "localhost")
            #expect(options["user"]?.objectValue?["name"] == "ann")
            #expect(options["user"]?.objectValue?["displayName"] == "Ann Lee")
            #expect(options["user"]?.objectValue?["id"]?.stringValue.flatMap(Base64URL.decode)?.count == 64)
            #expect(options["timeout"] == 60000)
            #expect(options["excludeCredentials"] == [])
            #expect(options["authenticatorSelection"]?.objectValue?["residentKey"] == "required")
            #expect(options["authenticatorSelection"]?.objectValue?["userVerification"] == "required")
            let algorithms = options["pubKeyCredParams"]?.arrayValue?.compactMap { $0.objectValue?["alg"]?.intValue } ?? []
            #expect(algorithms.contains(-7) && algorithms.contains(-8) && algorithms.contains(-257))
            #expect(options.headers[.cacheControl] == "no-store")

            let credential = device.create(options.json)
            let registered = try await client.call(
                .post, "/verify-registration", json: ["username": "ann", "challengeKey": options["challengeKey"] ?? nil, "cred": credential])
            #expect(registered.status == .ok, "\(registered.json)")
            #expect(registered["verified"] == true)
            #expect(registered["username"] == "ann")
            #expect(registered["isAnonymous"] == false)
            #expect(registered["credentialId"] == .string(Base64URL.encode(device.authenticator.credentialID)))
            let userID = registered["userId"]

            // Sign in with the username: allowCredentials names the passkey.
            let request = try await client.call(.get, "/generate-authentication-options?username=ANN")
            #expect(request.status == .ok)
            #expect(request["allowCredentials"]?.arrayValue?.first?.objectValue?["id"] == registered["credentialId"])
            #expect(request["rpId"] == "localhost")
            let signedIn = try await client.call(
                .post, "/verify-authentication", json: ["cred": try device.get(request.json, signCount: 1), "challengeKey": request["challengeKey"] ?? nil])
            #expect(signedIn.status == .ok, "\(signedIn.json)")
            #expect(signedIn["verified"] == true && signedIn["username"] == "ann" && signedIn["isAnonymous"] == false)
            #expect(signedIn["userId"] == userID)
            // The account's current names with the RP ID, for the device's passkey manager (WebAuthn L3 §5.1.10).
            #expect(signedIn["rpId"] == "localhost")
            let userHandle = try #require(options["user"]?.objectValue?["id"])
            #expect(signedIn["user"] == ["id": userHandle, "name": "ann", "displayName": "Ann Lee"])

            // Without a username: empty allowCredentials, and no challengeKey needed (found from the client data).
            let discoverable = try await client.call(.get, "/generate-authentication-options")
            #expect(discoverable["allowCredentials"] == [])
            let second = try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(discoverable.json, signCount: 2)])
            #expect(second.status == .ok, "\(second.json)")
            #expect(second["username"] == "ann")
        }
        let stored = await server.repository.credential(id: device.authenticator.credentialID)
        #expect(stored?.signCount == 2)
        #expect(stored?.lastUsedAt == server.clock.now)
    }

    @Test("without a username an anonymous account is created")
    func anonymous() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options")
            #expect(options["user"]?.objectValue?["name"]?.stringValue?.hasPrefix("anonymous-") == true)
            let registered = try await client.call(
                .post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            #expect(registered.status == .ok, "\(registered.json)")
            #expect(registered["isAnonymous"] == true)
            // The username is the name its passkey carries, always a string (clients decode it as one).
            #expect(registered["username"] == options["user"]?.objectValue?["name"])
            let request = try await client.call(.post, "/generate-authentication-options", json: [:])
            let signedIn = try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(request.json)])
            #expect(signedIn["verified"] == true && signedIn["isAnonymous"] == true && signedIn["username"] == options["user"]?.objectValue?["name"])
            #expect(signedIn["user"]?.objectValue?["name"] == options["user"]?.objectValue?["name"])
            // That name finds the account: named options list its passkey, and a sign-in by it answers the same.
            let name = try #require(options["user"]?.objectValue?["name"]?.stringValue)
            let named = try await client.call(.get, "/generate-authentication-options?username=" + name.uppercased())
            #expect(named["allowCredentials"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue } == [Base64URL.encode(device.authenticator.credentialID)])
            let byName = try await client.call(
                .post, "/verify-authentication", json: ["cred": try device.get(named.json, signCount: 2), "challengeKey": named["challengeKey"] ?? nil])
            #expect(byName["verified"] == true && byName["username"] == .string(name) && byName["isAnonymous"] == true, "\(byName.json)")
            // Nobody can register it, nor any name of the server's.
            let taken = try await client.call(.get, "/generate-registration-options?username=" + name)
            #expect(taken["error"] == "username_taken" || taken["error"] == "username_invalid", "\(taken.json)")
            let reserved = try await client.call(.get, "/generate-registration-options?username=Anonymous-Someone1")
            #expect(reserved["error"] == "username_invalid" && reserved["message"]?.stringValue?.contains("anonymous-") == true, "\(reserved.json)")
            // Other names with the prefix are anyone's.
            #expect(try await client.call(.get, "/generate-registration-options?username=anonymous-coward").status == .ok)
        }
    }

    @Test("options also come by POST with a JSON body")
    func postOptions() async throws {
        let server = TestServer()
        try await server.run { client in
            let options = try await client.call(.post, "/generate-registration-options", json: ["username": "bo", "displayName": "Bo"])
            #expect(options.status == .ok)
            #expect(options["user"]?.objectValue?["displayName"] == "Bo")
            // The GET form's query string works by POST too, instead of silently giving anonymous options.
            let queried = try await client.call(.post, "/generate-registration-options?username=cy&displayName=Cy+Lee")
            #expect(queried.status == .ok && queried["user"]?.objectValue?["name"] == "cy" && queried["user"]?.objectValue?["displayName"] == "Cy Lee")
            let both = try await client.call(.post, "/generate-registration-options?username=cy", json: ["username": "cy"])
            #expect(both.status == .ok && both["user"]?.objectValue?["name"] == "cy")
            let differ = try await client.call(.post, "/generate-registration-options?username=cy", json: ["username": "dee"])
            #expect(differ.status == .badRequest && differ["error"] == "field_invalid")
            let signIn = try await client.call(.post, "/generate-authentication-options?username=cy", json: ["username": "dee"])
            #expect(signIn.status == .badRequest && signIn["error"] == "field_invalid")
            let unknown = try await client.call(.post, "/generate-authentication-options?username=cy")
            #expect(unknown.status == .ok && unknown["allowCredentials"]?.arrayValue?.isEmpty == false)  // a name's options, not discoverable ones
        }
    }

    @Test("an existing username cannot be registered again without that account's authorization")
    func existingUsername() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options?username=ann")
            _ = try await client.call(.post, "/verify-registration", json: ["username": "ann", "challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            let again = try await client.call(.get, "/generate-registration-options?username=Ann")
            #expect(again.status == .conflict)
            #expect(again["error"] == "username_taken")
        }
    }

    @Test("a credential already registered is refused, whoever registers it")
    func duplicateCredential() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let first = try await client.call(.get, "/generate-registration-options?username=ann")
            _ = try await client.call(.post, "/verify-registration", json: ["challengeKey": first["challengeKey"] ?? nil, "cred": device.create(first.json)])
            let second = try await client.call(.get, "/generate-registration-options?username=mallory")
            let refused = try await client.call(.post, "/verify-registration", json: ["challengeKey": second["challengeKey"] ?? nil, "cred": device.create(second.json)])
            #expect(refused.status == .conflict)
            #expect(refused["error"] == "credential_exists")
        }
        #expect(await server.repository.user(username: "mallory") == nil)
    }

    @Test("unknown usernames get deterministic fake allowCredentials")
    func unknownUsername() async throws {
        let server = TestServer()
        try await server.run { client in
            let a = try await client.call(.get, "/generate-authentication-options?username=nobody")
            let b = try await client.call(.get, "/generate-authentication-options?username=nobody")
            #expect(a.status == .ok)
            let idsA = a["allowCredentials"]?.arrayValue ?? []
            #expect(!idsA.isEmpty && idsA == b["allowCredentials"]?.arrayValue)
            #expect(a["challenge"] != b["challenge"])
            // Across many names the fakes look like real entries: several ID lengths, transports sorted as browsers
            // report them, never one shape that would mark an answer as fake.
            var lengths = Set<Int>()
            var transportLists = Set<[String]>()
            var counts = Set<Int>()
            for index in 0..<40 {
                let options = try await client.call(.get, "/generate-authentication-options?username=probe\(index)")
                let entries = options["allowCredentials"]?.arrayValue ?? []
                counts.insert(entries.count)
                for entry in entries {
                    lengths.insert(Base64URL.decode(entry.objectValue?["id"]?.stringValue ?? "")?.count ?? 0)
                    // No transports (a passkey whose client did not report them) is one of the shapes: the member is left out.
                    let transports = (entry.objectValue?["transports"]?.arrayValue ?? []).compactMap(\.stringValue)
                    #expect(transports == transports.sorted())
                    #expect(entry.objectValue?["transports"]?.arrayValue?.isEmpty != true)
                    transportLists.insert(transports)
                }
            }
            #expect(lengths.isSubset(of: [16, 20, 32, 64]) && lengths.count >= 3, "\(lengths)")
            #expect(transportLists.count >= 4 && transportLists.contains([]), "\(transportLists)")
            #expect(counts.isSubset(of: [1, 2, 3]) && counts.count >= 2, "\(counts)")
            // An account without passkeys (as the connect flow makes them) answers like an unknown name, not with an
            // empty list that would tell that the account exists.
            _ = try await server.repository.linkedUser(
                externalID: "app-user-9", orCreate: UserRecord(userHandle: [9], username: "nopasskey", displayName: "N", isAnonymous: false, createdAt: Date()))
            let bare = try await client.call(.get, "/generate-authentication-options?username=nopasskey")
            let again = try await client.call(.get, "/generate-authentication-options?username=nopasskey")
            #expect(bare["allowCredentials"]?.arrayValue?.isEmpty == false && bare["allowCredentials"] == again["allowCredentials"])
        }
    }

    @Test("challenges are single use and expire")
    func challengeLifecycle() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options?username=ann")
            let credential = device.create(options.json)
            // A failed verification consumes the challenge too.
            let wrongOrigin = device.create(options.json, origin: "https://evil.example")
            let failed = try await client.call(.post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": wrongOrigin])
            #expect(failed.status == .badRequest)
            #expect(failed["error"] == "origin_mismatch")
            #expect(failed.object.count == 2 && failed["message"]?.stringValue?.isEmpty == false)
            let replay = try await client.call(.post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": credential])
            #expect(replay.status == .badRequest)
            #expect(replay["error"] == "challenge_invalid")

            let late = try await client.call(.get, "/generate-registration-options?username=bo")
            server.clock.advance(61)
            let expired = try await client.call(.post, "/verify-registration", json: ["challengeKey": late["challengeKey"] ?? nil, "cred": device.create(late.json)])
            #expect(expired["error"] == "challenge_invalid")
        }
    }

    @Test("failures are logged by code with expected and received values, but never a challenge")
    func failureLogs() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        let capture = LogCapture()
        try await server.run(logger: capture.logger) { client in
            let options = try await client.call(.get, "/generate-registration-options?username=ann")
            let wrongOrigin = device.create(options.json, origin: "https://evil.example")
            _ = try await client.call(.post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": wrongOrigin])

            let second = try await client.call(.get, "/generate-registration-options?username=bo")
            let issued = second["challenge"]?.stringValue ?? ""
            var stale = second.json.objectValue ?? [:]
            stale["challenge"] = .string(Base64URL.encode([UInt8](repeating: 1, count: 32)))
            let replayed = device.create(.object(stale))
            let refused = try await client.call(.post, "/verify-registration", json: ["challengeKey": second["challengeKey"] ?? nil, "cred": replayed])
            #expect(refused["error"] == "challenge_mismatch")
            let lines = capture.lines.filter { $0.contains("ceremony failed") }
            #expect(lines.contains { $0.contains("code=origin_mismatch") && $0.contains("https://evil.example") && $0.contains("http://localhost:8080") })
            #expect(lines.contains { $0.contains("code=challenge_mismatch") })
            #expect(!capture.lines.contains { $0.contains(issued) || $0.contains(Base64URL.encode([UInt8](repeating: 1, count: 32))) })
            #expect(!lines.isEmpty && lines.allSatisfy { $0.contains("request_id=") })  // each failure can be tied to its request
        }
    }

    @Test("stored ceremonies (adding a passkey) are bounded: past the limit their options get 503 busy, and expired ones make room again; a new account's registration options and sign-in options store nothing and are never refused")
    func pendingLimit() async throws {
        let harness = try await ConnectHarness { $0.maximumPendingChallenges = 3 }
        let server = harness.server
        try await server.run { client in
            for index in 0..<3 {
                let options = try await harness.appendOptions(client, externalID: "app-user-\(index)", name: "user\(index)@example.com")
                #expect(options.status == .ok, "\(options.json)")
            }
            let busy = try await harness.appendOptions(client, externalID: "app-user-9", name: "user9@example.com")
            #expect(busy.status == .serviceUnavailable)
            #expect(busy["error"] == "busy")
            // A new account's registration and a sign-in seal their challenge: their options write nothing, so they take
            // no room.
            for name in ["ann", "bo", "cy", "dee", "ed"] {
                #expect(try await client.call(.get, "/generate-registration-options?username=\(name)").status == .ok)
            }
            for _ in 0..<5 { #expect(try await client.call(.get, "/generate-authentication-options").status == .ok) }
            #expect(try await client.call(.get, "/generate-authentication-options?username=ann").status == .ok)
            #expect(await server.repository.challengeCount() == 3)
            server.clock.advance(61)  // the three expire and are purged on the next count
            #expect(try await harness.appendOptions(client, externalID: "app-user-9", name: "user9@example.com").status == .ok)
        }
        #expect(await server.repository.challengeCount() == 1)
    }

    @Test("a registration challenge cannot answer a sign-in")
    func ceremonyBinding() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let registration = try await client.call(.get, "/generate-registration-options?username=ann")
            _ = try await client.call(.post, "/verify-registration", json: ["challengeKey": registration["challengeKey"] ?? nil, "cred": device.create(registration.json)])
            let other = try await client.call(.get, "/generate-registration-options?username=bo")
            let signIn = try await client.call(.post, "/verify-authentication", json: ["challengeKey": other["challengeKey"] ?? nil, "cred": try device.get(other.json)])
            #expect(signIn["error"] == "challenge_invalid")
        }
    }

    @Test("sign-in errors: counter regression, another user's passkey, unknown passkey, user verification")
    func signInErrors() async throws {
        let server = TestServer()
        let ann = try Device(server: server, credentialID: 1)
        let bo = try Device(server: server, credentialID: 2)
        try await server.run { client in
            for (name, device) in [("ann", 1), ("bo", 2)] {
                let options = try await client.call(.get, "/generate-registration-options?username=\(name)")
                let credential = device == 1 ? ann.create(options.json) : bo.create(options.json)
                let done = try await client.call(.post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": credential])
                #expect(done.status == .ok)
            }
            var request = try await client.call(.get, "/generate-authentication-options")
            _ = try await client.call(.post, "/verify-authentication", json: ["cred": try ann.get(request.json, signCount: 5)])
            request = try await client.call(.get, "/generate-authentication-options")
            let regressed = try await client.call(.post, "/verify-authentication", json: ["cred": try ann.get(request.json, signCount: 5)])
            #expect(regressed["error"] == "counter_regressed")
            // Nothing moved, and the challenge is spent: the same options answered again with a good counter are refused.
            #expect(await server.repository.credential(id: ann.authenticator.credentialID)?.signCount == 5)
            let retried = try await client.call(
                .post, "/verify-authentication", json: ["cred": try ann.get(request.json, signCount: 6), "challengeKey": request["challengeKey"] ?? nil])
            #expect(retried.status == .badRequest && retried["error"] == "challenge_invalid", "\(retried.json)")
            #expect(await server.repository.credential(id: ann.authenticator.credentialID)?.signCount == 5)

            // Options for a name nobody has look like anyone's, and ann's passkey cannot answer them.
            request = try await client.call(.get, "/generate-authentication-options?username=nobody")
            #expect(request.status == .ok && request["allowCredentials"]?.arrayValue?.isEmpty == false)
            let unknownName = try await client.call(
                .post, "/verify-authentication", json: ["cred": try ann.get(request.json, signCount: 7), "challengeKey": request["challengeKey"] ?? nil])
            #expect(unknownName["error"] == "credential_not_allowed", "\(unknownName.json)")
            #expect(await server.repository.credential(id: ann.authenticator.credentialID)?.signCount == 5)

            request = try await client.call(.get, "/generate-authentication-options?username=ann")
            let foreign = try await client.call(.post, "/verify-authentication", json: ["cred": try bo.get(request.json, signCount: 1)])
            #expect(foreign["error"] == "credential_not_allowed")

            let stranger = try Device(server: server, credentialID: 9)
            stranger.authenticator.userHandle = [1]
            request = try await client.call(.get, "/generate-authentication-options")
            let unknown = try await client.call(.post, "/verify-authentication", json: ["cred": try stranger.get(request.json)])
            #expect(unknown["error"] == "credential_unknown")

            // A rawId that is not the id: reported as such, not as a passkey deleted here (which makes clients forget it).
            for rawId in ["AAAAAAAAAAAAAAAAAAAAAA", ""] {
                request = try await client.call(.get, "/generate-authentication-options")
                guard case .object(var cred) = try ann.get(request.json, signCount: 9) else { Issue.record("not an object"); return }
                cred["rawId"] = .string(rawId)
                let mismatch = try await client.call(.post, "/verify-authentication", json: ["cred": .object(cred)])
                #expect(mismatch.status == .badRequest && mismatch["error"] == "credential_id_mismatch", "\(rawId): \(mismatch.json)")
            }
        }
    }

    @Test("options take no policy from the request: user verification, attachment and algorithms stay the server's")
    func noDowngradeFromTheClient() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let asked: JSONValue = [
                "username": "ann", "userVerification": "discouraged", "attestation": "direct", "timeout": 600000,
                "authenticatorSelection": ["userVerification": "discouraged", "residentKey": "discouraged"],
                "pubKeyCredParams": [["type": "public-key", "alg": -65535]],
            ]
            let options = try await client.call(.post, "/generate-registration-options", json: asked)
            #expect(options.status == .ok)
            #expect(options["authenticatorSelection"]?.objectValue?["userVerification"] == "required")
            #expect(options["authenticatorSelection"]?.objectValue?["residentKey"] == "required")
            #expect(options["attestation"] == "none" && options["timeout"] == 60000)
            #expect(options["pubKeyCredParams"]?.arrayValue?.contains { $0.objectValue?["alg"] == -65535 } == false)
            // And a response without user verification is refused, as the policy says.
            let unverified = device.create(options.json, flags: [.userPresent])
            let refused = try await client.call(
                .post, "/verify-registration", json: ["username": "ann", "challengeKey": options["challengeKey"] ?? nil, "cred": unverified])
            #expect(refused.status == .badRequest && refused["error"] == "user_verification_required", "\(refused.json)")

            let request = try await client.call(.post, "/generate-authentication-options", json: ["userVerification": "discouraged"])
            #expect(request["userVerification"] == "required")
        }
    }

    @Test("a hostile display name is cleaned and bounded before it reaches options or storage")
    func hostileDisplayName() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let hostile = "Ann\u{202E}gnp.exe\n\u{0}" + String(repeating: "x", count: 10_000)
            let options = try await client.call(.post, "/generate-registration-options", json: ["username": "ann", "displayName": .string(hostile)])
            #expect(options.status == .ok, "\(options.json)")
            let shown = try #require(options["user"]?.objectValue?["displayName"]?.stringValue)
            #expect(shown.hasPrefix("Anngnp.exe"))
            #expect(shown.unicodeScalars.count <= 64 && shown.utf8.count <= 256)
            #expect(!shown.unicodeScalars.contains { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format })
            let done = try await client.call(
                .post, "/verify-registration", json: ["username": "ann", "challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            #expect(done.status == .ok, "\(done.json)")
            #expect(await server.repository.user(username: "ann")?.displayName == shown)
        }
    }

    @Test("the stored key is the one in authenticator data, whatever the response's convenience members say")
    func keyFromAuthenticatorData() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        let other = try TestAuthenticator()
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options?username=ann")
            guard case .object(var cred) = device.create(options.json), case .object(var response)? = cred["response"] else {
                Issue.record("not an object")
                return
            }
            response["publicKey"] = .string(Base64URL.encode(other.key.coseKey.encoded))
            response["publicKeyAlgorithm"] = -8
            cred["response"] = .object(response)
            let done = try await client.call(
                .post, "/verify-registration", json: ["username": "ann", "challengeKey": options["challengeKey"] ?? nil, "cred": .object(cred)])
            #expect(done.status == .ok, "\(done.json)")
            let stored = try #require(await server.repository.credential(id: device.authenticator.credentialID))
            #expect(stored.publicKey == device.authenticator.key.coseKey.encoded)
            #expect(stored.algorithm == -7)
        }
    }

    @Test("backup eligibility that changed after registration: refused by default, accepted with the setting, stored value kept")
    func backupEligibilityChange() async throws {
        for allow in [false, true] {
            let server = TestServer { $0.allowBackupEligibilityChange = allow }
            let device = try Device(server: server)
            try await server.run { client in
                let options = try await client.call(.get, "/generate-registration-options?username=ann")
                let registered = try await client.call(
                    .post, "/verify-registration", json: ["username": "ann", "challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
                #expect(registered.status == .ok)
                // The same passkey now says it is backup eligible (and backed up): a password manager that changed BE.
                let request = try await client.call(.get, "/generate-authentication-options?username=ann")
                let challenge = request["challenge"]?.stringValue ?? ""
                let clientData = TestAuthenticator.clientData(type: "webauthn.get", challenge: challenge, origin: device.origin)
                let rpID = device.rpID
                let authData = device.authenticator.authData(for: "get") {
                    $0.rpID = rpID
                    $0.signCount = 1
                    $0.flags.formUnion([.backupEligible, .backupState])
                }.build()
                let assertion = try device.authenticator.assertion(authData: authData, clientData: clientData).json
                let answer = try await client.call(
                    .post, "/verify-authentication", json: ["cred": assertion, "challengeKey": request["challengeKey"] ?? nil])
                if allow {
                    #expect(answer.status == .ok, "\(answer.json)")
                    let stored = try #require(await server.repository.credential(id: device.authenticator.credentialID))
                    #expect(!stored.backupEligible && stored.backupState && stored.signCount == 1)
                } else {
                    #expect(answer.status == .badRequest && answer["error"] == "backup_eligibility_changed", "\(answer.json)")
                }
            }
        }
    }

    @Test("a counter that did not increase: refused by default; with the setting accepted and flagged in the answer, the token and the event, the stored counter kept")
    func counterRegression() async throws {
        for allow in [false, true] {
            let server = TestServer { $0.allowCounterRegression = allow }
            let device = try Device(server: server)
            try await server.run { client in
                let options = try await client.call(.get, "/generate-registration-options?username=ann")
                let registered = try await client.call(
                    .post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
                #expect(registered.status == .ok)
                let first = try await client.call(.get, "/generate-authentication-options")
                let moved = try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(first.json, signCount: 5)])
                #expect(moved.status == .ok && moved["counterRegressed"] == nil, "an increasing counter is not flagged: \(moved.json)")

                let second = try await client.call(.get, "/generate-authentication-options")
                let regressed = try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(second.json, signCount: 3)])
                let stored = try #require(await server.repository.credential(id: device.authenticator.credentialID))
                #expect(stored.signCount == 5, "the stored counter is not moved back")
                guard allow else {
                    #expect(regressed.status == .badRequest && regressed["error"] == "counter_regressed", "\(regressed.json)")
                    return
                }
                #expect(regressed.status == .ok && regressed["counterRegressed"] == true, "\(regressed.json)")
                let jwks = try await client.call(.get, "/.well-known/jwks.json")
                let claims = try #require(verifyJWS(regressed["signedPasskeyData"]?.stringValue ?? "", jwks: jwks.json))
                #expect(claims["counter_regressed"] == true)
                let earlier = try #require(verifyJWS(moved["signedPasskeyData"]?.stringValue ?? "", jwks: jwks.json))
                #expect(earlier["counter_regressed"] == nil, "absent from ordinary sign-ins")
                let events = await server.repository.events(matching: EventFilter(result: .success), before: nil, limit: 10)
                #expect(events.contains { $0.kind == "authentication.verify" && $0.explanation?.contains("counter did not increase") == true })
                // The boundary: the same value again is no increase either.
                let third = try await client.call(.get, "/generate-authentication-options")
                let equal = try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(third.json, signCount: 5)])
                #expect(equal.status == .ok && equal["counterRegressed"] == true, "\(equal.json)")
                // The app-backend guide's path says it in its user object.
                let guide = try await client.call(.post, "/api/authentication-challenge", json: ["username": "ann"])
                let completed = try await client.call(
                    .post, "/api/complete-authentication", json: ["assertion": try device.get(guide.json, signCount: 2), "username": "ann"])
                #expect(completed.status == .ok && completed["username"] == "ann" && completed["counterRegressed"] == true, "\(completed.json)")
                let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
                #expect(metrics.contains("passkey_counter_regressions_accepted_total 3"), "each accepted regression is counted: \(metrics.suffix(600))")
            }
        }
    }

    @Test("--allow-counter-regression does not cover the dashboard's admin passkeys")
    func counterRegressionNotForAdmins() async throws {
        let harness = try DashboardHarness { $0.allowCounterRegression = true }
        try await harness.server.run { client in
            _ = try await harness.setUp(client)
            // The setting is in force for users: a user's passkey whose counter went back signs in.
            let device = try Device(server: harness.server, credentialID: 0x21)
            #expect(try await harness.registerUser(client, "ann", device: device).status == .ok)
            for count: UInt32 in [3, 1] {
                let options = try await client.call(.get, "/generate-authentication-options")
                let answer = try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(options.json, signCount: count)])
                #expect(answer.status == .ok && (count == 3 || answer["counterRegressed"] == true), "\(answer.json)")
            }
            _ = try await harness.signIn(client, signCount: 4)
            let options = try await client.call(.post, "/dashboard/api/login/options")
            let refused = try await client.call(
                .post, "/dashboard/api/login/verify",
                json: ["challengeKey": options["challengeKey"] ?? nil, "cred": try harness.admin.get(options.json, signCount: 2)])
            #expect(refused.status == .badRequest && refused["error"] == "counter_regressed", "\(refused.json)")
        }
    }

    @Test("malformed requests get 4xx JSON errors, never a 500")
    func malformed() async throws {
        let server = TestServer { $0.maximumBodySize = 2048 }
        try await server.run { client in
            let notJSON = try await client.call(.post, "/verify-registration", raw: "{not json")
            #expect(notJSON.status == .badRequest && notJSON["error"] == "json_malformed")
            // Valid JSON that is refused says why, so a developer does not hunt for a syntax error.
            let twice = try await client.call(.post, "/generate-registration-options", raw: #"{"username":"ann","username":"bo"}"#)
            #expect(twice["error"] == "json_malformed", "\(twice.json)")
            #expect(twice["message"] == "The request body is not JSON this server accepts: member name given twice (at byte 18).", "nothing of the body quoted back")
            let deep = try await client.call(.post, "/generate-registration-options", raw: String(repeating: "[", count: 40) + String(repeating: "]", count: 40))
            #expect(deep["error"] == "json_malformed" && deep["message"]?.stringValue?.contains("nesting deeper than 32") == true, "\(deep.json)")
            let missing = try await client.call(.post, "/verify-registration", json: ["username": "ann"])
            #expect(missing.status == .badRequest && missing["error"] == "field_missing")
            let wrongType = try await client.call(.post, "/verify-authentication", json: ["cred": 42])
            #expect(wrongType.status == .badRequest && wrongType["error"] == "field_invalid")
            #expect(wrongType["message"] == "A member has the wrong type or value (cred).")
            // Members inside the credential are named by their whole path.
            let inner = try await client.call(
                .post, "/verify-authentication", json: ["cred": .object(["id": "x", "rawId": "x", "type": "public-key", "response": .object([:])])])
            #expect(inner["error"] == "field_missing")
            #expect(inner["message"] == "A required member is missing (cred.response.clientDataJSON).")
            let wrapped = try await client.call(
                .post, "/verify-authentication",
                json: ["cred": .object(["credential": .object(["id": "x", "rawId": "x", "type": "public-key", "response": .object([:])])])])
            #expect(wrapped["message"] == "A required member is missing (cred.credential.response.clientDataJSON).")
            for body in ["[]", "null", "\"cred\""] {
                let notObject = try await client.call(.post, "/verify-authentication", raw: body)
                #expect(notObject.status == .badRequest && notObject["error"] == "field_invalid", "\(body)")
                #expect(notObject["message"]?.stringValue?.hasPrefix("The request body must be a JSON object") == true, "\(body)")
            }
            let badBase64 = try await client.call(
                .post, "/verify-authentication",
                json: ["cred": .object(["id": "x", "type": "public-key", "response": .object(["clientDataJSON": "%%%", "authenticatorData": "", "signature": ""])])])
            #expect(badBase64.status == .badRequest && badBase64["error"] == "invalid_base64url")
            let huge = try await client.call(.post, "/verify-registration", raw: String(repeating: " ", count: 5000))
            #expect(huge.status == .contentTooLarge && huge["error"] == "request_too_large")
            let badName = try await client.call(.get, "/generate-registration-options?username=\(String(repeating: "a", count: 65))")
            #expect(badName.status == .badRequest && badName["error"] == "username_invalid")
            let notFound = try await client.call(.get, "/no-such-route")
            #expect(notFound.status == .notFound && notFound["error"] == "not_found")
        }
    }

    @Test("client data that cannot be read is invalid_base64url with a challengeKey too, and leaves the ceremony usable")
    func unreadableClientData() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options?username=ann")
            _ = try await client.call(.post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            let signIn = try await client.call(.get, "/generate-authentication-options?username=ann")
            let good = try device.get(signIn.json, signCount: 1)
            for broken in ["!!!!", (good.objectValue?["response"]?.objectValue?["clientDataJSON"]?.stringValue ?? "") + "===="] {
                guard case .object(var cred) = good, case .object(var response) = cred["response"] else { Issue.record("no response"); return }
                response["clientDataJSON"] = .string(broken)
                cred["response"] = .object(response)
                let refused = try await client.call(.post, "/verify-authentication", json: ["challengeKey": signIn["challengeKey"] ?? nil, "cred": .object(cred)])
                #expect(refused.status == .badRequest && refused["error"] == "invalid_base64url", "\(broken): \(refused.json)")
            }
            let verified = try await client.call(.post, "/verify-authentication", json: ["challengeKey": signIn["challengeKey"] ?? nil, "cred": good])
            #expect(verified.status == .ok && verified["username"] == "ann", "\(verified.json)")
        }
    }

    @Test("of 50 simultaneous verifications of one challenge exactly one succeeds")
    func concurrentVerification() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options?username=ann")
            let body: JSONValue = ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)]
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<50 { group.addTask { try await client.call(.post, "/verify-registration", json: body).status.code } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == 400 }.count == 49)
        }
    }

    @Test("options endpoints are throttled per client with 429")
    func rateLimit() async throws {
        let server = TestServer { $0.optionsPerMinute = 3 }
        try await server.run { client in
            var statuses: [Int] = []
            for _ in 0..<5 { statuses.append(try await client.call(.get, "/generate-authentication-options").status.code) }
            #expect(statuses == [200, 200, 200, 429, 429])
            let limited = try await client.call(.get, "/generate-registration-options")
            #expect(limited["error"] == "rate_limited")
        }
    }
}

@Suite("App-backend API (/api/…)")
struct AppBackendAPITests {
    @Test("registration and sign-in through the /api paths return the user object")
    func apiFlow() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let options = try await client.call(.post, "/api/registration-challenge", json: ["username": "ann@example.com", "displayName": "Ann"])
            #expect(options.status == .ok)
            #expect(Set(options.object.members.map(\.name)).isSuperset(of: ["challenge", "rp", "user", "pubKeyCredParams", "timeout", "attestation", "authenticatorSelection", "excludeCredentials"]))
            let user = try await client.call(
                .post, "/api/complete-registration", json: ["credential": .object(["credential": device.create(options.json)]), "username": "ann@example.com"])
            #expect(user.status == .ok, "\(user.json)")
            #expect(user["username"] == "ann@example.com" && user["email"] == "ann@example.com" && user["displayName"] == "Ann")
            #expect(user["id"]?.stringValue?.isEmpty == false && user["createdAt"]?.stringValue?.hasSuffix("Z") == true)
            // The proof for a backend of the app's own: the user object the device forwards proves nothing.
            let jwks = try await client.call(.get, "/.well-known/jwks.json")
            let registered = try #require(verifyJWS(user["signedPasskeyData"]?.stringValue ?? "", jwks: jwks.json))
            #expect(registered["ceremony"] == "registration" && registered["sub"] == user["id"])

            let request = try await client.call(.post, "/api/start-authentication", json: ["username": "ann@example.com"])
            #expect(Set(request.object.members.map(\.name)) == ["challenge", "rpId", "allowCredentials", "timeout", "userVerification"])
            let signedIn = try await client.call(.post, "/api/complete-authentication", json: ["assertion": try device.get(request.json, signCount: 3)])
            #expect(signedIn["id"] == user["id"])
            let signedInClaims = try #require(verifyJWS(signedIn["signedPasskeyData"]?.stringValue ?? "", jwks: jwks.json))
            #expect(signedInClaims["ceremony"] == "authentication" && signedInClaims["sub"] == user["id"])
            let other = try await client.call(.post, "/api/start-authentication", json: [:])
            let wrongName = try await client.call(.post, "/api/complete-authentication", json: ["assertion": try device.get(other.json, signCount: 4), "username": "bo"])
            #expect(wrongName["error"] == "username_mismatch")
            // Refused before anything was recorded: the counter did not move, so the same counter signs in now.
            let again = try await client.call(.post, "/api/start-authentication", json: [:])
            let retried = try await client.call(
                .post, "/api/complete-authentication", json: ["assertion": try device.get(again.json, signCount: 4), "username": "Ann@example.com"])
            #expect(retried["id"] == user["id"], "\(retried.json)")
        }
    }
}

@Suite("Files for apps, web headers, health")
struct ServerSurfaceTests {
    @Test("apple-app-site-association, assetlinks.json and webauthn are JSON, from the configuration")
    func wellKnown() async throws {
        let fingerprint = Array(repeating: "AB", count: 32).joined(separator: ":")
        let server = TestServer {
            $0.rpID = "example.com"
            $0.origins = ["https://www.example.com", "https://example.com"]
            $0.relatedOrigins = ["https://example.co.uk"]
            $0.appleAppIDs = ["ABCDE12345.com.example.app"]
            $0.androidApps = [.init(packageName: "com.example.app", sha256Fingerprints: [fingerprint])]
        }
        try await server.run { client in
            let aasa = try await client.call(.get, "/.well-known/apple-app-site-association")
            #expect(aasa.status == .ok && aasa.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(aasa["webcredentials"]?.objectValue?["apps"] == ["ABCDE12345.com.example.app"])
            let links = try await client.call(.get, "/.well-known/assetlinks.json")
            let target = links.json.arrayValue?.first?.objectValue?["target"]?.objectValue
            #expect(target?["package_name"] == "com.example.app")
            #expect(target?["sha256_cert_fingerprints"] == [.string(fingerprint)])
            let related = try await client.call(.get, "/.well-known/webauthn")
            #expect(related["origins"] == ["https://www.example.com", "https://example.com", "https://example.co.uk"])
        }
        // The Android app's origin is accepted.
        #expect(server.configuration.effectiveOrigins.contains("android:apk-key-hash:" + Base64URL.encode([UInt8](repeating: 0xab, count: 32))))
    }

    @Test("CORS answers configured web origins only, preflight included")
    func cors() async throws {
        let server = TestServer()
        try await server.run { client in
            let allowed = try await client.call(.get, "/generate-authentication-options", headers: [.origin: "http://localhost:8080"])
            #expect(allowed.headers[.accessControlAllowOrigin] == "http://localhost:8080")
            let other = try await client.call(.get, "/generate-authentication-options", headers: [.origin: "https://evil.example"])
            #expect(other.headers[.accessControlAllowOrigin] == nil)
            let preflight = try await client.call(
                .options, "/verify-authentication",
                headers: [.origin: "http://localhost:8080", .accessControlRequestMethod: "POST", .accessControlRequestHeaders: "content-type"])
            #expect(preflight.status == .noContent)
            #expect(preflight.headers[.accessControlAllowMethods]?.contains("POST") == true)
            // The connect endpoints' methods and their bearer token pass a preflight too.
            let manage = try await client.call(
                .options, "/connect/passkeys/abc",
                headers: [.origin: "http://localhost:8080", .accessControlRequestMethod: "PATCH", .accessControlRequestHeaders: "authorization, content-type"])
            let methods = manage.headers[.accessControlAllowMethods] ?? ""
            #expect(methods.contains("PATCH") && methods.contains("DELETE"))
            #expect(manage.headers[.accessControlAllowHeaders]?.contains("authorization") == true)
            // Errors carry the CORS headers, so browser code can read their JSON.
            let missing = try await client.call(.get, "/no-such-route", headers: [.origin: "http://localhost:8080"])
            #expect(missing.status == .notFound && missing["error"] == "not_found")
            #expect(missing.headers[.accessControlAllowOrigin] == "http://localhost:8080")
            let bad = try await client.call(.post, "/verify-authentication", raw: "{", headers: [.origin: "http://localhost:8080"])
            #expect(bad.status == .badRequest && bad.headers[.accessControlAllowOrigin] == "http://localhost:8080")
            // Every answer varies by Origin, with CORS headers or without, errors included.
            #expect(other.headers[values: .vary].contains("Origin"))
            #expect(allowed.headers[values: .vary].contains("Origin"))
            let plainMissing = try await client.call(.get, "/no-such-route")
            #expect(plainMissing.status == .notFound && plainMissing.headers[values: .vary].contains("Origin"))
            let plainWrongMethod = try await client.call(.delete, "/health", headers: [.origin: "https://evil.example"])
            #expect(plainWrongMethod.status == .methodNotAllowed && plainWrongMethod.headers[values: .vary].contains("Origin"))
        }
    }

    @Test("usernames are NFC and case-insensitive in every script: a decomposed accent or other case names the same account; bytes that are not UTF-8 are refused")
    func usernameNormalization() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            // "Émile" typed as E + combining acute accent.
            let options = try await client.call(.get, "/generate-registration-options?username=E%CC%81mile")
            let registered = try await client.call(
                .post, "/verify-registration",
                json: ["username": "E\u{301}mile", "challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            #expect(registered.status == .ok, "\(registered.json)")
            #expect(registered["username"]?.stringValue?.unicodeScalars.elementsEqual("\u{C9}mile".unicodeScalars) == true)
            // The precomposed spelling is the same account, taken.
            let again = try await client.call(.get, "/generate-registration-options?username=%C3%89mile")
            #expect(again["error"] == "username_taken")
            // Case does not matter in any script: "émile" is taken, and sign-in as "ÉMILE" offers the account's passkey.
            let lower = try await client.call(.get, "/generate-registration-options?username=%C3%A9mile")
            #expect(lower["error"] == "username_taken")
            let signIn = try await client.call(.get, "/generate-authentication-options?username=%C3%89MILE")
            #expect(signIn["allowCredentials"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue } == [Base64URL.encode(device.authenticator.credentialID)])
            let garbage = try await client.call(.get, "/generate-registration-options?username=%FF%FE")
            #expect(garbage.status == .badRequest && garbage["error"] == "username_invalid")
        }
    }

    @Test("query strings are form-decoded as browsers write them: + is a space, %2B a plus sign")
    func formEncodedQuery() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            // The demo page builds its query with URLSearchParams ("Ann+Lee") and names the account again in JSON.
            let options = try await client.call(.get, "/generate-registration-options?username=ann%2Blee&displayName=Ann+Lee")
            #expect(options["user"]?.objectValue?["name"] == "ann+lee", "\(options.json)")
            #expect(options["user"]?.objectValue?["displayName"] == "Ann Lee")
            let registered = try await client.call(
                .post, "/verify-registration",
                json: ["username": "ann+lee", "challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            #expect(registered.status == .ok && registered["username"] == "ann+lee", "\(registered.json)")
            // Names are decoded too, and the account is found by the same spelling a form sends.
            let signIn = try await client.call(.get, "/generate-authentication-options?user%6Eame=ANN%2bLEE")
            #expect(
                signIn["allowCredentials"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue }
                    == [Base64URL.encode(device.authenticator.credentialID)])
            // A + is a space: refused in a new name, which the message says.
            let space = try await client.call(.get, "/generate-registration-options?username=Ann+Lee")
            #expect(space["error"] == "username_invalid" && space["message"]?.stringValue?.contains("U+0020") == true, "\(space.json)")
            let strayPercent = try await client.call(.get, "/generate-registration-options?username=100%25sure%")
            #expect(strayPercent["user"]?.objectValue?["name"] == "100%sure%")
        }
    }

    @Test("a query parameter the server reads, given twice, is refused: a proxy or log in front may read the other one", arguments: [
        (HTTPRequest.Method.get, "/generate-registration-options?username=ann&username=bob"),
        (.get, "/generate-registration-options?username=ann&displayName=A&displayName=B"),
        (.get, "/generate-authentication-options?username=ann&user%6Eame=bob"),
        (.post, "/generate-authentication-options?username=ann&username=ann"),
        (.post, "/generate-registration-options?username=ann&username=bob"),
    ])
    func repeatedQueryParameter(method: HTTPRequest.Method, path: String) async throws {
        let server = TestServer()
        try await server.run { client in
            let refused = try await client.call(method, path, json: method == .post ? ["username": "ann"] : nil)
            #expect(refused.status == .badRequest && refused["error"] == "field_invalid", "\(refused.json)")
            #expect(refused["message"]?.stringValue?.contains("more than once") == true)
            // A parameter the server does not read may repeat (cache busters, trackers).
            let fine = try await client.call(.get, "/generate-authentication-options?username=ann&v=1&v=2")
            #expect(fine.status == .ok)
        }
    }

    @Test("a new account's username with an invisible character is refused: none can pass for another name or be blank", arguments: [
        "ann\u{3164}", "ann\u{FE0F}", "a\u{034F}nn", "ann\u{17B4}", "\u{115F}", "\u{1160}", "\u{FFA0}", "ann\u{2800}", "a\u{2028}nn",
        "a\u{2029}nn", "ann\u{00A0}lee", "ann\u{3000}lee", "ann\u{2009}lee", "ann\u{200D}", "\u{2800}",
    ])
    func invisibleInUsername(name: String) async throws {
        let server = TestServer()
        try await server.run { client in
            let refused = try await client.call(.post, "/generate-registration-options", json: ["username": .string(name)])
            #expect(refused.status == .badRequest && refused["error"] == "username_invalid", "\(refused.json)")
            // A sign-in looks names up under the rule they were made with: an account named before keeps signing in.
            let lookup = try await client.call(.post, "/generate-authentication-options", json: ["username": .string(name)])
            #expect(lookup.status == .ok || name.unicodeScalars.contains { $0.properties.generalCategory == .format }, "\(lookup.json)")
            // What stays allowed: ASCII punctuation inside, letters of any script.
            for allowed in ["Ann.Lee", "Иван", "李雷", "ann_lee-1"] {
                let answer = try await client.call(.post, "/generate-registration-options", json: ["username": .string(allowed)])
                #expect(answer.status == .ok, "\(allowed): \(answer.json)")
            }
        }
    }

    @Test("a username of white space only is refused; no username, or an empty one, is an anonymous account")
    func blankUsername() async throws {
        let server = TestServer()
        try await server.run { client in
            // A space, "+", an ideographic space (U+3000), a zero-width space (U+200B).
            for blank in ["%20", "+", "%E3%80%80", "%E2%80%8B"] {
                for path in ["/generate-registration-options", "/generate-authentication-options"] {
                    let answer = try await client.call(.get, "\(path)?username=\(blank)")
                    #expect(answer.status == .badRequest && answer["error"] == "username_invalid", "\(path) \(blank): \(answer.json)")
                }
            }
            let posted = try await client.call(.post, "/generate-registration-options", json: ["username": " \u{200B} "])
            #expect(posted["error"] == "username_invalid")
            // A zero-width space at either end is a format character like any other, not white space to trim: the name
            // is refused rather than taken for "ann" (Foundation's whitespace set holds U+200B).
            for pasted in ["%E2%80%8Bann", "ann%E2%80%8B", "%20%E2%80%8Bann%20"] {
                for path in ["/generate-registration-options", "/generate-authentication-options"] {
                    let answer = try await client.call(.get, "\(path)?username=\(pasted)")
                    #expect(answer.status == .badRequest && answer["error"] == "username_invalid", "\(path) \(pasted): \(answer.json)")
                }
            }
            for none in ["?username=", ""] {
                let anonymous = try await client.call(.get, "/generate-registration-options\(none)")
                #expect(anonymous.status == .ok)
                #expect(anonymous["user"]?.objectValue?["name"]?.stringValue?.hasPrefix("anonymous-") == true, "\(none): \(anonymous.json)")
            }
        }
    }

    @Test("a path has one spelling: a trailing slash or an empty segment is not found, so exact proxy rules hold")
    func canonicalPaths() async throws {
        try await withLiveServer { port in
            for path in ["/metrics/", "/metrics//", "//metrics", "/health/", "//health", "/generate-authentication-options/"] {
                let answer = try await onOwnThread { RawConnection.exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n") }
                #expect(answer.hasPrefix("HTTP/1.1 404"), "\(path): \(answer)")
                #expect(answer.contains("\"error\":\"not_found\""), "\(path): \(answer)")
            }
            // Escapes and dot segments are not decoded into a route either.
            for path in ["/%6detrics", "/metrics%2F", "/./metrics", "/metrics/."] {
                let answer = try await onOwnThread { RawConnection.exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n") }
                #expect(answer.hasPrefix("HTTP/1.1 404"), "\(path): \(answer)")
            }
            for path in ["/metrics", "/health", "/", "/?x=1", "/generate-authentication-options?username=a/b", "/dashboard/login", "/openapi.json"] {
                let answer = try await onOwnThread { RawConnection.exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n") }
                #expect(answer.hasPrefix("HTTP/1.1 200"), "\(path): \(answer)")
            }
            let head = try await onOwnThread { RawConnection.exchange(port: port, "HEAD /health HTTP/1.1\r\nHost: localhost\r\n\r\n") }
            #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
        }
    }

    @Test("a CORS preflight from an origin that is not configured is 403 origin_not_allowed, without CORS headers")
    func preflightFromOtherOrigin() async throws {
        let server = TestServer()
        try await server.run { client in
            let refused = try await client.call(
                .options, "/verify-authentication", headers: [.origin: "http://evil.example", .accessControlRequestMethod: "POST"])
            #expect(refused.status == .forbidden && refused["error"] == "origin_not_allowed", "\(refused.json)")
            #expect(refused["message"]?.stringValue?.contains("http://evil.example") == true)
            #expect(refused.headers[.accessControlAllowOrigin] == nil)
            let allowed = try await client.call(
                .options, "/verify-authentication", headers: [.origin: server.origin, .accessControlRequestMethod: "POST"])
            #expect(allowed.status == .noContent)
            #expect(allowed.headers[.accessControlAllowOrigin] == server.origin)
        }
    }

    @Test("events of options steps and failed steps record the username the request named")
    func eventUsernames() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options?username=Ann.Lee")
            _ = try await client.call(
                .post, "/verify-registration",
                json: ["username": "Ann.Lee", "challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            let taken = try await client.call(.post, "/generate-registration-options", json: ["username": "ann.lee"])
            #expect(taken["error"] == "username_taken")
            _ = try await client.call(.get, "/generate-authentication-options?username=bo")
            _ = try await client.call(.post, "/api/authentication-challenge", json: ["username": " carol "])
            _ = try await client.call(.get, "/generate-registration-options")  // anonymous: no username
            // A refused name is not recorded: it may carry direction overrides that disguise it in the dashboard.
            let overridden = try await client.call(.get, "/generate-registration-options?username=%E2%80%AEevil")
            #expect(overridden["error"] == "username_invalid")
            let events = await server.repository.events(matching: EventFilter(), before: nil, limit: 20)
            let recorded = events.reversed().map { "\($0.kind) \($0.result.rawValue) \($0.code ?? "-") \($0.username ?? "-")" }
            #expect(
                recorded == [
                    "registration.options success - Ann.Lee", "registration.verify success - Ann.Lee",
                    "registration.options failure username_taken ann.lee", "authentication.options success - bo",
                    "authentication.options success - carol", "registration.options success - -",
                    "registration.options failure username_invalid -",
                ], "\(recorded)")
            // Throttled attempts name their user too.
            let throttled = TestServer { $0.optionsPerMinute = 1 }
            try await throttled.run { client in
                _ = try await client.call(.get, "/generate-authentication-options?username=dan")
                let refused = try await client.call(.post, "/generate-authentication-options", json: ["username": "dan"])
                #expect(refused["error"] == "rate_limited")
                let limited = await throttled.repository.events(matching: EventFilter(code: "rate_limited"), before: nil, limit: 5)
                #expect(limited.map(\.username) == ["dan"])
            }
            // The log filter by user finds the failed attempt too, in any case.
            let annEvents = await server.repository.events(matching: EventFilter(user: "ANN.LEE"), before: nil, limit: 20)
            #expect(annEvents.count == 3)
        }
    }

    @Test("a client's overlong origin is cut before the event log keeps it")
    func overlongOrigin() async throws {
        let server = TestServer()
        let device = try Device(server: server)
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options?username=ann")
            let origin = "https://" + String(repeating: "a", count: 40_000) + ".example"
            let failed = try await client.call(
                .post, "/verify-registration",
                json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json, origin: origin)])
            #expect(failed["error"] == "origin_mismatch")
            let events = await server.repository.events(matching: EventFilter(code: "origin_mismatch"), before: nil, limit: 10)
            let event = try #require(events.first)
            #expect(event.received == String(origin.prefix(256)) + "…")
            #expect(event.origin == String(origin.prefix(256)) + "…")

            // Counted in Unicode scalars: combining marks make few characters of many scalars.
            let marks = try await client.call(.get, "/generate-registration-options?username=bo")
            let stacked = "https://a" + String(repeating: "\u{301}", count: 40_000)
            _ = try await client.call(
                .post, "/verify-registration",
                json: ["challengeKey": marks["challengeKey"] ?? nil, "cred": device.create(marks.json, origin: stacked)])
            let newest = try #require(await server.repository.events(matching: EventFilter(code: "origin_mismatch"), before: nil, limit: 1).first)
            #expect(newest.received?.unicodeScalars.count == 257)
        }
    }

    @Test("a path used with the wrong method answers 405 with Allow; an unknown path 404")
    func methodNotAllowed() async throws {
        let server = TestServer()
        try await server.run { client in
            let wrong = try await client.call(.delete, "/verify-registration")
            #expect(wrong.status == .methodNotAllowed && wrong["error"] == "method_not_allowed")
            #expect(wrong.headers[.allow] == "POST")
            let options = try await client.call(.put, "/generate-registration-options")
            #expect(options.status == .methodNotAllowed)
            #expect(options.headers[.allow] == "GET, POST")
            // HEAD would make a ceremony (a stored challenge, a turn of the client's rate limit): refused where GET makes one.
            for path in ["/generate-registration-options?username=ann", "/generate-authentication-options"] {
                let head = try await client.execute(uri: path, method: .head)
                #expect(head.status == .methodNotAllowed && head.headers[.allow] == "GET, POST", "\(path)")
            }
            #expect(try await server.repository.challengeCount() == 0)
            // A path with a parameter.
            let passkey = try await client.call(.post, "/connect/passkeys/abc")
            #expect(passkey.status == .methodNotAllowed)
            #expect(passkey.headers[.allow]?.contains("DELETE") == true && passkey.headers[.allow]?.contains("PATCH") == true)
            let missing = try await client.call(.get, "/no/such/route")
            #expect(missing.status == .notFound && missing["error"] == "not_found")
        }
    }

    @Test("429 says when to come back (Retry-After)")
    func retryAfter() async throws {
        let server = TestServer { $0.optionsPerMinute = 2 }
        try await server.run { client in
            for _ in 0..<2 { #expect(try await client.call(.get, "/generate-authentication-options").status == .ok) }
            let limited = try await client.call(.get, "/generate-authentication-options")
            #expect(limited.status == .tooManyRequests)
            // Two per minute: a token comes back every 30 seconds.
            #expect(limited.headers[.retryAfter] == "30")
            // Browser code may read it.
            let crossOrigin = try await client.call(.get, "/generate-authentication-options", headers: [.origin: "http://localhost:8080"])
            #expect(crossOrigin.status == .tooManyRequests && crossOrigin.headers[.accessControlExposeHeaders] == "Retry-After")
            server.clock.advance(30)
            #expect(try await client.call(.get, "/generate-authentication-options").status == .ok)
        }
    }

    @Test("behind a trusted proxy, the client is the last X-Forwarded-For entry; IPv6 counts by /64")
    func forwardedFor() async throws {
        let server = TestServer {
            $0.optionsPerMinute = 2
            $0.trustProxyHeaders = true
        }
        let name = try #require(HTTPField.Name("X-Forwarded-For"))
        // A client writing its own entries before the proxy's cannot pick a fresh address; one IPv6 /64 is one client.
        let steps: [(String, Int)] = [
            ("10.0.0.1, 203.0.113.9", 200), ("10.0.0.2, 203.0.113.9", 200), ("10.0.0.3, 203.0.113.9", 429), ("203.0.113.10", 200),
            ("2001:db8:1:2::1", 200), ("2001:db8:1:2:ffff::7", 200), ("2001:db8:1:2:abcd::1", 429), ("2001:db8:1:3::1", 200),
            // IPv4-mapped addresses are IPv4 addresses (not one shared /64); a port some proxies append is not a new client.
            ("::ffff:198.51.100.1", 200), ("::ffff:198.51.100.2", 200), ("198.51.100.1:4711", 200), ("198.51.100.1:4712", 429),
            ("[2001:db8:1:3::9]:443", 200), ("2001:db8:1:3::a", 429),
            // What is not an IP address is not a client: such requests count under the proxy's address, together.
            ("garbage-not-ip", 200), ("another-garbage", 200), ("203.0.113.9, third-garbage", 429),
        ]
        let statuses = try await server.run { client in
            var statuses: [Int] = []
            for (forwarded, _) in steps {
                statuses.append(try await client.call(.get, "/generate-authentication-options", headers: [name: forwarded]).status.code)
            }
            return statuses
        }
        #expect(statuses == steps.map(\.1))
    }

    @Test("HSTS goes out over TLS only: direct, or behind a trusted proxy that says https")
    func strictTransportSecurity() async throws {
        let proxied = TestServer { $0.trustProxyHeaders = true }
        try await proxied.run { client in
            let name = try #require(HTTPField.Name("X-Forwarded-Proto"))
            let overTLS = try await client.call(.get, "/health", headers: [name: "https"])
            #expect(overTLS.headers[.strictTransportSecurity] == "max-age=31536000")
            let plain = try await client.call(.get, "/health", headers: [name: "http"])
            #expect(plain.headers[.strictTransportSecurity] == nil)
        }
        // Without trusting the proxy, a client's header changes nothing.
        try await TestServer().run { client in
            let name = try #require(HTTPField.Name("X-Forwarded-Proto"))
            #expect(try await client.call(.get, "/health", headers: [name: "https"]).headers[.strictTransportSecurity] == nil)
        }
    }

    @Test("security headers on every response; the demo page is served with a strict CSP")
    func headersAndDemo() async throws {
        let server = TestServer()
        try await server.run { client in
            for uri in ["/health", "/no-such-route", "/"] {
                let response = try await client.call(.get, uri)
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
                #expect(response.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            }
            let page = try await client.execute(uri: "/", method: .get)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(String(buffer: page.body).contains("autocomplete=\"username webauthn\""))
            #expect(page.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
            let script = try await client.execute(uri: "/demo.js", method: .get)
            #expect(String(buffer: script.body).contains("/verify-authentication"))
            // The pages name their icon, so browsers do not ask for /favicon.ico (a 404 in every page's console).
            #expect(String(buffer: page.body).contains("<link rel=\"icon\" href=\"/favicon.svg\""))
            let icon = try await client.execute(uri: "/favicon.svg", method: .get)
            #expect(icon.status == .ok && icon.headers[.contentType] == "image/svg+xml" && String(buffer: icon.body).hasPrefix("<svg"))
            // HEAD answers wherever GET does: same status and content type, no body.
            for uri in ["/health", "/.well-known/webauthn", "/"] {
                let head = try await client.execute(uri: uri, method: .head)
                let get = try await client.execute(uri: uri, method: .get)
                #expect(head.status == get.status, "\(uri)")
                #expect(head.headers[.contentType] == get.headers[.contentType], "\(uri)")
                #expect(head.body.readableBytes == 0, "\(uri)")
            }
        }
    }

    @Test("metrics count ceremonies by result and error code, with latency histograms")
    func metrics() async throws {
        let server = TestServer()
        try await server.run { client in
            _ = try await client.call(.get, "/generate-registration-options?username=ann")
            _ = try await client.call(.get, "/generate-registration-options?username=bob")
            _ = try await client.call(.post, "/verify-registration", json: ["challengeKey": "nope", "cred": .object(["id": "AA", "type": "public-key", "response": .object(["clientDataJSON": "e30", "attestationObject": "oA"])])])
            let response = try await client.execute(uri: "/metrics", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
            let text = String(buffer: response.body)
            #expect(text.contains(#"passkey_ceremonies_total{ceremony="registration",step="options",result="success",code="none"} 2"#))
            #expect(text.contains(#"passkey_ceremony_duration_seconds_count{ceremony="registration",step="options"} 2"#))
            #expect(text.contains(#"passkey_ceremonies_total{ceremony="registration",step="verify",result="failure",code="challenge_invalid"} 1"#))
            #expect(text.contains("# HELP passkey_ceremonies_total Ceremony calls"))
            #expect(text.contains("# HELP passkey_ceremony_duration_seconds Server-side time"))
            #expect(text.contains("passkey_ceremony_duration_seconds_bucket"))
        }
    }

    @Test("with a metrics token, /metrics answers only that bearer token")
    func metricsToken() async throws {
        let token = String(repeating: "m", count: 40)
        let server = TestServer { $0.metricsToken = token }
        try await server.run { client in
            for header in [nil, "Bearer wrong", "Basic \(token)", "Bearer " + token.dropLast()] {
                let refused = try await client.call(.get, "/metrics", headers: header.map { [.authorization: String($0)] } ?? [:])
                #expect(refused.status == .unauthorized, "\(String(describing: header))")
                #expect(refused["error"] == "metrics_token_invalid")
                #expect(refused.headers[.wwwAuthenticate] == #"Bearer realm="metrics""#)
            }
            _ = try await client.call(.get, "/generate-registration-options?username=ann")
            let allowed = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(token)"])
            #expect(allowed.status == .ok)
            #expect(String(buffer: allowed.body).contains("# HELP passkey_ceremonies_total"))
        }
        var short = ServerConfiguration()
        short.metricsToken = "too-short"
        #expect(throws: ConfigurationError.self) { try short.validate() }
    }

    @Test("a metrics token variable that is set but blank stops the start instead of leaving /metrics open")
    func blankMetricsToken() async throws {
        let arguments = ["--database", "memory:", "--port", String(try LocalPorts.free())]
        for blank in ["", "  \n"] {
            let run = try await onOwnThread {
                try runProgram(ServerProcess.executable, arguments, environment: ["PASSKEY_METRICS_TOKEN": blank], timeout: 20)
            }
            #expect(run.status == 64, "\(blank.debugDescription): \(run.output)")  // a usage error, not a timeout's SIGTERM
            #expect(run.output.contains("PASSKEY_METRICS_TOKEN is set but empty"), "\(blank.debugDescription): \(run.output)")
        }
    }

    @Test("every response carries a request id; a caller's short id is kept")
    func requestID() async throws {
        let server = TestServer()
        try await server.run { client in
            let generated = try await client.call(.get, "/health")
            let id = generated.headers[.init("X-Request-Id")!] ?? ""
            // A lowercase random (version 4, RFC 4122 variant) UUID.
            #expect(UUID(uuidString: id) != nil && id == id.lowercased())
            let characters = Array(id)
            #expect(characters.count == 36 && characters[14] == "4" && "89ab".contains(characters[19]))
            let another = try await client.call(.get, "/health")
            #expect(another.headers[.init("X-Request-Id")!] != id)
            let kept = try await client.call(.get, "/health", headers: [.init("X-Request-Id")!: "trace-123"])
            #expect(kept.headers[.init("X-Request-Id")!] == "trace-123")
            for bad in ["bad id with spaces", "abc-\u{E9}-123", String(repeating: "a", count: 65)] {
                let refused = try await client.call(.get, "/health", headers: [.init("X-Request-Id")!: bad])
                #expect(refused.headers[.init("X-Request-Id")!] != bad, "\(bad)")
            }
            let traced = try await client.call(.get, "/health", headers: [.init("X-Request-Id")!: "00-4bf92f35.b7ad_6b71"])
            #expect(traced.headers[.init("X-Request-Id")!] == "00-4bf92f35.b7ad_6b71")
        }
    }

    @Test("request logs name paths with ids by their pattern: a user id is often an email address, a credential id is not for logs")
    func loggedPaths() {
        typealias Logging = RequestLog
        #expect(Logging.loggedPath("/users/ann@example.com/passkeys") == "/users/{id}/passkeys")
        #expect(Logging.loggedPath("/users/ann@example.com") == "/users/{id}")
        #expect(Logging.loggedPath("/users/") == "/users/")
        #expect(Logging.loggedPath("/verify-authentication") == "/verify-authentication")
        // Credential ids stay out of logs too, on every API that names one in its path.
        #expect(Logging.loggedPath("/users/ann@example.com/passkeys/pKS8fdBfj") == "/users/{id}/passkeys/{credentialId}")
        #expect(Logging.loggedPath("/connect/passkeys/pKS8fdBfj") == "/connect/passkeys/{credentialId}")
        #expect(Logging.loggedPath("/connect/passkeys") == "/connect/passkeys")
        #expect(Logging.loggedPath("/dashboard/api/users/u1/passkeys/pKS8fdBfj") == "/dashboard/api/users/{id}/passkeys/{credentialId}")
        #expect(Logging.loggedPath("/dashboard/users/u1") == "/dashboard/users/{id}")
    }

    @Test("the OpenAPI document and the router agree, route for route")
    func openAPI() async throws {
        // As an OpenID Provider too: its endpoints are documented (they are routed only with --oidc-issuer).
        let server = TestServer { $0.oidcIssuer = "http://localhost:8080" }
        let router = buildRouter(server.configuration, repository: server.repository)
        // The dashboard (/dashboard/…) is an HTML application for operators, not part of the documented API: its routes
        // are listed and tested in DashboardTests instead.
        let routes = Set(router.routes.map { route in
            "\(route.method.rawValue) /" + route.path.description.split(separator: "/").joined(separator: "/")
        }.filter { !$0.contains(" /dashboard") })
        try await server.run { client in
            let response = try await client.call(.get, "/openapi.json")
            #expect(response.status == .ok)
            #expect(response["openapi"] == "3.1.0")
            var documented = Set<String>()
            for member in response["paths"]?.objectValue?.members ?? [] {
                for operation in member.value.objectValue?.members ?? [] { documented.insert("\(operation.name.uppercased()) \(member.name)") }
            }
            #expect(documented == routes, "undocumented: \(routes.subtracting(documented).sorted()); not routed: \(documented.subtracting(routes).sorted())")
            // Every operation names the errors the HTTP layer may answer on any path (404, 405, 415, 431, …).
            var withoutDefault: [String] = []
            for member in response["paths"]?.objectValue?.members ?? [] {
                for operation in member.value.objectValue?.members ?? []
                where operation.value.objectValue?["responses"]?.objectValue?["default"]?.objectValue?["$ref"] != "#/components/responses/ProtocolError" {
                    withoutDefault.append("\(operation.name.uppercased()) \(member.name)")
                }
            }
            #expect(withoutDefault.isEmpty, "\(withoutDefault)")
            let protocolError = response["components"]?.objectValue?["responses"]?.objectValue?["ProtocolError"]?.objectValue
            for code in ["not_found", "method_not_allowed", "content_encoding_unsupported", "request_headers_too_large"] {
                #expect(protocolError?["description"]?.stringValue?.contains("`\(code)`") == true, "\(code)")
            }
        }
    }

    @Test("the OpenAPI document served names this server: its public URL, its default address, else \"/\" rather than the website's origin")
    func openAPIServers() async throws {
        func servers(_ configure: @escaping @Sendable (inout ServerConfiguration) -> Void) async throws -> JSONValue? {
            try await TestServer(configure).run { client in
                let response = try await client.call(.get, "/openapi.json")
                #expect(response["paths"]?.objectValue?["/verify-authentication"] != nil)
                return response["servers"] ?? nil
            }
        }
        let origins = ["https://www.example.com", "https://example.com", "android:apk-key-hash:AbCdEf0123456789"]
        #expect(try await servers { $0.rpID = "example.com"; $0.origins = origins } == [["url": "/"]], "the first origin may be the website")
        #expect(
            try await servers { $0.rpID = "example.com"; $0.origins = origins; $0.publicURL = "https://auth.example.com" }
                == [["url": "https://auth.example.com"]])
        #expect(try await servers { $0.port = 8181 } == [["url": "http://localhost:8181"]])
    }

    @Test("health reports the database")
    func health() async throws {
        let server = TestServer()
        try await server.run { client in
            let health = try await client.call(.get, "/health")
            #expect(health.status == .ok && health["status"] == "ok" && health["database"] == "ok")
        }
    }
}
