import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import PasskeyServer
import PasskeyServerTestSupport
import PasskeyWire
import Testing

@Suite("Golden answers: every endpoint's answers keep their members, types and null versus absent")
struct GoldenAnswerTests {
    /// Routes whose answers are not JSON of ours: pages, static files, the event stream, metrics, the OpenAPI document.
    static let notJSON: Set<String> = [
        "GET /", "GET /demo.js", "GET /webauthn-json.js", "GET /demo.css", "GET /favicon.svg", "GET /openapi.json", "GET /metrics", "GET /dashboard",
        "GET /dashboard/log", "GET /dashboard/users", "GET /dashboard/users/{id}", "GET /dashboard/settings", "GET /dashboard/webhooks",
        "GET /dashboard/login", "GET /dashboard/setup", "GET /dashboard/dashboard.js", "GET /dashboard/qr.js",
        "GET /dashboard/dashboard.css", "GET /dashboard/events/stream", "GET /dashboard/flagged", "GET /dashboard/applications",
        // The OpenID Provider's browser-facing routes: pages, redirects and the sign-in page's files.
        "GET /oidc/authorize", "POST /oidc/authorize", "GET /oidc/end-session", "POST /oidc/end-session", "GET /oidc/oidc.js", "GET /oidc/oidc.css",
    ]

    static func configure(_ configuration: inout ServerConfiguration) {
        configuration.rpID = "example.com"
        configuration.origins = ["https://example.com"]
        configuration.appleAppIDs = ["ABCDE12345.com.example.app"]
        configuration.androidApps = [.init(packageName: "com.example.app", sha256Fingerprints: [String(repeating: "AB:", count: 31) + "AB"])]
        configuration.enrollURL = "https://example.com/account/passkeys/new"
        configuration.manageURL = "https://example.com/account/passkeys"
        configuration.oidcIssuer = "https://example.com"
    }

    @Test("a session through every endpoint answers as recorded in Golden/answers.json")
    func everyEndpoint() async throws {
        let harness = try DashboardHarness(Self.configure)
        let server = harness.server
        let apiKey = try await Administration.createAPIKey(name: "golden", repository: server.repository).secret
        let backend: HTTPFields = [.authorization: "Bearer \(apiKey)"]
        let golden = GoldenAnswers()
        try await server.run { client in
            try await Self.ceremonies(client, server, golden)
            try await Self.appBackendGuide(client, server, golden)
            try await Self.connect(client, server, golden, backend: backend)
            try await Self.usersAndLinks(client, server, golden, backend: backend)
            try await Self.webhooks(client, golden, backend: backend, prefix: "", rotate: "rotate-secret")
            try await Self.documents(client, golden)
            try await Self.openID(client, server, golden, backend: backend)
            try await Self.dashboard(client, harness, golden)
        }
        let routes = Set(buildRouter(server.configuration, repository: server.repository).routes.map { route in
            "\(route.method.rawValue) /" + route.path.description.split(separator: "/").joined(separator: "/")
        })
        let missing = routes.subtracting(golden.routes).subtracting(Self.notJSON)
        #expect(missing.isEmpty, "routes without a golden answer: \(missing.sorted())")
        try golden.check()
    }

