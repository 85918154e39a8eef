import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
@testable import PasskeyServer
@testable import PasskeyRelyingParty
import PasskeyStorage
import PasskeyWire
import PasskeyServerTestSupport
import Testing

/// A test server with an API key, and the calls an app backend and an app make in the connect flows.
struct ConnectHarness {
    var server: TestServer
    let apiKey: String

    init(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws {
        server = TestServer(configure)
        apiKey = try await Administration.createAPIKey(name: "test backend", repository: server.repository).secret
    }

    var backend: HTTPFields { [.authorization: "Bearer \(apiKey)"] }
    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    /// `POST /connect/tokens` for the app's user `externalID`; returns the token.
    func token(_ client: any TestClientProtocol, _ type: String, externalID: String = "app-user-1", name: String = "ann@example.com")
        async throws -> String
    {
        let answer = try await client.call(
            .post, "/connect/tokens", json: ["type": .string(type), "user": ["id": .string(externalID), "name": .string(name), "displayName": "Ann"]],
            headers: backend)
        #expect(answer.status == .ok, "\(answer.json)")
        return answer["token"]?.stringValue ?? ""
    }

    /// Options to add a passkey (a fresh passkey-append token each time).
    func appendOptions(
        _ client: any TestClientProtocol, externalID: String = "app-user-1", name: String = "ann@example.com", replaces: String? = nil
    ) async throws -> JSONResponse {
        let token = try await token(client, "passkey-append", externalID: externalID, name: name)
        var body: JSONObject = [:]
        if let replaces { body["replaces"] = .string(replaces) }
        return try await client.call(.post, "/connect/append/options", json: .object(body), headers: Self.bearer(token))
    }

    /// Adds a passkey through the append flow; returns the verify answer.
    func append(
        _ client: any TestClientProtocol, device: Device, externalID: String = "app-user-1", name: String = "ann@example.com",
        replaces: String? = nil
    ) async throws -> JSONResponse {
        let options = try await appendOptions(client, externalID: externalID, name: name, replaces: replaces)
        #expect(options.status == .ok, "\(options.json)")
        return try await client.call(
            .post, "/connect/append/verify", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
    }

    /// Signs in without a username; returns the verify answer.
    func signIn(_ client: any TestClientProtocol, device: Device, signCount: UInt32) async throws -> JSONResponse {
        let options = try await client.call(.get, "/generate-authentication-options")
        return try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(options.json, signCount: signCount)])
    }
}

/// Verifies an ES256 JWS against a JWKS with swift-crypto alone (not the server's JWT library).
func verifyJWS(_ token: String, jwks: JSONValue) -> JSONObject? {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let header = try? JSONValue.parse(headerBytes),
        header.objectValue?["alg"] == "ES256", let kid = header.objectValue?["kid"]?.stringValue,
        let jwk = jwks.objectValue?["keys"]?.arrayValue?.first(where: { $0.objectValue?["kid"]?.stringValue == kid })?.objectValue,
        let x = jwk["x"]?.stringValue.flatMap(Base64URL.decode), let y = jwk["y"]?.stringValue.flatMap(Base64URL.decode),
        let key = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y),
        let signatureBytes = Base64URL.decode(parts[2]), let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
        key.isValidSignature(signature, for: Array((parts[0] + "." + parts[1]).utf8)),
        let payload = Base64URL.decode(parts[1]).flatMap({ try? JSONValue.parse($0) })?.objectValue
    else { return nil }
    return payload
}

