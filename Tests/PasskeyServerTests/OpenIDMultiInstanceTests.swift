import Foundation
import HTTPTypes
import PasskeyRelyingParty
import PasskeyStorage
import PasskeyStoragePostgres
import PasskeyTestSupport
import PasskeyWire
import Testing

/// Two `passkey-server` processes, one OpenID issuer, one PostgreSQL database, as behind a load balancer: the
/// authorization request and the passkey on one, the code and the refresh token on the other, and reuse caught across
/// both.
@Suite("OpenID Provider on two instances", .enabled(if: TestPostgres.enabled, "PASSKEY_TEST_POSTGRES_URL is not set"))
struct OpenIDMultiInstanceTests {
    static let issuer = "https://auth.example.com"
    static let redirect = "https://app.example.com/callback"

    @Test("authorize and sign in on one instance, exchange and refresh on the other; a reused code or refresh token is refused on both", .timeLimit(.minutes(3)))
    func crossInstanceCodeFlow() async throws {
        let url = try #require(TestPostgres.freshURL(), Comment(rawValue: TestPostgres.missingMessage))
        let ports = try LocalPorts.free(2)
        let arguments = ["--options-per-minute", "10000", "--oidc-issuer", Self.issuer]
        async let startA = ServerProcess.start(database: url, port: ports[0], extraArguments: arguments)
        async let startB = ServerProcess.start(database: url, port: ports[1], extraArguments: arguments)
        let (serverA, serverB) = try await (startA, startB)
        defer {
            serverA.stop()
            serverB.stop()
        }
        let a = ProcessClient(port: serverA.port)
        let b = ProcessClient(port: serverB.port)

        let storage = try await PostgresRepository.connect(try PostgresConfiguration(url: url))
        let made = try await OpenIDClients(repository: storage, audit: StoredAuditLog(repository: storage)).create(
            OpenIDClients.Settings(name: "App", redirectURIs: [Self.redirect]), isPublic: false, by: AuditActor(description: "by the test"))
        await storage.shutdown()
        let clientID = made.0.id
        let basic = "Basic " + Data("\(clientID):\(made.secret ?? "")".utf8).base64EncodedString()

        var ann = try CeremonyDriver(credentialID: Array("oidc-ann".utf8) + [UInt8](repeating: 3, count: 8))
        let registration = try await ann.registrationBody(from: a, username: "ann").get()
        let registered = await b.call(.post, "/verify-registration", json: registration)
        let userID = try #require(registered["userId"]?.stringValue, "\(registered.json.serialized())")

        // The authorization request and the passkey on A.
        let query = Self.query([
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", Self.redirect), ("scope", "openid offline_access"), ("state", "st"),
            ("nonce", "nn"),
        ])
        let page = await a.send(.get, "/oidc/authorize?" + query)
        #expect(page.status == 200, "\(page.body)")
        let sealed = try #require(page.body.range(of: "data-request=\"").map { String(page.body[$0.upperBound...].prefix { $0 != "\"" }) })
        let options = await a.call(.get, "/generate-authentication-options")
        let clientData = TestAuthenticator.clientData(type: "webauthn.get", challenge: options["challenge"]?.stringValue ?? "", origin: Self.issuer)
        let assertion = try ann.device.assertion(authData: ann.device.authData(for: "get") { $0.signCount = 1 }.build(), clientData: clientData)
        let signedIn = await a.call(.post, "/oidc/sign-in", json: ["request": .string(sealed), "cred": assertion.json, "challengeKey": options["challengeKey"] ?? .null])
        let location = try #require(signedIn["location"]?.stringValue, "\(signedIn.json.serialized())")
        let code = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "code" }?.value)

        // The code on B; its second use on A is refused and revokes what B issued.
        let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .authorization: basic]
        let exchange = "grant_type=authorization_code&code=\(code)&redirect_uri=" + (Self.redirect.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        let tokens = await b.send(.post, "/oidc/token", headers: form, body: exchange)
        let answer = try #require((try? JSONValue.parse(tokens.body))?.objectValue, "\(tokens.body)")
        #expect(tokens.status == 200, "\(tokens.body)")
        let access = try #require(answer["access_token"]?.stringValue)
        let refresh = try #require(answer["refresh_token"]?.stringValue)
        let info = await a.call(.get, "/oidc/userinfo", headers: [.authorization: "Bearer \(access)"])
        #expect(info["sub"]?.stringValue == userID, "\(info.json.serialized())")

        // The refresh token rotated on A; the old one presented on B revokes the family everywhere.
        let rotated = await a.send(.post, "/oidc/token", headers: form, body: "grant_type=refresh_token&refresh_token=\(refresh)")
        let newAccess = try #require((try? JSONValue.parse(rotated.body))?.objectValue?["access_token"]?.stringValue, "\(rotated.body)")
        let replay = await b.send(.post, "/oidc/token", headers: form, body: "grant_type=refresh_token&refresh_token=\(refresh)")
        #expect(replay.status == 400 && replay.body.contains("invalid_grant"), "\(replay.body)")
        #expect(await a.call(.get, "/oidc/userinfo", headers: [.authorization: "Bearer \(newAccess)"]).status == 401)

        let reused = await a.send(.post, "/oidc/token", headers: form, body: exchange)
        #expect(reused.status == 400 && reused.body.contains("invalid_grant"), "\(reused.body)")

        // The session cookie A set works on B.
        let cookie = try #require(await Self.cookie(a, query: query, ann: &ann))
        let again = await b.send(.get, "/oidc/authorize?" + query, headers: [.cookie: cookie])
        #expect(again.status == 303 && again.headers[.location]?.contains("code=") == true, "\(again.status) \(again.body)")
        await a.close()
        await b.close()
    }

    /// A fresh passkey sign-in on `client`; the session cookie it set.
    static func cookie(_ client: ProcessClient, query: String, ann: inout CeremonyDriver) async throws -> String? {
        let page = await client.send(.get, "/oidc/authorize?" + query)
        let sealed = try #require(page.body.range(of: "data-request=\"").map { String(page.body[$0.upperBound...].prefix { $0 != "\"" }) })
        let options = await client.send(.get, "/generate-authentication-options")
        let parsed = try #require((try? JSONValue.parse(options.body))?.objectValue)
        let clientData = TestAuthenticator.clientData(type: "webauthn.get", challenge: parsed["challenge"]?.stringValue ?? "", origin: issuer)
        let assertion = try ann.device.assertion(authData: ann.device.authData(for: "get") { $0.signCount = 2 }.build(), clientData: clientData)
        let body: JSONValue = ["request": .string(sealed), "cred": assertion.json, "challengeKey": parsed["challengeKey"] ?? .null]
        let signedIn = await client.send(.post, "/oidc/sign-in", headers: [.contentType: "application/json"], body: body.serialized())
        return signedIn.headers[.setCookie].flatMap { $0.split(separator: ";").first.map(String.init) }
    }

    static func query(_ parameters: [(String, String)]) -> String {
        var components = URLComponents()
        components.queryItems = parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
        return components.percentEncodedQuery ?? ""
    }
}