    static func ceremonies(_ client: any TestClientProtocol, _ server: TestServer, _ golden: GoldenAnswers) async throws {
        let ann = try Device(server: server, credentialID: 0xa1)
        let options = try await golden.call(
            client, .get, "/generate-registration-options", "/generate-registration-options?username=ann", label: "named")
        try await golden.call(
            client, .post, "/verify-registration", json: ["username": "ann", "challengeKey": options["challengeKey"] ?? nil, "cred": ann.create(options.json)],
            label: "named")
        try await golden.call(client, .get, "/generate-registration-options", "/generate-registration-options?username=ann", label: "taken")
        try await golden.call(client, .get, "/generate-registration-options", "/generate-registration-options?username=%20", label: "invalid")

        let anonymous = try Device(server: server, credentialID: 0xa2)
        let anonymousOptions = try await golden.call(client, .post, "/generate-registration-options", json: [:], label: "anonymous")
        try await golden.call(
            client, .post, "/verify-registration",
            json: ["challengeKey": anonymousOptions["challengeKey"] ?? nil, "cred": anonymous.create(anonymousOptions.json)], label: "anonymous")
        try await golden.call(client, .post, "/generate-registration-options", json: ["contact": "email"], label: "sign-up sheet")
        try await golden.call(client, .post, "/verify-registration", json: ["challengeKey": "nope"], label: "no credential")
        try await golden.call(
            client, .post, "/verify-registration", json: ["challengeKey": "nope", "cred": try Device(server: server, credentialID: 0xa3).create(anonymousOptions.json)],
            label: "stale challenge")

        let discoverable = try await golden.call(client, .get, "/generate-authentication-options", label: "usernameless")
        try await golden.call(
            client, .post, "/verify-authentication",
            json: ["challengeKey": discoverable["challengeKey"] ?? nil, "cred": try ann.get(discoverable.json, signCount: 1)], label: "named account")
        let named = try await golden.call(client, .post, "/generate-authentication-options", json: ["username": "ann"], label: "named")
        try await golden.call(client, .post, "/verify-authentication", json: ["cred": try ann.get(named.json, signCount: 2)], label: "named")
        try await golden.call(
            client, .post, "/verify-authentication", json: ["cred": try ann.get(named.json, signCount: 3)], label: "challenge spent")
        let forAnonymous = try await client.call(.get, "/generate-authentication-options")
        try await golden.call(
            client, .post, "/verify-authentication", json: ["cred": try anonymous.get(forAnonymous.json, signCount: 1)], label: "anonymous account")
        // Options for an unknown username list made-up credentials, with or without transports by the server's secret: not
        // a shape of their own (the named options above are the contract).
        let stranger = try Device(server: server, credentialID: 0xee)
        let fresh = try await client.call(.get, "/generate-authentication-options")
        try await golden.call(client, .post, "/verify-authentication", json: ["cred": try stranger.get(fresh.json)], label: "unknown passkey")
        try await golden.call(client, .post, "/verify-authentication", json: ["cred": "not an object"], label: "malformed")
    }

    static func appBackendGuide(_ client: any TestClientProtocol, _ server: TestServer, _ golden: GoldenAnswers) async throws {
        let carol = try Device(server: server, credentialID: 0xc3)
        try await golden.call(client, .post, "/api/registration-challenge", json: ["username": "dave", "displayName": "Dave"])
        let options = try await golden.call(client, .post, "/api/start-registration", json: ["username": "carol", "displayName": "Carol"])
        try await golden.call(client, .post, "/api/complete-registration", json: ["username": "carol", "credential": carol.create(options.json)])
        try await golden.call(client, .post, "/api/complete-registration", json: ["username": "carol"], label: "no credential")
        try await golden.call(client, .post, "/api/authentication-challenge", json: ["username": "carol"])
        let signIn = try await golden.call(client, .post, "/api/start-authentication", json: [:])
        try await golden.call(
            client, .post, "/api/complete-authentication", json: ["assertion": try carol.get(signIn.json, signCount: 1)])
        try await golden.call(
            client, .post, "/api/complete-authentication", json: ["assertion": try carol.get(signIn.json, signCount: 2)], label: "challenge spent")
    }

    static func connect(_ client: any TestClientProtocol, _ server: TestServer, _ golden: GoldenAnswers, backend: HTTPFields) async throws {
        func token(_ type: String, label: String? = nil) async throws -> String {
            let answer = try await golden.call(
                client, .post, "/connect/tokens",
                json: ["type": .string(type), "user": ["id": "app-user-1", "name": "erin@example.com", "displayName": "Erin"]], headers: backend,
                label: label)
            return answer["token"]?.stringValue ?? ""
        }
        func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }
        let iPhone: JSONValue = ["platform": "iOS", "osVersion": "18.0", "platformAuthenticator": true]
        try await golden.call(client, .post, "/connect/tokens", json: ["type": "passkey-append"], label: "no key")
        try await golden.call(client, .post, "/connect/tokens", json: ["type": "nonsense", "user": ["id": "x"]], headers: backend, label: "bad type")