@Suite("Connect API: tokens, signedPasskeyData, passkey management, decisions")
struct ConnectAPITests {
    @Test("one token per management step: the decision takes a list token and says which kind decided; an append and a delete answer the list after them, and with the device described, the decision")
    func oneTokenPerStep() async throws {
        let harness = try await ConnectHarness()
        let device = try Device(server: harness.server)
        let client = ["platform": "iOS", "osVersion": "18.0", "platformAuthenticator": true] as JSONValue
        try await harness.server.run { http in
            // The append's answer: the passkey, and the list after it with the decision (the append token is used up).
            let options = try await harness.appendOptions(http)
            let appended = try await http.call(
                .post, "/connect/append/verify", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json), "client": client])
            #expect(appended.status == .ok, "\(appended.json)")
            let id = try #require(appended["credentialId"]?.stringValue)
            #expect(appended["passkeys"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue } == [id])
            #expect(appended["append"]?.objectValue?["step"]?.stringValue != nil, "\(appended.json)")
            // The decision with a list token says so; with an append token, that.
            let list = try await harness.token(http, "passkey-list")
            let decided = try await http.call(.post, "/connect/append/decision", json: ["client": client], headers: ConnectHarness.bearer(list))
            #expect(decided.status == .ok && decided["tokenType"] == "passkey-list", "\(decided.json)")
            let append = try await harness.token(http, "passkey-append")
            #expect(try await http.call(.post, "/connect/append/decision", json: ["client": client], headers: ConnectHarness.bearer(append))["tokenType"] == "passkey-append")
            // A delete token decides nothing.
            let delete = try await harness.token(http, "passkey-delete")
            let refused = try await http.call(.post, "/connect/append/decision", json: ["client": client], headers: ConnectHarness.bearer(delete))
            #expect(refused.status == .forbidden && refused["error"] == "connect_token_wrong_type", "\(refused.json)")
            #expect(refused["message"]?.stringValue?.contains("not passkey-append or passkey-list") == true, "\(refused.json)")
            // A malformed device description at the append is refused before the passkey is stored.
            let more = try await harness.appendOptions(http)
            let malformed = try await http.call(
                .post, "/connect/append/verify",
                json: ["challengeKey": more["challengeKey"] ?? nil, "cred": try Device(server: harness.server, credentialID: 0x34).create(more.json), "client": "iOS"])
            #expect(malformed.status == .badRequest, "\(malformed.json)")
            #expect(try await harness.server.repository.credential(id: [UInt8](repeating: 0x34, count: 32)) == nil, "nothing stored")
            // A malformed device description or time in the query is refused before the token is used up.
            for query in ["platformAuthenticator=maybe", "lastDeclinedAt=yesterday"] {
                let refused = try await http.call(.delete, "/connect/passkeys/\(id)?\(query)", headers: ConnectHarness.bearer(delete))
                #expect(refused.status == .badRequest, "\(query): \(refused.json)")
            }
            // The delete's answer: the passkeys left, and the decision when the query describes the device (a DELETE's
            // body may not survive every proxy).
            let deleted = try await http.call(
                .delete, "/connect/passkeys/\(id)?platform=iOS&osVersion=18.0&platformAuthenticator=true", headers: ConnectHarness.bearer(delete))
            #expect(deleted["deleted"] == true && deleted["passkeys"] == [] && deleted["append"]?.objectValue?["step"] == "ask", "\(deleted.json)")
            // Without a body, as before: the list, no decision.
            let again = try await harness.append(http, device: try Device(server: harness.server, credentialID: 0x33))
            let plain = try await http.call(
                .delete, "/connect/passkeys/\(again["credentialId"]?.stringValue ?? "")", headers: ConnectHarness.bearer(try await harness.token(http, "passkey-delete")))
            #expect(plain["deleted"] == true && plain["passkeys"] == [] && plain["append"] == nil, "\(plain.json)")
            // The device's abilities without its platform still describe it, as a body's `client` may.
            let third = try await harness.append(http, device: try Device(server: harness.server, credentialID: 0x35))
            let abilitiesOnly = try await http.call(
                .delete, "/connect/passkeys/\(third["credentialId"]?.stringValue ?? "")?platformAuthenticator=true",
                headers: ConnectHarness.bearer(try await harness.token(http, "passkey-delete")))
            #expect(abilitiesOnly["deleted"] == true && abilitiesOnly["append"]?.objectValue?["step"] != nil, "\(abilitiesOnly.json)")
        }
    }

    @Test("--no-public-registration: every public registration path is 403 registration_closed; connect append and sign-in work")
    func closedRegistration() async throws {
        let harness = try await ConnectHarness { $0.publicRegistration = false }
        let device = try Device(server: harness.server)
        try await harness.server.run { client in
            let closed: [(HTTPRequest.Method, String, JSONValue?)] = [
                (.get, "/generate-registration-options?username=heidi@example.com", nil), (.get, "/generate-registration-options", nil),
                (.post, "/generate-registration-options", ["username": "heidi@example.com"]),
                (.post, "/api/registration-challenge", ["username": "heidi@example.com"]), (.post, "/api/start-registration", ["username": "heidi"]),
            ]
            for (method, path, json) in closed {
                let answer = try await client.call(method, path, json: json)
                #expect(answer.status == .forbidden && answer["error"] == "registration_closed", "\(path): \(answer.json)")
            }
            // The app's backend still makes accounts, and their passkeys sign in.
            let appended = try await harness.append(client, device: device)
            #expect(appended.status == .ok, "\(appended.json)")
            let signedIn = try await harness.signIn(client, device: device, signCount: 1)
            #expect(signedIn.status == .ok && signedIn["username"] == "ann@example.com", "\(signedIn.json)")
        }
    }

    @Test("the append endpoint never completes a new account's options; options made before registration closed are refused after")
    func newAccountOptionsStayPublic() async throws {
        var harness = try await ConnectHarness()
        let device = try Device(server: harness.server)
        let options = try await harness.server.run { client in
            // Public options at the append endpoint (which needs no token): no account is made.
            let open = try await client.call(.get, "/generate-registration-options?username=mallory@example.com")
            #expect(open.status == .ok, "\(open.json)")
            let smuggled = try await client.call(
                .post, "/connect/append/verify", json: ["challengeKey": open["challengeKey"] ?? nil, "cred": device.create(open.json)])
            #expect(smuggled.status == .badRequest && smuggled["error"] == "challenge_invalid", "\(smuggled.json)")
            return try await client.call(.get, "/generate-registration-options?username=late@example.com")
        }
        #expect(try await harness.server.repository.user(username: "mallory@example.com") == nil)
        // The same storage, restarted with public registration closed.
        harness.server.configuration.publicRegistration = false
        try await harness.server.run { client in
            let late = try await client.call(
                .post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            #expect(late.status == .forbidden && late["error"] == "registration_closed", "\(late.json)")
        }
        #expect(try await harness.server.repository.user(username: "late@example.com") == nil)
    }

    @Test("append options completed at the public /verify-registration: the passkey joins the app user's account, and its token names that user")
    func appendAtPublicEndpoint() async throws {
        let harness = try await ConnectHarness()
        let device = try Device(server: harness.server)
        try await harness.server.run { client in
            let options = try await harness.appendOptions(client)
            let answer = try await client.call(
                .post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            #expect(answer.status == .ok && answer["username"] == "ann@example.com", "\(answer.json)")
            let token = try #require(answer["signedPasskeyData"]?.stringValue)
            let verified = try await client.call(.post, "/connect/verify", json: ["signedPasskeyData": .string(token)], headers: harness.backend)
            #expect(verified["externalUserId"] == "app-user-1" && verified["userId"] == answer["userId"], "\(verified.json)")
            // A new account's token names no app user.
            let newOptions = try await client.call(.get, "/generate-registration-options?username=bo")
            let created = try await client.call(
                .post, "/verify-registration",
                json: ["challengeKey": newOptions["challengeKey"] ?? nil, "cred": try Device(server: harness.server, credentialID: 9).create(newOptions.json)])
            let newToken = try #require(created["signedPasskeyData"]?.stringValue)
            let newVerified = try await client.call(.post, "/connect/verify", json: ["signedPasskeyData": .string(newToken)], headers: harness.backend)
            #expect(newVerified.status == .ok && newVerified["externalUserId"] == .null, "\(newVerified.json)")
        }
    }

    @Test("sign-in answers carry signedPasskeyData that verifies against the JWKS, and once through /connect/verify")
    func signedPasskeyData() async throws {
        let harness = try await ConnectHarness()
        let device = try Device(server: harness.server)
        try await harness.server.run { client in
            let appended = try await harness.append(client, device: device)
            #expect(appended.status == .ok, "\(appended.json)")
            let signedIn = try await harness.signIn(client, device: device, signCount: 1)
            #expect(signedIn["verified"] == true)
            let token = try #require(signedIn["signedPasskeyData"]?.stringValue)

            let jwks = try await client.call(.get, "/.well-known/jwks.json")
            #expect(jwks.status == .ok)
            #expect(jwks.headers[.contentType]?.hasPrefix("application/json") == true)
            let keys = try #require(jwks["keys"]?.arrayValue)
            #expect(keys.count == 1)
            #expect(keys.first?.objectValue?["d"] == nil, "the JWKS must never hold the private key")
            let claims = try #require(verifyJWS(token, jwks: jwks.json))
            #expect(claims["sub"] == signedIn["userId"])
            #expect(claims["aud"] == "localhost")
            #expect(claims["iss"] == "http://localhost:8080")
            #expect(claims["external_user_id"] == "app-user-1")
            #expect(claims["username"] == "ann@example.com")
            #expect(claims["credential_id"] == signedIn["credentialId"])
            #expect(claims["ceremony"] == "authentication")
            #expect(claims["amr"] == ["fido", "mfa"])
            let issued = try #require(claims["iat"]?.intValue)
            #expect(claims["exp"]?.intValue == issued + 300)

            let verified = try await client.call(.post, "/connect/verify", json: ["signedPasskeyData": .string(token)], headers: harness.backend)
            #expect(verified.status == .ok, "\(verified.json)")
            #expect(verified["success"] == true)
            #expect(verified["userId"] == signedIn["userId"])
            #expect(verified["externalUserId"] == "app-user-1")
            #expect(verified["username"] == "ann@example.com")
            #expect(verified["credentialId"] == signedIn["credentialId"])

            let replayed = try await client.call(.post, "/connect/verify", json: ["signedPasskeyData": .string(token)], headers: harness.backend)
            #expect(replayed.status == .badRequest)
            #expect(replayed["error"] == "token_replayed")

            // A changed payload breaks the signature.
            var parts = token.split(separator: ".").map(String.init)
            parts[1] = Base64URL.encode(Array(#"{"sub":"someone-else"}"#.utf8))
            let forged = try await client.call(
                .post, "/connect/verify", json: ["signedPasskeyData": .string(parts.joined(separator: "."))], headers: harness.backend)
            #expect(forged["error"] == "token_invalid")
            // alg none is refused before any key is looked at.
            let none = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + parts[1] + "."
            let unsigned = try await client.call(.post, "/connect/verify", json: ["signedPasskeyData": .string(none)], headers: harness.backend)
            #expect(unsigned["error"] == "token_invalid")
        }
    }

    @Test("signedPasskeyData expires")
    func expiry() async throws {
        let harness = try await ConnectHarness()
        let device = try Device(server: harness.server)
        try await harness.server.run { client in
            let appended = try await harness.append(client, device: device)
            let token = try #require(appended["signedPasskeyData"]?.stringValue)
            harness.server.clock.advance(301)
            let late = try await client.call(.post, "/connect/verify", json: ["signedPasskeyData": .string(token)], headers: harness.backend)
            #expect(late.status == .badRequest)
            #expect(late["error"] == "token_expired")
        }
    }

    @Test("a name the username rules refuse is 400 username_invalid from the library, not a server fault")
    func invalidNameInToken() async throws {
        let harness = try await ConnectHarness()
        try await harness.server.run { client in
            for name in ["ann\u{7}", " \u{200B} "] {
                let body: JSONValue = ["type": "passkey-append", "user": ["id": "u1", "name": .string(name)]]
                let refused = try await client.call(.post, "/connect/tokens", json: body, headers: harness.backend)
                #expect(refused.status == .badRequest && refused["error"] == "username_invalid", "\(refused.json)")
            }
            // A name new to an account meets a new account's rules, as at public registration: mixed scripts that look
            // like another name, invisible fillers, a blank Braille pattern. Nothing is created or renamed.
            _ = try await harness.token(client, "passkey-append", externalID: "carol-app-id", name: "carol")
            for name in ["\u{0441}\u{0430}rol", "ann\u{3164}", "\u{2800}"] {
                for id in ["new-app-id", "carol-app-id"] {
                    let body: JSONValue = ["type": "passkey-append", "user": ["id": .string(id), "name": .string(name)]]
                    let refused = try await client.call(.post, "/connect/tokens", json: body, headers: harness.backend)
                    #expect(refused.status == .badRequest && refused["error"] == "username_invalid", "\(id) \(name): \(refused.json)")
                }
            }
            #expect(await harness.server.repository.user(externalID: "new-app-id") == nil)
            #expect(await harness.server.repository.user(externalID: "carol-app-id")?.username == "carol")
            // A name the account already has (made before the rule) is not checked again: its tokens are still minted.
            let older = UserRecord(userHandle: [1, 2, 3], username: "\u{0441}\u{0430}rol", displayName: "Carol", isAnonymous: false, createdAt: Date())
            _ = try await harness.server.repository.linkedUser(externalID: "older-app-id", orCreate: older)
            let kept = try await client.call(
                .post, "/connect/tokens", json: ["type": "passkey-append", "user": ["id": "older-app-id", "name": "\u{0441}\u{0430}rol"]],
                headers: harness.backend)
            #expect(kept.status == .ok, "\(kept.json)")
        }
    }

    @Test("backend calls need a valid, unrevoked API key")
    func apiKeys() async throws {
        let harness = try await ConnectHarness()
        try await harness.server.run { client in
            let body: JSONValue = ["type": "passkey-append", "user": ["id": "u1", "name": "bob"]]
            let missing = try await client.call(.post, "/connect/tokens", json: body)
            #expect(missing.status == .unauthorized)
            #expect(missing["error"] == "api_key_missing")
            let wrong = try await client.call(.post, "/connect/tokens", json: body, headers: ConnectHarness.bearer("pks_not-a-key"))
            #expect(wrong.status == .unauthorized)
            #expect(wrong["error"] == "api_key_invalid")
            let list = try await client.call(.get, "/users/u1/passkeys", headers: ConnectHarness.bearer("pks_not-a-key"))
            #expect(list["error"] == "api_key_invalid")

            let keys = await harness.server.repository.apiKeys()
            #expect(keys.count == 1 && keys[0].secretHash != Array(harness.apiKey.utf8), "only a hash is stored")
            // A token the key minted before it was revoked stops working with it: a leaked key leaves nothing usable.
            let minted = try await client.call(.post, "/connect/tokens", json: body, headers: harness.backend)
            let token = try #require(minted["token"]?.stringValue)
            try await harness.server.repository.revokeAPIKey(id: keys[0].id, at: harness.server.clock.now)
            let revoked = try await client.call(.post, "/connect/tokens", json: body, headers: harness.backend)
            #expect(revoked.status == .unauthorized)
            #expect(revoked["error"] == "api_key_revoked")
            let orphan = try await client.call(.post, "/connect/append/decision", json: ["client": ["platform": "iOS"]], headers: ConnectHarness.bearer(token))
            #expect(orphan.status == .unauthorized && orphan["error"] == "connect_token_invalid", "\(orphan.json)")
        }
    }

    @Test("a key revoked while its token was being minted (after the key was checked, before the token was saved) mints nothing usable")
    func revokedDuringMint() async throws {
        let repository = InMemoryRepository()
        var configuration = ServerConfiguration()
        configuration.database = "memory:"
        let ceremonies = CeremonyService(repository: repository, relyingParty: makeRelyingParty(configuration), configuration: configuration.ceremonies)
        let issuer = TokenIssuer(repository: repository, issuer: configuration.defaultOrigin, audience: configuration.rpID, lifetime: 300)
        let connect = ConnectService(ceremonies: ceremonies, issuer: issuer, settings: configuration.connect)
        let (checked, _) = try await Administration.createAPIKey(name: "shop", repository: repository)
        // The request's key check saw `checked` valid; the revocation lands before the token is saved.
        try await repository.revokeAPIKey(id: checked.id, at: Date())
        do {
            _ = try await connect.mintToken(type: .passkeyAppend, externalID: "app-user-1", name: "ann", displayName: nil, apiKey: checked)
            Issue.record("a revoked key minted a token")
        } catch {
            #expect(error.code == .apiKeyRevoked && APIError(error).status == .unauthorized)
        }
        #expect(try await repository.purgeExpiredTokens(now: Date().addingTimeInterval(86_400)) == 0, "no token was left behind")
    }

    @Test("connect tokens: single use for append and delete, bound to their type, short-lived")
    func connectTokens() async throws {
        let harness = try await ConnectHarness()
        let device = try Device(server: harness.server)
        try await harness.server.run { client in
            let unknownType = try await client.call(
                .post, "/connect/tokens", json: ["type": "passkey-admin", "user": ["id": "u"]], headers: harness.backend)
            #expect(unknownType["error"] == "token_type_invalid")
            let noUser = try await client.call(.post, "/connect/tokens", json: ["type": "passkey-delete", "user": ["id": "nobody"]], headers: harness.backend)
            #expect(noUser.status == .notFound)
            #expect(noUser["error"] == "user_not_found")
            // Refused rather than trimmed or cleaned: "app-user-1\u{A0}" may be another user of the app than "app-user-1".
            for id in [
                "", String(repeating: "u", count: 257), "a\u{0}b", "line\nbreak", "\u{202E}resu", " u", "u ", "u\u{A0}", "\tu", "u\u{3000}",
                "u\u{200B}", "u\u{2028}", "u\u{85}", "\u{FEFF}u", "u\u{2060}",
                "a" + String(repeating: "\u{301}", count: 2_000),  // one character of 4 001 bytes
            ] {
                let badID = try await client.call(.post, "/connect/tokens", json: ["type": "passkey-append", "user": ["id": .string(id)]], headers: harness.backend)
                #expect(badID.status == .badRequest && badID["error"] == "user_id_invalid", "\(id.debugDescription)")
            }
            // Joiners inside an id are part of it: Persian names (ZWNJ) and emoji sequences (ZWJ, VS16).
            for id in ["\u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645}", "dev-\u{1F469}\u{200D}\u{1F4BB}", "heart-\u{2764}\u{FE0F}"] {
                let good = try await client.call(.post, "/connect/tokens", json: ["type": "passkey-append", "user": ["id": .string(id)]], headers: harness.backend)
                #expect(good.status == .ok, "\(id.debugDescription): \(good.json)")
            }

            let append = try await harness.token(client, "passkey-append")
            #expect(append.hasPrefix("pct_"))
            // The wrong type is refused without using the token up.
            let wrongType = try await client.call(.get, "/connect/passkeys", headers: ConnectHarness.bearer(append))
            #expect(wrongType.status == .forbidden)
            #expect(wrongType["error"] == "connect_token_wrong_type")
            let options = try await client.call(.post, "/connect/append/options", headers: ConnectHarness.bearer(append))
            #expect(options.status == .ok)
            let again = try await client.call(.post, "/connect/append/options", headers: ConnectHarness.bearer(append))
            #expect(again.status == .unauthorized)
            #expect(again["error"] == "connect_token_invalid")
            let verified = try await client.call(
                .post, "/connect/append/verify", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            #expect(verified.status == .ok, "\(verified.json)")

            let missing = try await client.call(.get, "/connect/passkeys")
            #expect(missing["error"] == "connect_token_missing")
            // Without a token, a route that checks its input before it uses up the token answers as unauthenticated first.
            for (method, path, body) in [(HTTPRequest.Method.delete, "/connect/passkeys/0", nil), (.post, "/connect/append/options", ["replaces": ""] as JSONValue)] {
                let anonymous = try await client.call(method, path, json: body)
                #expect(anonymous.status == .unauthorized && anonymous["error"] == "connect_token_missing", "\(path): \(anonymous.json)")
            }
            let list = try await harness.token(client, "passkey-list")
            harness.server.clock.advance(301)
            let expired = try await client.call(.get, "/connect/passkeys", headers: ConnectHarness.bearer(list))
            #expect(expired.status == .unauthorized)
            #expect(expired["error"] == "connect_token_invalid")
        }
    }

    @Test("append links the app's user: a new account on first use, the same one after; excludeCredentials lists its passkeys")
    func appendLinksAccounts() async throws {
        let harness = try await ConnectHarness()
        let first = try Device(server: harness.server, credentialID: 0xa1)
        let second = try Device(server: harness.server, credentialID: 0xa2)
        try await harness.server.run { client in
            let one = try await harness.append(client, device: first)
            #expect(one.status == .ok, "\(one.json)")
            #expect(one["username"] == "ann@example.com")
            #expect(one["passkey"]?.objectValue?["synced"] == false)

            let token = try await harness.token(client, "passkey-append")
            let options = try await client.call(.post, "/connect/append/options", headers: ConnectHarness.bearer(token))
            #expect(options["excludeCredentials"]?.arrayValue?.compactMap { $0.objectValue?["id"] } == [one["credentialId"] ?? nil])
            #expect(options["user"]?.objectValue?["name"] == "ann@example.com")
            let two = try await client.call(
                .post, "/connect/append/verify", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": second.create(options.json)])
            #expect(two.status == .ok, "\(two.json)")
            #expect(two["userId"] == one["userId"], "the second passkey joins the same account")

            // Completed through the guide's /api path, an append describes the account as stored, not as of its options.
            let created = try #require(try await harness.server.repository.user(id: one["userId"]?.stringValue ?? "")).createdAt
            harness.server.clock.advance(3600)
            let third = try Device(server: harness.server, credentialID: 0xa4)
            let options4 = try await harness.appendOptions(client)
            let viaAPI = try await client.call(.post, "/api/complete-registration", json: ["credential": third.create(options4.json)])
            #expect(viaAPI.status == .ok, "\(viaAPI.json)")
            #expect(viaAPI["id"] == one["userId"])
            // Its proof names the app's user, as /connect/append/verify's does: the backend starts a session from it.
            let jwks = try await client.call(.get, "/.well-known/jwks.json")
            let appended = try #require(verifyJWS(viaAPI["signedPasskeyData"]?.stringValue ?? "", jwks: jwks.json))
            #expect(appended["external_user_id"] == "app-user-1" && appended["ceremony"] == "registration", "\(appended)")
            let signedIn = try await client.call(
                .post, "/api/complete-authentication",
                json: ["assertion": try third.get(try await client.call(.post, "/api/authentication-challenge", json: [:]).json, signCount: 1)])
            #expect(signedIn.status == .ok, "\(signedIn.json)")
            #expect(viaAPI["createdAt"] != nil && viaAPI["createdAt"] == signedIn["createdAt"])
            #expect(created < harness.server.clock.now.addingTimeInterval(-3000))

            // A name taken by an account that is not linked is refused, not merged.
            _ = try await client.call(.get, "/generate-registration-options?username=carol")
            let other = try Device(server: harness.server, credentialID: 0xa3)
            let options3 = try await client.call(.get, "/generate-registration-options?username=carol")
            _ = try await client.call(.post, "/verify-registration", json: ["challengeKey": options3["challengeKey"] ?? nil, "cred": other.create(options3.json)])
            let clash = try await client.call(
                .post, "/connect/tokens", json: ["type": "passkey-append", "user": ["id": "app-user-2", "name": "Carol"]], headers: harness.backend)
            #expect(clash.status == .conflict)
            #expect(clash["error"] == "username_taken")
        }
    }

    @Test("list, rename and delete with connect tokens; a deleted passkey is reported at sign-in")
    func manage() async throws {
        let harness = try await ConnectHarness()
        let device = try Device(server: harness.server)
        try await harness.server.run { client in
            let appended = try await harness.append(client, device: device)
            let id = try #require(appended["credentialId"]?.stringValue)
            let list = try await harness.token(client, "passkey-list")
            let listed = try await client.call(.get, "/connect/passkeys", headers: ConnectHarness.bearer(list))
            let passkey = try #require(listed["passkeys"]?.arrayValue?.first?.objectValue)
            #expect(passkey["id"] == .string(id))
            #expect(passkey["name"] == "Passkey")
            #expect(passkey["deviceBound"] == true)
            #expect(passkey["transports"] == ["internal", "hybrid"])
            #expect(passkey["createdAt"]?.stringValue?.hasSuffix("Z") == true)
            #expect(passkey["lastUsedAt"] == .null)
            // The RP ID and the account as its passkeys know it, for the WebAuthn signals (§5.1.10) an SDK sends.
            let owner = try #require(await harness.server.repository.user(externalID: "app-user-1"))
            #expect(listed["rpId"] == .string(harness.server.configuration.rpID))
            #expect(listed["user"] == ["id": .string(Base64URL.encode(owner.userHandle)), "name": "ann@example.com", "displayName": "Ann"])

            let renamed = try await client.call(.patch, "/connect/passkeys/\(id)", json: ["name": " Work phone "], headers: ConnectHarness.bearer(list))
            #expect(renamed.status == .ok, "\(renamed.json)")
            #expect(renamed["name"] == "Work phone")
            // A name is taken whole or refused, never stored shortened or with characters dropped.
            let combining = "e" + String(repeating: "\u{301}", count: 300)  // one character, 601 bytes
            for refused in ["  ", "\u{FEFF}", " \u{2060}\u{200B} ", "\u{3164}", "\u{2800}\u{2800}", String(repeating: "a", count: 65), "a\u{0}b", "two\nlines", "two\u{2028}lines", "\u{202E}reversed", combining] {
                let answer = try await client.call(.patch, "/connect/passkeys/\(id)", json: ["name": .string(refused)], headers: ConnectHarness.bearer(list))
                #expect(answer.status == .badRequest && answer["error"] == "name_invalid", "\(refused.debugDescription): \(answer.json)")
            }
            // Emoji sequences joined with U+200D are names people use.
            let emoji = "👩\u{200D}💻 laptop"
            let joined = try await client.call(.patch, "/connect/passkeys/\(id)", json: ["name": .string(emoji)], headers: ConnectHarness.bearer(list))
            #expect(joined["name"] == .string(emoji))
            let longest = String(repeating: "é", count: 64)
            let fits = try await client.call(.patch, "/connect/passkeys/\(id)", json: ["name": .string(longest)], headers: ConnectHarness.bearer(list))
            #expect(fits["name"] == .string(longest))
            let kept = try await client.call(.patch, "/connect/passkeys/\(id)", json: ["name": "Work phone"], headers: ConnectHarness.bearer(list))
            #expect(kept["name"] == "Work phone")
            let unknown = try await client.call(.patch, "/connect/passkeys/AAAA", json: ["name": "x"], headers: ConnectHarness.bearer(list))
            #expect(unknown.status == .notFound)
            #expect(unknown["error"] == "passkey_not_found")

            let delete = try await harness.token(client, "passkey-delete")
            let deleted = try await client.call(.delete, "/connect/passkeys/\(id)", headers: ConnectHarness.bearer(delete))
            #expect(deleted.status == .ok)
            #expect(deleted["deleted"] == true)
            let reused = try await client.call(.delete, "/connect/passkeys/\(id)", headers: ConnectHarness.bearer(delete))
            #expect(reused["error"] == "connect_token_invalid")
            let after = try await client.call(.get, "/connect/passkeys", headers: ConnectHarness.bearer(list))
            #expect(after["passkeys"] == [])

            // The device still offers the passkey: the app learns it was deleted here.
            let signIn = try await harness.signIn(client, device: device, signCount: 1)
            #expect(signIn.status == .badRequest)
            #expect(signIn["error"] == "passkey_deleted_on_server")
        }
    }

    @Test("reset: a new passkey replaces the old one only once it verifies")
    func reset() async throws {
        let harness = try await ConnectHarness()
        let old = try Device(server: harness.server, credentialID: 0xb1)
        let new = try Device(server: harness.server, credentialID: 0xb2)
        try await harness.server.run { client in
            let first = try await harness.append(client, device: old)
            let oldID = try #require(first["credentialId"]?.stringValue)

            // A reset whose new passkey fails verification leaves the old one in place.
            let options = try await harness.appendOptions(client, replaces: oldID)
            #expect(options["excludeCredentials"] == [], "the passkey being replaced is not excluded")
            let failed = try await client.call(
                .post, "/connect/append/verify",
                json: ["challengeKey": options["challengeKey"] ?? nil, "cred": new.create(options.json, origin: "https://evil.example")])
            #expect(failed["error"] == "origin_mismatch")
            #expect(await harness.server.repository.credential(id: old.authenticator.credentialID) != nil)

            let replaced = try await harness.append(client, device: new, replaces: oldID)
            #expect(replaced.status == .ok, "\(replaced.json)")
            #expect(await harness.server.repository.credential(id: old.authenticator.credentialID) == nil)
            #expect(await harness.server.repository.credential(id: new.authenticator.credentialID) != nil)

            let foreign = try await harness.token(client, "passkey-append", externalID: "app-user-9", name: "zed")
            let refused = try await client.call(
                .post, "/connect/append/options", json: ["replaces": replaced["credentialId"] ?? nil], headers: ConnectHarness.bearer(foreign))
            #expect(refused.status == .notFound)
            #expect(refused["error"] == "passkey_not_found")
        }
    }

    @Test("a passkey being added when the backend deletes the account is refused with user_not_found; the account stays deleted")
    func appendToDeletedAccount() async throws {
        let harness = try await ConnectHarness()
        let first = try Device(server: harness.server, credentialID: 0xc1)
        let second = try Device(server: harness.server, credentialID: 0xc2)
        try await harness.server.run { client in
            let appended = try await harness.append(client, device: first)
            let userID = try #require(appended["userId"]?.stringValue)
            let options = try await harness.appendOptions(client)
            #expect(options.status == .ok, "\(options.json)")

            let deleted = try await client.call(.delete, "/users/app-user-1", headers: harness.backend)
            #expect(deleted["deleted"] == true)
            let late = try await client.call(
                .post, "/connect/append/verify", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": second.create(options.json)])
            #expect(late.status == .notFound)
            #expect(late["error"] == "user_not_found")
            #expect(await harness.server.repository.user(id: userID) == nil)
            #expect(await harness.server.repository.user(username: "ann@example.com") == nil)
            #expect(await harness.server.repository.credential(id: second.authenticator.credentialID) == nil)
            // The challenge was used up by the failure.
            let again = try await client.call(
                .post, "/connect/append/verify", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": second.create(options.json)])
            #expect(again["error"] == "challenge_invalid")
        }
    }

    @Test("the backend lists and deletes a user's passkeys, and deletes users, by the app's own user id")
    func backendManagement() async throws {
        let harness = try await ConnectHarness()
        let device = try Device(server: harness.server)
        try await harness.server.run { client in
            let appended = try await harness.append(client, device: device)
            let id = try #require(appended["credentialId"]?.stringValue)
            let byExternal = try await client.call(.get, "/users/app-user-1/passkeys", headers: harness.backend)
            #expect(byExternal["passkeys"]?.arrayValue?.count == 1)
            let ours = try #require(appended["userId"]?.stringValue)
            let byOurs = try await client.call(.get, "/users/\(ours)/passkeys", headers: harness.backend)
            #expect(byOurs.json == byExternal.json)
            let nobody = try await client.call(.get, "/users/nobody/passkeys", headers: harness.backend)
            #expect(nobody.status == .notFound)

            let deleted = try await client.call(.delete, "/users/app-user-1/passkeys/\(id)", headers: harness.backend)
            #expect(deleted["deleted"] == true)
            let gone = try await client.call(.delete, "/users/app-user-1/passkeys/\(id)", headers: harness.backend)
            #expect(gone["error"] == "passkey_not_found")
            let user = try await client.call(.delete, "/users/app-user-1", headers: harness.backend)
            #expect(user["deleted"] == true)
            #expect(await harness.server.repository.user(id: ours) == nil)
            #expect(await harness.server.repository.user(externalID: "app-user-1") == nil)
            // A token issued before the account was deleted proves nothing: 404, as every user_not_found.
            let token = try #require(appended["signedPasskeyData"]?.stringValue)
            let late = try await client.call(.post, "/connect/verify", json: ["signedPasskeyData": .string(token)], headers: harness.backend)
            #expect(late.status == .notFound && late["error"] == "user_not_found", "\(late.json)")
        }
    }

    @Test("an id that is one account's app user id and another account's own id is 409 user_id_ambiguous until ?by says which")
    func backendAmbiguousID() async throws {
        let harness = try await ConnectHarness()
        try await harness.server.run { client in
            let first = try await harness.append(client, device: try Device(server: harness.server))
            let ours = try #require(first["userId"]?.stringValue)
            // The app names another of its users with exactly our id for the first account.
            let second = try await harness.append(
                client, device: try Device(server: harness.server, credentialID: 0xc2), externalID: ours, name: "bob@example.com")
            let theirs = try #require(second["userId"]?.stringValue, "\(second.json)")
            #expect(theirs != ours)

            let ambiguous = try await client.call(.get, "/users/\(ours)/passkeys", headers: harness.backend)
            #expect(ambiguous.status == .conflict && ambiguous["error"] == "user_id_ambiguous", "\(ambiguous.json)")
            let refused = try await client.call(.delete, "/users/\(ours)", headers: harness.backend)
            #expect(refused.status == .conflict && refused["error"] == "user_id_ambiguous")
            #expect(await harness.server.repository.user(id: ours) != nil)
            #expect(await harness.server.repository.user(id: theirs) != nil)

            let byOwn = try await client.call(.get, "/users/\(ours)/passkeys?by=userId", headers: harness.backend)
            #expect(byOwn["passkeys"]?.arrayValue?.first?.objectValue?["id"] == first["credentialId"], "\(byOwn.json)")
            let byExternal = try await client.call(.get, "/users/\(ours)/passkeys?by=externalUserId", headers: harness.backend)
            #expect(byExternal["passkeys"]?.arrayValue?.first?.objectValue?["id"] == second["credentialId"], "\(byExternal.json)")
            // `by` narrows the lookup: our id for the second account is not an app user id.
            let notExternal = try await client.call(.get, "/users/\(theirs)/passkeys?by=externalUserId", headers: harness.backend)
            #expect(notExternal.status == .notFound && notExternal["error"] == "user_not_found")
            let bogus = try await client.call(.get, "/users/\(ours)/passkeys?by=email", headers: harness.backend)
            #expect(bogus.status == .badRequest && bogus["error"] == "field_invalid")
            // Two answers to one question: refused, not the first one taken.
            let twice = try await client.call(.delete, "/users/\(ours)?by=userId&by=externalUserId", headers: harness.backend)
            #expect(twice.status == .badRequest && twice["error"] == "field_invalid", "\(twice.json)")
            #expect(await harness.server.repository.user(id: ours) != nil)

            let deleted = try await client.call(.delete, "/users/\(ours)?by=externalUserId", headers: harness.backend)
            #expect(deleted["deleted"] == true)
            #expect(await harness.server.repository.user(id: theirs) == nil)
            #expect(await harness.server.repository.user(id: ours) != nil)
            // One account left with that id: no ambiguity, no `by` needed.
            let plain = try await client.call(.get, "/users/\(ours)/passkeys", headers: harness.backend)
            #expect(plain["passkeys"]?.arrayValue?.count == 1)
        }
    }

    @Test("a linked account follows its app user's names from later tokens, but never takes another account's name")
    func linkedAccountFollowsNames() async throws {
        let harness = try await ConnectHarness()
        try await harness.server.run { client in
            // First linked by a list token without a name.
            let minted = try await client.call(
                .post, "/connect/tokens", json: ["type": "passkey-list", "user": ["id": "app-user-1"]], headers: harness.backend)
            let userID = try #require(minted["userId"]?.stringValue, "\(minted.json)")
            // The server's name for it, which its passkeys will carry, until the app gives one.
            #expect(await harness.server.repository.user(id: userID)?.username?.hasPrefix("anonymous-") == true)
            // The next token names the user: creation options and the account carry the name.
            let options = try await harness.appendOptions(client, name: "ann@example.com")
            #expect(options["user"]?.objectValue?["name"] == "ann@example.com", "\(options.json)")
            #expect(options["user"]?.objectValue?["displayName"] == "Ann", "\(options.json)")
            let stored = await harness.server.repository.user(id: userID)
            #expect(stored?.username == "ann@example.com" && stored?.displayName == "Ann")
            // A changed e-mail address: followed, the display name given again stays.
            _ = try await harness.token(client, "passkey-list", name: "ann.lee@example.com")
            #expect(await harness.server.repository.user(id: userID)?.username == "ann.lee@example.com")
            // Another account holds "bob@example.com": the token is still minted, the name stays.
            _ = try await harness.token(client, "passkey-list", externalID: "app-user-2", name: "bob@example.com")
            let kept = try await client.call(
                .post, "/connect/tokens", json: ["type": "passkey-list", "user": ["id": "app-user-1", "name": "BOB@example.com", "displayName": "Bobby"]],
                headers: harness.backend)
            #expect(kept.status == .ok && kept["userId"]?.stringValue == userID, "\(kept.json)")
            let after = await harness.server.repository.user(id: userID)
            #expect(after?.username == "ann.lee@example.com")
            #expect(after?.displayName == "Bobby", "a display name given applies even when the name is refused")
        }
    }

    @Test("a token signed before a key rotation verifies during the overlap, not after the old key is retired")
    func keyRotation() async throws {
        let harness = try await ConnectHarness()
        let device = try Device(server: harness.server)
        try await harness.server.run { client in
            let appended = try await harness.append(client, device: device)
            let oldToken = try #require(appended["signedPasskeyData"]?.stringValue)
            let before = try await client.call(.get, "/.well-known/jwks.json")

            _ = try await Administration.rotateSigningKey(repository: harness.server.repository, overlap: 3600, now: harness.server.clock.now)
            harness.server.clock.advance(31)  // servers reload keys every 30 s
            let during = try await client.call(.get, "/.well-known/jwks.json")
            #expect(during["keys"]?.arrayValue?.count == 2, "old and new key published during the overlap")
            let signIn = try await harness.signIn(client, device: device, signCount: 1)
            let newToken = try #require(signIn["signedPasskeyData"]?.stringValue)
            #expect(verifyJWS(newToken, jwks: before.json) == nil, "new tokens are signed with the new key")
            #expect(verifyJWS(newToken, jwks: during.json) != nil)
            let old = try await client.call(.post, "/connect/verify", json: ["signedPasskeyData": .string(oldToken)], headers: harness.backend)
            #expect(old["success"] == true, "\(old.json)")

            // Retire immediately: a later token from the retired key no longer verifies.
            let signIn2 = try await harness.signIn(client, device: device, signCount: 2)
            let lastOfKey2 = try #require(signIn2["signedPasskeyData"]?.stringValue)
            _ = try await Administration.rotateSigningKey(repository: harness.server.repository, overlap: 0, now: harness.server.clock.now)
            harness.server.clock.advance(31)
            let retired = try await client.call(.post, "/connect/verify", json: ["signedPasskeyData": .string(lastOfKey2)], headers: harness.backend)
            #expect(retired["error"] == "token_invalid")
            let after = try await client.call(.get, "/.well-known/jwks.json")
            #expect(verifyJWS(lastOfKey2, jwks: after.json) == nil, "the retired key left the JWKS")
            #expect(verifyJWS(lastOfKey2, jwks: during.json) != nil)
            // Overlap 0 (a compromise) retires every earlier key, also the first one whose own overlap was still running.
            #expect(after["keys"]?.arrayValue?.count == 1, "only the newest key is published")
            #expect(verifyJWS(oldToken, jwks: after.json) == nil, "the first key left the JWKS too")
        }
    }

    @Test("conditional create: presence and verification are waived only for options asked with mediation conditional")
    func conditionalCreate() async throws {
        let harness = try await ConnectHarness()
        let device = try Device(server: harness.server)
        try await harness.server.run { client in
            // A passkey made without a prompt (UP and UV clear) against ordinary append options is refused.
            let modal = try await harness.token(client, "passkey-append")
            let modalOptions = try await client.call(.post, "/connect/append/options", headers: ConnectHarness.bearer(modal))
            let refused = try await client.call(
                .post, "/connect/append/verify", json: ["challengeKey": modalOptions["challengeKey"] ?? nil, "cred": device.create(modalOptions.json, flags: [])])
            #expect(refused["error"] == "user_presence_required")

            let auto = try await harness.token(client, "passkey-append")
            let bad = try await client.call(.post, "/connect/append/options", json: ["mediation": "silent"], headers: ConnectHarness.bearer(auto))
            #expect(bad["error"] == "mediation_invalid")
            let options = try await client.call(.post, "/connect/append/options", json: ["mediation": "conditional"], headers: ConnectHarness.bearer(auto))
            let accepted = try await client.call(
                .post, "/connect/append/verify", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json, flags: [])])
            #expect(accepted.status == .ok, "\(accepted.json)")
            let token = try #require(accepted["signedPasskeyData"]?.stringValue)
            let jwks = try await client.call(.get, "/.well-known/jwks.json")
            let claims = try #require(verifyJWS(token, jwks: jwks.json))
            #expect(claims["amr"] == ["fido"], "no user verification, so no mfa")
        }
    }

    @Test("passkey-login tokens start a sign-in for their user only")
    func loginToken() async throws {
        let harness = try await ConnectHarness()
        let device = try Device(server: harness.server)
        try await harness.server.run { client in
            let appended = try await harness.append(client, device: device)
            let token = try await harness.token(client, "passkey-login")
            let options = try await client.call(.post, "/connect/login/options", headers: ConnectHarness.bearer(token))
            #expect(options["allowCredentials"]?.arrayValue?.first?.objectValue?["id"] == appended["credentialId"])
            let signedIn = try await client.call(
                .post, "/verify-authentication", json: ["cred": try device.get(options.json, signCount: 1), "challengeKey": options["challengeKey"] ?? nil])
            #expect(signedIn["verified"] == true)
            let reused = try await client.call(.post, "/connect/login/options", headers: ConnectHarness.bearer(token))
            #expect(reused["error"] == "connect_token_invalid")

            // An account without passkeys has nothing to confirm with: a clear 404 rather than options any passkey of
            // the RP could answer, each then refused.
            _ = try await harness.token(client, "passkey-list", externalID: "app-user-2", name: "bo@example.com")  // links bo
            let bare = try await harness.token(client, "passkey-login", externalID: "app-user-2", name: "bo@example.com")
            let none = try await client.call(.post, "/connect/login/options", headers: ConnectHarness.bearer(bare))
            #expect(none.status == .notFound && none["error"] == "passkey_not_found", "\(none.json)")
        }
    }
}

@Suite("Connect decisions: rollout, declines, failures, one-tap")
struct ConnectDecisionTests {
    static let iPhone: JSONValue = ["platform": "iOS", "osVersion": "17.4", "platformAuthenticator": true, "conditionalMediation": true]

    func appendDecision(_ harness: ConnectHarness, _ client: any TestClientProtocol, externalID: String, body: JSONValue = ["client": iPhone])
        async throws -> JSONResponse
    {
        let token = try await harness.token(client, "passkey-append", externalID: externalID, name: externalID)
        return try await client.call(.post, "/connect/append/decision", json: body, headers: ConnectHarness.bearer(token))
    }

    @Test("rollout at 0% and 100%, and at 50% stable per user")
    func percentages() async throws {
        for (percentage, expected) in [(0, "skip"), (100, "ask")] {
            let harness = try await ConnectHarness { $0.connect.rollout.percentage = percentage }
            try await harness.server.run { client in
                let decision = try await appendDecision(harness, client, externalID: "u-1")
                #expect(decision["step"] == .string(expected), "\(percentage)%: \(decision.json)")
            }
        }
        let harness = try await ConnectHarness { $0.connect.rollout.percentage = 50 }
        try await harness.server.run { client in
            var asked = 0
            for index in 0..<40 {
                let first = try await appendDecision(harness, client, externalID: "user-\(index)")
                let second = try await appendDecision(harness, client, externalID: "user-\(index)")
                #expect(first["step"] == second["step"], "a user stays in or out")
                let user = try #require(await harness.server.repository.user(externalID: "user-\(index)"))
                let inRollout = RolloutPolicy.bucket(userID: user.id) < 50
                #expect(first["step"] == (inRollout ? "ask" : "skip"))
                #expect(first["reason"] == (inRollout ? "eligible" : "not_in_rollout"))
                if inRollout { asked += 1 }
            }
            #expect(asked > 5 && asked < 35, "about half of 40 users: \(asked)")
        }
    }

    @Test("append is skipped for declines within the cooldown, missing platform authenticators, usable passkeys, other platforms and old OS versions")
    func appendRules() async throws {
        let harness = try await ConnectHarness {
            $0.connect.rollout.platforms = ["iOS", "Android"]
            $0.connect.rollout.minimumOSVersions = ["iOS": "16.0"]
            $0.connect.rollout.declineCooldownDays = 14
        }
        try await harness.server.run { client in
            let now = harness.server.clock.now
            let formatter = ISO8601DateFormatter()
            let recent = try await appendDecision(
                harness, client, externalID: "d1", body: ["client": Self.iPhone, "lastDeclinedAt": .string(formatter.string(from: now.addingTimeInterval(-86_400)))])
            #expect(recent["step"] == "skip")
            #expect(recent["reason"] == "declined_recently")
            let old = try await appendDecision(
                harness, client, externalID: "d1", body: ["client": Self.iPhone, "lastDeclinedAt": .string(formatter.string(from: now.addingTimeInterval(-15 * 86_400)))])
            #expect(old["step"] == "ask")
            // As JavaScript's toISOString() writes it, with milliseconds.
            let milliseconds = ISO8601DateFormatter()
            milliseconds.formatOptions.insert(.withFractionalSeconds)
            let fromBrowser = try await appendDecision(
                harness, client, externalID: "d1",
                body: ["client": Self.iPhone, "lastDeclinedAt": .string(milliseconds.string(from: now.addingTimeInterval(-86_400.5)))])
            #expect(fromBrowser["reason"] == "declined_recently", "\(fromBrowser.json)")
            let badDate = try await appendDecision(harness, client, externalID: "d1", body: ["client": Self.iPhone, "lastDeclinedAt": "yesterday"])
            #expect(badDate["error"] == "date_invalid")

            let noAuthenticator = try await appendDecision(harness, client, externalID: "d2", body: ["client": ["platform": "iOS", "osVersion": "17.0"]])
            #expect(noAuthenticator["reason"] == "no_platform_authenticator")
            let windows = try await appendDecision(
                harness, client, externalID: "d3", body: ["client": ["platform": "Windows", "osVersion": "11", "platformAuthenticator": true]])
            #expect(windows["reason"] == "platform_not_allowed")
            let oldOS = try await appendDecision(
                harness, client, externalID: "d4", body: ["client": ["platform": "iOS", "osVersion": "15.7", "platformAuthenticator": true]])
            #expect(oldOS["reason"] == "os_too_old")

            // An iCloud Keychain passkey already covers this iPhone; a device-bound one does not.
            let user = try #require(await harness.server.repository.user(externalID: "d1"))
            try await harness.server.repository.register(
                CredentialRecordEntry(
                    id: [1, 2, 3], userID: user.id, publicKey: [], algorithm: -7, signCount: 0, uvInitialized: true, transports: ["internal"],
                    backupEligible: false, backupState: false, aaguid: "00000000-0000-0000-0000-000000000000", attestationFormat: "none",
                    attestationType: "none", createdAt: now), for: user)
            #expect(try await appendDecision(harness, client, externalID: "d1")["step"] == "ask")
            try await harness.server.repository.register(
                CredentialRecordEntry(
                    id: [4, 5, 6], userID: user.id, publicKey: [], algorithm: -7, signCount: 0, uvInitialized: true,
                    transports: ["internal", "hybrid"], backupEligible: true, backupState: true, aaguid: "fbfc3007-154e-4ecc-8c0b-6e020557d7bd",
                    attestationFormat: "none", attestationType: "none", createdAt: now), for: user)
            let covered = try await appendDecision(harness, client, externalID: "d1")
            #expect(covered["reason"] == "passkey_exists")
            let android = try await appendDecision(
                harness, client, externalID: "d1", body: ["client": ["platform": "Android", "osVersion": "14", "platformAuthenticator": true]])
            #expect(android["step"] == "ask", "an Apple passkey does not sign in on Android without another device")
        }
    }

    @Test("auto-append where conditional create exists and the policy allows it")
    func autoAppend() async throws {
        let harness = try await ConnectHarness { $0.connect.rollout.autoAppend = true }
        try await harness.server.run { client in
            let auto = try await appendDecision(
                harness, client, externalID: "a1",
                body: ["client": ["platform": "iOS", "osVersion": "18.0", "platformAuthenticator": true, "conditionalCreate": true]])
            #expect(auto["step"] == "auto")
            let ask = try await appendDecision(harness, client, externalID: "a1")
            #expect(ask["step"] == "ask")
        }
    }

    @Test("login: one-tap for a known identifier, a text field with AutoFill options, fallback after failures or when off")
    func login() async throws {
        let harness = try await ConnectHarness()
        let device = try Device(server: harness.server)
        try await harness.server.run { client in
            _ = try await harness.append(client, device: device)
            let oneTap = try await client.call(.post, "/connect/login/decision", json: ["client": Self.iPhone, "identifier": "ANN@example.com"])
            #expect(oneTap["step"] == "one-tap", "\(oneTap.json)")
            #expect(oneTap["identifier"] == "ann@example.com", "the account's own spelling, not the one typed")

            let unknown = try await client.call(.post, "/connect/login/decision", json: ["client": Self.iPhone, "identifier": "nobody"])
            #expect(unknown["step"] == "text-field")
            let options = try #require(unknown["options"]?.objectValue)
            #expect(options["allowCredentials"] == [])
            // The AutoFill challenge works for a discoverable sign-in.
            let signedIn = try await client.call(
                .post, "/verify-authentication", json: ["cred": try device.get(.object(options), signCount: 1), "challengeKey": options["challengeKey"] ?? nil])
            #expect(signedIn["verified"] == true)

            let noConditional = try await client.call(
                .post, "/connect/login/decision", json: ["client": ["platform": "iOS", "osVersion": "17", "platformAuthenticator": true]])
            #expect(noConditional["step"] == "text-field")
            #expect(noConditional["options"] == nil)
            let failures = try await client.call(
                .post, "/connect/login/decision", json: ["client": Self.iPhone, "identifier": "ann@example.com", "recentFailures": 3])
            #expect(failures["step"] == "fallback")
            #expect(failures["reason"] == "too_many_failures")
            let nothing = try await client.call(.post, "/connect/login/decision", json: ["client": ["platform": "Linux"]])
            #expect(nothing["step"] == "fallback")
            #expect(nothing["reason"] == "no_platform_authenticator")
            // A client report of the wrong type is refused, as any wrong type is, not read as an empty report.
            for wrong: JSONValue in ["x", 3, ["iOS"]] {
                let login = try await client.call(.post, "/connect/login/decision", json: ["client": wrong])
                #expect(login.status == .badRequest && login["error"] == "field_invalid", "\(wrong): \(login.json)")
                let append = try await appendDecision(harness, client, externalID: "typed", body: ["client": wrong])
                #expect(append.status == .badRequest && append["error"] == "field_invalid", "\(wrong): \(append.json)")
            }
            let nullClient = try await client.call(.post, "/connect/login/decision", json: ["client": nil])
            #expect(nullClient["step"] == "fallback")
            let negative = try await client.call(.post, "/connect/login/decision", json: ["recentFailures": -1])
            #expect(negative["error"] == "recent_failures_invalid")
        }
        let off = try await ConnectHarness { $0.connect.rollout.enabled = false }
        try await off.server.run { client in
            let decision = try await client.call(.post, "/connect/login/decision", json: ["client": Self.iPhone])
            #expect(decision["step"] == "fallback")
            #expect(decision["reason"] == "rollout_disabled")
        }
    }
}