        let append = try await token("passkey-append")
        try await golden.call(client, .post, "/connect/append/decision", json: ["client": iPhone], headers: bearer(append))
        let options = try await golden.call(client, .post, "/connect/append/options", json: [:], headers: bearer(append))
        let erin = try Device(server: server, credentialID: 0xe1)
        let appended = try await golden.call(
            client, .post, "/connect/append/verify", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": erin.create(options.json), "client": iPhone])
        try await golden.call(client, .post, "/connect/append/options", json: [:], headers: bearer(append), label: "token spent")
        try await golden.call(client, .post, "/connect/verify", json: ["signedPasskeyData": appended["signedPasskeyData"] ?? nil], headers: backend)
        try await golden.call(
            client, .post, "/connect/verify", json: ["signedPasskeyData": appended["signedPasskeyData"] ?? nil], headers: backend, label: "replayed")

        let list = try await token("passkey-list", label: "list")
        try await golden.call(client, .get, "/connect/passkeys", headers: bearer(list))
        try await golden.call(client, .get, "/connect/passkeys", headers: bearer(append), label: "wrong token")
        let credentialID = appended["credentialId"]?.stringValue ?? ""
        try await golden.call(
            client, .patch, "/connect/passkeys/{credentialId}", "/connect/passkeys/\(credentialID)", json: ["name": "Work phone"], headers: bearer(list))

        let login = try await token("passkey-login", label: "login")
        try await golden.call(client, .post, "/connect/login/decision", json: ["client": iPhone, "identifier": "erin@example.com"])
        try await golden.call(client, .post, "/connect/login/options", headers: bearer(login))

        let delete = try await token("passkey-delete", label: "delete")
        try await golden.call(
            client, .delete, "/connect/passkeys/{credentialId}", "/connect/passkeys/\(credentialID)?platform=iOS&osVersion=18.0", headers: bearer(delete))
        try await golden.call(
            client, .delete, "/connect/passkeys/{credentialId}", "/connect/passkeys/\(credentialID)", headers: bearer(try await token("passkey-delete", label: "delete")),
            label: "gone")
    }

    static func usersAndLinks(_ client: any TestClientProtocol, _ server: TestServer, _ golden: GoldenAnswers, backend: HTTPFields) async throws {
        let frank = try Device(server: server, credentialID: 0xf1)
        let options = try await client.call(.get, "/generate-registration-options?username=frank")
        let registered = try await client.call(
            .post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": frank.create(options.json)])
        let userID = registered["userId"]?.stringValue ?? ""
        let credentialID = registered["credentialId"]?.stringValue ?? ""
        let user = "/users/\(userID)"
        try await golden.call(client, .get, "/users/{id}/passkeys", "\(user)/passkeys?by=userId", headers: backend)
        try await golden.call(client, .get, "/users/{id}/passkeys", "/users/nobody/passkeys", headers: backend, label: "unknown")
        try await golden.call(client, .get, "/users/{id}/passkeys", "\(user)/passkeys?by=userId", label: "no key")
        try await golden.call(client, .get, "/passkeys/compromised", headers: backend, label: "no metadata")
        try await golden.call(client, .get, "/passkeys/compromised", label: "no key")
        try await golden.call(client, .patch, "/users/{id}", "\(user)?by=userId", json: ["disabled": true], headers: backend)
        try await golden.call(client, .patch, "/users/{id}", "\(user)?by=userId", json: ["disabled": false], headers: backend, label: "enabled")
        try await golden.call(client, .patch, "/users/{id}", "\(user)?by=userId", json: ["disabled": "yes"], headers: backend, label: "bad value")

        let minted = try await golden.call(client, .post, "/users/{id}/links", "\(user)/links?by=userId", json: ["replacePasskeys": true], headers: backend)
        let link: HTTPFields = [.authorization: "Bearer \(minted["token"]?.stringValue ?? "")"]
        let linkOptions = try await golden.call(client, .post, "/links/options", headers: link)
        let replacement = try Device(server: server, credentialID: 0xf2)
        try await golden.call(
            client, .post, "/links/verify", json: ["challengeKey": linkOptions["challengeKey"] ?? nil, "cred": replacement.create(linkOptions.json)],
            headers: link)
        try await golden.call(client, .post, "/links/options", headers: link, label: "used")
        try await golden.call(client, .post, "/users/{id}/links", "\(user)/links?by=userId", json: [:], headers: backend, label: "second")
        try await golden.call(client, .delete, "/users/{id}/links", "\(user)/links?by=userId", headers: backend)

        try await golden.call(
            client, .delete, "/users/{id}/passkeys/{credentialId}", "\(user)/passkeys/\(credentialID)?by=userId", headers: backend, label: "replaced")
        let passkeys = try await client.call(.get, "\(user)/passkeys?by=userId", headers: backend)
        let remaining = passkeys["passkeys"]?.arrayValue?.first?.objectValue?["id"]?.stringValue ?? ""
        try await golden.call(client, .delete, "/users/{id}/passkeys/{credentialId}", "\(user)/passkeys/\(remaining)?by=userId", headers: backend)
        try await golden.call(client, .delete, "/users/{id}", "\(user)?by=userId", headers: backend)
        try await golden.call(client, .delete, "/users/{id}", "\(user)?by=userId", headers: backend, label: "gone")
    }

    /// The webhook API, at `/webhooks` for a backend or `/dashboard/api/webhooks` for an admin (`prefix`).
    static func webhooks(
        _ client: any TestClientProtocol, _ golden: GoldenAnswers, backend: HTTPFields, prefix: String, rotate: String
    ) async throws {
        let base = "\(prefix)/webhooks"
        let created = try await golden.call(
            client, .post, base, json: ["url": "https://hooks.example.com/passkeys", "description": "billing", "eventTypes": ["user.deleted"]],
            headers: backend)
        try await golden.call(client, .post, base, json: ["url": "http://10.0.0.1/x"], headers: backend, label: "internal")
        let id = created["id"]?.stringValue ?? ""
        try await golden.call(client, .get, base, headers: backend)
        if prefix.isEmpty {
            try await golden.call(client, .get, "\(base)/{id}", "\(base)/\(id)", headers: backend)
            try await golden.call(client, .get, "\(base)/{id}", "\(base)/wh_nothing", headers: backend, label: "unknown")
            try await golden.call(client, .get, "\(base)/{id}/deliveries", "\(base)/\(id)/deliveries", headers: backend)
        }
        try await golden.call(client, .patch, "\(base)/{id}", "\(base)/\(id)", json: ["description": "billing v2", "disabled": false], headers: backend)
        try await golden.call(client, .post, "\(base)/{id}/\(rotate)", "\(base)/\(id)/\(rotate)", json: ["overlapSeconds": 60], headers: backend)
        try await golden.call(client, .post, "\(base)/{id}/retry", "\(base)/\(id)/retry", json: [:], headers: backend)
        try await golden.call(client, .delete, "\(base)/{id}", "\(base)/\(id)", headers: backend)
    }

    static func documents(_ client: any TestClientProtocol, _ golden: GoldenAnswers) async throws {
        for path in [
            "/.well-known/apple-app-site-association", "/apple-app-site-association", "/.well-known/assetlinks.json", "/.well-known/webauthn",
            "/.well-known/passkey-endpoints", "/.well-known/jwks.json", "/health",
        ] {
            try await golden.call(client, .get, path)
        }
    }

    static func dashboard(_ client: any TestClientProtocol, _ harness: DashboardHarness, _ golden: GoldenAnswers) async throws {
        try await golden.call(client, .get, "/dashboard/api/users", label: "no session")
        let invite = try await harness.invite()
        let setup = try await golden.call(client, .post, "/dashboard/api/setup/options", json: ["token": .string(invite), "name": "ops"])
        let verified = try await golden.call(
            client, .post, "/dashboard/api/setup/verify", json: ["challengeKey": setup["challengeKey"] ?? nil, "cred": harness.admin.create(setup.json)])
        var session = try await harness.session(client, from: verified)
        try await golden.call(client, .post, "/dashboard/api/logout", headers: session.withCSRF)
        let login = try await golden.call(client, .post, "/dashboard/api/login/options")
        let signedIn = try await golden.call(
            client, .post, "/dashboard/api/login/verify",
            json: ["challengeKey": login["challengeKey"] ?? nil, "cred": try harness.admin.get(login.json, signCount: 1)])
        session = try await harness.session(client, from: signedIn)
        let headers = session.withCSRF

        let gina = try Device(server: harness.server, credentialID: 0x61)
        let registered = try await harness.registerUser(client, "gina", device: gina)
        let userID = registered["userId"]?.stringValue ?? ""
        let passkey = "/dashboard/api/users/\(userID)/passkeys/\(registered["credentialId"]?.stringValue ?? "")"
        try await golden.call(client, .get, "/dashboard/api/stats", headers: headers)
        try await golden.call(client, .get, "/dashboard/api/events", "/dashboard/api/events?limit=5", headers: headers)
        try await golden.call(client, .get, "/dashboard/api/users", headers: headers)
        try await golden.call(client, .get, "/dashboard/api/users/{id}", "/dashboard/api/users/\(userID)", headers: headers)
        try await golden.call(client, .get, "/dashboard/api/users/{id}", "/dashboard/api/users/nobody", headers: headers, label: "unknown")
        try await golden.call(client, .patch, "/dashboard/api/users/{id}/passkeys/{credentialId}", passkey, json: ["name": "Gina's key"], headers: headers)
        try await golden.call(client, .post, "/dashboard/api/users/{id}/links", "/dashboard/api/users/\(userID)/links", json: [:], headers: headers)
        try await golden.call(client, .patch, "/dashboard/api/users/{id}", "/dashboard/api/users/\(userID)", json: ["disabled": true], headers: headers)
        try await golden.call(client, .delete, "/dashboard/api/users/{id}/links", "/dashboard/api/users/\(userID)/links", headers: headers)
        let recheck = try await golden.call(client, .post, "/dashboard/api/recheck/options", headers: headers)
        try await golden.call(
            client, .post, "/dashboard/api/recheck/verify",
            json: ["challengeKey": recheck["challengeKey"] ?? nil, "cred": try harness.admin.get(recheck.json, signCount: 2)], headers: headers)
        try await golden.call(client, .delete, "/dashboard/api/users/{id}/passkeys/{credentialId}", passkey, headers: headers)
        try await golden.call(client, .delete, "/dashboard/api/users/{id}", "/dashboard/api/users/\(userID)", headers: headers)
        try await golden.call(client, .delete, "/dashboard/api/users/{id}", "/dashboard/api/users/\(userID)", headers: session.headers, label: "no CSRF")
        try await webhooks(client, golden, backend: headers, prefix: "/dashboard/api", rotate: "rotate")
        try await openIDClients(client, golden, headers: headers, base: "/dashboard/api/oidc-clients", rotate: "rotate")
    }

    /// The OpenID client API (`/oidc/clients`, or the dashboard's); returns the client made and its latest secret.
    @discardableResult
    static func openIDClients(
        _ client: any TestClientProtocol, _ golden: GoldenAnswers, headers: HTTPFields, base: String, rotate: String
    ) async throws -> (id: String, secret: String) {
        let created = try await golden.call(
            client, .post, base, json: ["name": "App", "redirectUris": ["https://app.example.com/callback"], "scopes": ["openid", "profile", "offline_access"]],
            headers: headers)
        try await golden.call(client, .post, base, json: ["name": "App", "redirectUris": ["http://app.example.com/cb"]], headers: headers, label: "invalid")
        let id = created["clientId"]?.stringValue ?? ""
        try await golden.call(client, .get, base, headers: headers)
        if base == "/oidc/clients" {
            try await golden.call(client, .get, "\(base)/{id}", "\(base)/\(id)", headers: headers)
            try await golden.call(client, .get, "\(base)/{id}", "\(base)/oc_nothing", headers: headers, label: "unknown")
        }
        try await golden.call(client, .patch, "\(base)/{id}", "\(base)/\(id)", json: ["thirdParty": false], headers: headers)
        let rotated = try await golden.call(client, .post, "\(base)/{id}/\(rotate)", "\(base)/\(id)/\(rotate)", headers: headers)
        if base != "/oidc/clients" { try await golden.call(client, .delete, "\(base)/{id}", "\(base)/\(id)", headers: headers) }
        return (id, rotated["clientSecret"]?.stringValue ?? "")
    }

    /// The OpenID Provider: discovery, keys, a passkey sign-in on its page, the token and userinfo endpoints.
    static func openID(_ client: any TestClientProtocol, _ server: TestServer, _ golden: GoldenAnswers, backend: HTTPFields) async throws {
        let (id, secret) = try await openIDClients(client, golden, headers: backend, base: "/oidc/clients", rotate: "rotate-secret")
        try await golden.call(client, .get, "/.well-known/openid-configuration")
        try await golden.call(client, .get, "/oidc/jwks.json")
        let oscar = try Device(server: server, credentialID: 0x0c)
        let options = try await client.call(.get, "/generate-registration-options?username=oscar")
        _ = try await client.call(
            .post, "/verify-registration", json: ["username": "oscar", "challengeKey": options["challengeKey"] ?? nil, "cred": oscar.create(options.json)])
        let query = "response_type=code&client_id=\(id)&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcallback&scope=openid%20profile%20offline_access&nonce=n"
        let page = String(buffer: try await client.execute(uri: "/oidc/authorize?" + query, method: .get).body)
        let sealed = page.range(of: "data-request=\"").map { String(page[$0.upperBound...].prefix { $0 != "\"" }) } ?? ""
        let signInOptions = try await client.call(.get, "/generate-authentication-options")
        let signedIn = try await golden.call(
            client, .post, "/oidc/sign-in",
            json: ["request": .string(sealed), "cred": try oscar.get(signInOptions.json), "challengeKey": signInOptions["challengeKey"] ?? nil])
        try await golden.call(client, .post, "/oidc/sign-in", json: ["request": "expired"], label: "expired page")
        let code = URLComponents(string: signedIn["location"]?.stringValue ?? "")?.queryItems?.first { $0.name == "code" }?.value ?? ""
        let basic: HTTPFields = [.authorization: "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString()]
        let exchange = "grant_type=authorization_code&code=\(code)&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcallback"
        let tokens = try await golden.call(client, .post, "/oidc/token", form: exchange, headers: basic)
        let access = tokens["access_token"]?.stringValue ?? ""
        try await golden.call(client, .get, "/oidc/userinfo", headers: [.authorization: "Bearer \(access)"])
        try await golden.call(client, .post, "/oidc/userinfo", form: "access_token=\(access)", label: "form")
        try await golden.call(client, .get, "/oidc/userinfo", label: "no token")
        let refresh = tokens["refresh_token"]?.stringValue ?? ""
        try await golden.call(client, .post, "/oidc/token", form: "grant_type=refresh_token&refresh_token=\(refresh)", headers: basic, label: "refresh")
        try await golden.call(client, .post, "/oidc/token", form: exchange, headers: basic, label: "reused code")
        try await golden.call(client, .post, "/oidc/token", form: exchange, label: "no client")
        try await golden.call(client, .delete, "/oidc/clients/{id}", "/oidc/clients/\(id)", headers: backend)
    }

    /// The member names an OpenAPI schema documents, following `$ref` and `allOf`; nil when it lists none.
    static func documentedMembers(_ schema: JSONValue?, in document: JSONObject) -> Set<String>? {
        guard let schema = schema?.objectValue else { return nil }
        if let reference = schema["$ref"]?.stringValue {
            let name = String(reference.split(separator: "/").last ?? "")
            return documentedMembers(document["components"]?.objectValue?["schemas"]?.objectValue?[name], in: document)
        }
        if let parts = schema["allOf"]?.arrayValue {
            let found = parts.compactMap { documentedMembers($0, in: document) }
            return found.isEmpty ? nil : found.reduce(into: Set<String>()) { $0.formUnion($1) }
        }
        return schema["properties"]?.objectValue.map { Set($0.members.map(\.name)) }
    }

    @Test("the OpenAPI document describes every member of every successful answer the golden file holds")
    func openAPIDescribesTheAnswers() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let document = try #require(
            try JSONValue.parse(Array(Data(contentsOf: sources.appendingPathComponent("Sources/PasskeyServer/Public/openapi.json")))).objectValue)
        let golden = try #require(try JSONValue.parse(Array(Data(contentsOf: GoldenAnswers.file))).objectValue)
        var checked = 0
        for entry in golden.members {
            let parts = entry.name.split(separator: " ").map(String.init)
            guard parts.count >= 3, parts[2] == "200", let shape = entry.value.objectValue else { continue }
            let operation = document["paths"]?.objectValue?[parts[1]]?.objectValue?[parts[0].lowercased()]?.objectValue
            guard let operation else { continue }  // the dashboard's routes are not part of the documented API
            let schema = operation["responses"]?.objectValue?["200"]?.objectValue?["content"]?.objectValue?["application/json"]?.objectValue?["schema"]
            let documented = Self.documentedMembers(schema, in: document)
            #expect(documented != nil, "\(entry.name): the OpenAPI document lists no members for it")
            let undocumented = Set(shape.members.map(\.name)).subtracting(documented ?? [])
            #expect(undocumented.isEmpty, "\(entry.name): not in the OpenAPI document: \(undocumented.sorted())")
            checked += 1
        }
        #expect(checked > 40)
    }
}
