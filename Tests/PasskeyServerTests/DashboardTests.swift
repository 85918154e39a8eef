import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PasskeyServer
import PasskeyStorage
import PasskeyWire
import PasskeyServerTestSupport
import Testing

/// A test server with helpers to become a dashboard admin (setup link → passkey → session cookie) and to run user
/// ceremonies.
struct DashboardHarness {
    let server: TestServer
    let admin: Device

    init(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        server = TestServer(configure)
        admin = try Device(server: server, credentialID: 0xad)
    }

    /// A session: the cookie header value and the page's CSRF token.
    struct Session {
        let cookie: String
        let csrf: String
        var headers: HTTPFields { [.cookie: cookie] }
        var withCSRF: HTTPFields { [.cookie: cookie, HTTPField.Name("X-CSRF-Token")!: csrf] }
    }

    func invite() async throws -> String {
        try await Administration.createAdminInvite(repository: server.repository, lifetime: 3600, now: server.clock.now)
    }

    /// Registers the admin's passkey through a setup link and returns the session it opens.
    func setUp(_ client: any TestClientProtocol, token: String? = nil) async throws -> Session {
        let token = if let token { token } else { try await invite() }
        let page = try await client.execute(uri: "/dashboard/setup?token=\(token)", method: .get)
        #expect(page.status == .ok)
        let options = try await client.call(.post, "/dashboard/api/setup/options", json: ["token": .string(token), "name": "ops"])
        #expect(options.status == .ok, "\(options.json)")
        let verified = try await client.call(
            .post, "/dashboard/api/setup/verify", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": admin.create(options.json)])
        #expect(verified.status == .ok, "\(verified.json)")
        return try await session(client, from: verified)
    }

    /// Signs the admin in with their passkey (counter `signCount`).
    func signIn(_ client: any TestClientProtocol, signCount: UInt32) async throws -> Session {
        let options = try await client.call(.post, "/dashboard/api/login/options")
        #expect(options["allowCredentials"] == [], "discoverable: no admin list is revealed")
        let verified = try await client.call(
            .post, "/dashboard/api/login/verify",
            json: ["challengeKey": options["challengeKey"] ?? nil, "cred": try admin.get(options.json, signCount: signCount)])
        #expect(verified.status == .ok, "\(verified.json)")
        return try await session(client, from: verified)
    }

    func session(_ client: any TestClientProtocol, from answer: JSONResponse) async throws -> Session {
        let setCookie = try #require(answer.headers[.setCookie])
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/"))
        let cookie = String(setCookie.split(separator: ";")[0])
        let page = try await client.execute(uri: "/dashboard", method: .get, headers: [.cookie: cookie])
        #expect(page.status == .ok)
        let html = String(buffer: page.body)
        let marker = "<meta name=\"csrf-token\" content=\""
        let start = try #require(html.range(of: marker))
        let csrf = String(html[start.upperBound...].prefix { $0 != "\"" })
        #expect(csrf.count >= 32)
        return Session(cookie: cookie, csrf: csrf)
    }

    /// Registers user `name` with `device`; returns the verify answer.
    func registerUser(_ client: any TestClientProtocol, _ name: String, device: Device) async throws -> JSONResponse {
        let options = try await client.call(.get, "/generate-registration-options?username=\(name)")
        return try await client.call(
            .post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
    }
}

@Suite("Dashboard: the server's public URL")
struct DashboardPublicURLTests {
    /// The README's set-up with the server on a host of its own: the website on www, the app on the RP ID.
    static func configure(_ publicURL: String?) -> (inout ServerConfiguration) -> Void {
        { configuration in
            configuration.rpID = "example.com"
            configuration.origins = ["https://www.example.com", "https://example.com"]
            configuration.publicURL = publicURL
        }
    }

    @Test("with --public-url the dashboard's setup works at the server's own origin and links start there; user ceremonies keep to --origin")
    func dashboardAtPublicURL() async throws {
        let harness = try DashboardHarness(Self.configure("https://auth.example.com"))
        #expect(harness.server.configuration.linkBase == "https://auth.example.com")
        #expect(!harness.server.configuration.linkBaseIsGuessed)
        try await harness.server.run { client in
            let token = try await harness.invite()
            let options = try await client.call(.post, "/dashboard/api/setup/options", json: ["token": .string(token), "name": "ops"])
            let verified = try await client.call(
                .post, "/dashboard/api/setup/verify",
                json: ["challengeKey": options["challengeKey"] ?? nil, "cred": harness.admin.create(options.json, origin: "https://auth.example.com")])
            #expect(verified.status == .ok, "\(verified.json)")

            // The public ceremony API accepts only the configured origins: the server's own page is not one of them.
            let device = try Device(server: harness.server, credentialID: 0x51)
            let user = try await client.call(.get, "/generate-registration-options?username=ann")
            let refused = try await client.call(
                .post, "/verify-registration",
                json: ["challengeKey": user["challengeKey"] ?? nil, "cred": device.create(user.json, origin: "https://auth.example.com")])
            #expect(refused.status == .badRequest && refused["error"] == "origin_mismatch", "\(refused.json)")
        }
    }

    @Test("without --public-url the links start at the first web origin, marked as a guess, and the dashboard accepts only --origin")
    func withoutPublicURL() async throws {
        let harness = try DashboardHarness(Self.configure(nil))
        #expect(harness.server.configuration.linkBase == "https://www.example.com")
        #expect(harness.server.configuration.linkBaseIsGuessed)
        try await harness.server.run { client in
            let token = try await harness.invite()
            let options = try await client.call(.post, "/dashboard/api/setup/options", json: ["token": .string(token), "name": "ops"])
            let refused = try await client.call(
                .post, "/dashboard/api/setup/verify",
                json: ["challengeKey": options["challengeKey"] ?? nil, "cred": harness.admin.create(options.json, origin: "https://auth.example.com")])
            #expect(refused.status == .badRequest && refused["error"] == "origin_mismatch", "\(refused.json)")
        }
    }
}

@Suite("Dashboard: admin access, sessions, CSRF, fresh checks, live events")
struct DashboardTests {
    /// Every dashboard route, classified. A new route fails `everyRouteIsClassified` until it is added here.
    static let publicRoutes: Set<String> = [
        "GET /dashboard/login", "GET /dashboard/setup", "GET /dashboard/dashboard.js", "GET /dashboard/qr.js", "GET /dashboard/dashboard.css",
        "POST /dashboard/api/setup/options", "POST /dashboard/api/setup/verify", "POST /dashboard/api/login/options",
        "POST /dashboard/api/login/verify",
    ]
    static let pages: Set<String> = [
        "GET /dashboard", "GET /dashboard/log", "GET /dashboard/users", "GET /dashboard/users/{id}", "GET /dashboard/settings",
        "GET /dashboard/webhooks", "GET /dashboard/flagged", "GET /dashboard/applications",
    ]
    static let dataEndpoints: Set<String> = [
        "GET /dashboard/api/events", "GET /dashboard/events/stream", "GET /dashboard/api/stats", "GET /dashboard/api/users",
        "GET /dashboard/api/users/{id}", "PATCH /dashboard/api/users/{id}/passkeys/{credentialId}",
        "DELETE /dashboard/api/users/{id}/passkeys/{credentialId}", "DELETE /dashboard/api/users/{id}", "PATCH /dashboard/api/users/{id}",
        "POST /dashboard/api/recheck/options",
        "POST /dashboard/api/recheck/verify", "POST /dashboard/api/logout", "POST /dashboard/api/users/{id}/links",
        "DELETE /dashboard/api/users/{id}/links", "GET /dashboard/api/webhooks", "POST /dashboard/api/webhooks",
        "PATCH /dashboard/api/webhooks/{id}", "DELETE /dashboard/api/webhooks/{id}", "POST /dashboard/api/webhooks/{id}/rotate",
        "POST /dashboard/api/webhooks/{id}/retry", "GET /dashboard/api/oidc-clients", "POST /dashboard/api/oidc-clients",
        "PATCH /dashboard/api/oidc-clients/{id}", "DELETE /dashboard/api/oidc-clients/{id}", "POST /dashboard/api/oidc-clients/{id}/rotate",
    ]

    static func routes(_ server: TestServer) -> Set<String> {
        let router = buildRouter(server.configuration, repository: server.repository)
        return Set(router.routes.map { route in
            "\(route.method.rawValue) /" + route.path.description.split(separator: "/").joined(separator: "/")
        }.filter { $0.contains(" /dashboard") })
    }

    static func split(_ route: String) -> (HTTPRequest.Method, String) {
        let parts = route.split(separator: " ")
        let path = parts[1].replacingOccurrences(of: "{id}", with: "u1").replacingOccurrences(of: "{credentialId}", with: "AAAA")
        return (HTTPRequest.Method(rawValue: String(parts[0])) ?? .get, path)
    }

    @Test("every dashboard route is classified as public, page or data endpoint")
    func everyRouteIsClassified() {
        let routes = Self.routes(TestServer())
        #expect(routes == Self.publicRoutes.union(Self.pages).union(Self.dataEndpoints), "unclassified: \(routes.subtracting(Self.publicRoutes.union(Self.pages).union(Self.dataEndpoints)).sorted())")
    }

    @Test("without a session every page redirects to sign-in and every data endpoint answers 401 JSON")
    func everyRouteNeedsASession() async throws {
        let harness = try DashboardHarness()
        try await harness.server.run { client in
            for headers: HTTPFields in [[:], [.cookie: "passkey_admin=pas_forged"], [.authorization: "Bearer not-the-token"]] {
                for route in Self.pages.sorted() {
                    let (method, path) = Self.split(route)
                    let response = try await client.execute(uri: path, method: method, headers: headers)
                    #expect(response.status == .seeOther, "\(route)")
                    #expect(response.headers[.location] == "/dashboard/login", "\(route)")
                }
                for route in Self.dataEndpoints.sorted() {
                    let (method, path) = Self.split(route)
                    let response = try await client.call(method, path, headers: headers)
                    #expect(response.status == .unauthorized, "\(route)")
                    #expect(response["error"] == "admin_unauthorized", "\(route)")
                }
            }
            // And with a session, every page renders.
            let session = try await harness.setUp(client)
            let device = try Device(server: harness.server)
            let user = try await harness.registerUser(client, "ann", device: device)
            let userID = user["userId"]?.stringValue ?? ""
            for path in ["/dashboard", "/dashboard/log", "/dashboard/users", "/dashboard/users/\(userID)", "/dashboard/settings"] {
                let response = try await client.execute(uri: path, method: .get, headers: session.headers)
                #expect(response.status == .ok, "\(path)")
                #expect(response.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
                let html = String(buffer: response.body)
                #expect(!html.contains("<script>"), "no inline script")
                #expect(!html.contains("SQL") && !html.contains("Element"), "rendered as text, not as another type's description")
                if path == "/dashboard/users" { #expect(html.contains("<a href=\"/dashboard/users/\(userID)\">ann</a>")) }
                if path.hasPrefix("/dashboard/users/") {
                    #expect(html.contains("<td>ES256</td>") && html.contains("<td>none</td>"), "\(html)")
                    #expect(html.contains("device-bound") || html.contains("synced"))
                }
                if path == "/dashboard/settings" { #expect(html.contains("apple-app-site-association") && html.contains("webcredentials")) }
                if path == "/dashboard" { #expect(html.contains("<svg")) }
            }
            let detail = try await client.call(.get, "/dashboard/api/users/\(userID)", headers: session.headers)
            #expect(detail["username"] == "ann")
            let passkey = detail["passkeys"]?.arrayValue?.first?.objectValue
            #expect(passkey?["attestationFormat"] == "none")
            #expect(passkey?["algorithm"] == "ES256")
            #expect(passkey?["synced"] != nil && passkey?["transports"] != nil && passkey?["signCount"] == 0)
            let list = try await client.call(.get, "/dashboard/api/users?search=an", headers: session.headers)
            #expect(list["users"]?.arrayValue?.first?.objectValue?["passkeyCount"] == 1)
        }
    }

    @Test("a setup link works once; the admin then signs in with the passkey and signs out")
    func setupAndSignIn() async throws {
        let harness = try DashboardHarness()
        try await harness.server.run { client in
            let token = try await harness.invite()
            _ = try await harness.setUp(client, token: token)
            let again = try await client.call(.post, "/dashboard/api/setup/options", json: ["token": .string(token)])
            #expect(again.status == .notFound && again["error"] == "invite_invalid")
            let page = try await client.execute(uri: "/dashboard/setup?token=\(token)", method: .get)
            #expect(page.status == .notFound)

            let session = try await harness.signIn(client, signCount: 1)
            #expect(try await client.call(.get, "/dashboard/api/users", headers: session.headers).status == .ok)
            let out = try await client.call(.post, "/dashboard/api/logout", headers: session.withCSRF)
            #expect(out.status == .ok)
            #expect(out.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await client.call(.get, "/dashboard/api/users", headers: session.headers).status == .unauthorized)

            // A user's passkey is not an admin passkey.
            let device = try Device(server: harness.server, credentialID: 0x11)
            _ = try await harness.registerUser(client, "ann", device: device)
            let options = try await client.call(.post, "/dashboard/api/login/options")
            let refused = try await client.call(
                .post, "/dashboard/api/login/verify", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": try device.get(options.json, signCount: 1)])
            #expect(refused.status == .badRequest && refused["error"] == "credential_unknown")
        }
    }

    @Test("behind a trusted TLS proxy the session cookie is __Host- and Secure; a planted duplicate cookie locks no one out")
    func cookieBehindProxy() async throws {
        let harness = try DashboardHarness { $0.trustProxyHeaders = true }
        try await harness.server.run { client in
            let plain = try await harness.setUp(client)  // plain HTTP: no Secure, so no __Host- prefix
            #expect(plain.cookie.hasPrefix("passkey_admin="))
            // Another site on the same host planted a value under the same name; browsers send it first.
            let planted: HTTPFields = [.cookie: "passkey_admin=pas_planted; \(plain.cookie)"]
            #expect(try await client.call(.get, "/dashboard/api/users", headers: planted).status == .ok)

            let https: HTTPFields = [HTTPField.Name("X-Forwarded-Proto")!: "https"]
            let options = try await client.call(.post, "/dashboard/api/login/options", headers: https)
            let verified = try await client.call(
                .post, "/dashboard/api/login/verify",
                json: ["challengeKey": options["challengeKey"] ?? nil, "cred": try harness.admin.get(options.json, signCount: 1)], headers: https)
            let setCookie = try #require(verified.headers[.setCookie])
            #expect(setCookie.hasPrefix("__Host-passkey_admin=") && setCookie.hasSuffix("; Secure"), "\(setCookie)")
            var secure = https
            secure[.cookie] = String(setCookie.split(separator: ";")[0])
            #expect(try await client.call(.get, "/dashboard/api/users", headers: secure).status == .ok)
            // Over TLS only the __Host- cookie counts: one without the prefix could have been planted over plain HTTP.
            var plainOverTLS = https
            plainOverTLS[.cookie] = plain.cookie
            #expect(try await client.call(.get, "/dashboard/api/users", headers: plainOverTLS).status == .unauthorized)
        }
    }

    @Test("state-changing requests need the session's CSRF token: missing or wrong is 403")
    func csrf() async throws {
        let harness = try DashboardHarness()
        try await harness.server.run { client in
            let session = try await harness.setUp(client)
            let device = try Device(server: harness.server)
            let user = try await harness.registerUser(client, "ann", device: device)
            let userID = user["userId"]?.stringValue ?? ""
            let credentialID = user["credentialId"]?.stringValue ?? ""
            let passkey = "/dashboard/api/users/\(userID)/passkeys/\(credentialID)"
            for headers in [session.headers, [.cookie: session.cookie, HTTPField.Name("X-CSRF-Token")!: "wrong"]] {
                let rename = try await client.call(.patch, passkey, json: ["name": "Work phone"], headers: headers)
                #expect(rename.status == .forbidden && rename["error"] == "csrf_invalid")
                let delete = try await client.call(.delete, "/dashboard/api/users/\(userID)", headers: headers)
                #expect(delete.status == .forbidden && delete["error"] == "csrf_invalid")
                let logout = try await client.call(.post, "/dashboard/api/logout", headers: headers)
                #expect(logout.status == .forbidden)
            }
            #expect(await harness.server.repository.user(id: userID) != nil, "nothing changed")
            let rename = try await client.call(.patch, passkey, json: ["name": "Work phone"], headers: session.withCSRF)
            #expect(rename.status == .ok, "\(rename.json)")
            #expect(await harness.server.repository.credentials(userID: userID).first?.name == "Work phone")
            let tooLong = try await client.call(.patch, passkey, json: ["name": .string(String(repeating: "x", count: 65))], headers: session.withCSRF)
            #expect(tooLong.status == .badRequest && tooLong["error"] == "name_invalid")
            #expect(await harness.server.repository.credentials(userID: userID).first?.name == "Work phone")
            let delete = try await client.call(.delete, "/dashboard/api/users/\(userID)", headers: session.withCSRF)
            #expect(delete.status == .ok, "\(delete.json)")
            #expect(await harness.server.repository.user(id: userID) == nil)
        }
    }

    @Test("sessions end after the idle timeout and after the absolute timeout")
    func sessionExpiry() async throws {
        let harness = try DashboardHarness {
            $0.dashboard.sessionIdleTimeout = 600
            $0.dashboard.sessionAbsoluteTimeout = 1_800
        }
        try await harness.server.run { client in
            let idle = try await harness.setUp(client)
            harness.server.clock.advance(599)
            #expect(try await client.call(.get, "/dashboard/api/users", headers: idle.headers).status == .ok, "activity restarts the idle clock")
            harness.server.clock.advance(599)
            #expect(try await client.call(.get, "/dashboard/api/users", headers: idle.headers).status == .ok)
            harness.server.clock.advance(600)
            #expect(try await client.call(.get, "/dashboard/api/users", headers: idle.headers).status == .unauthorized, "idle timeout")

            let busy = try await harness.signIn(client, signCount: 1)
            for _ in 0..<3 {
                harness.server.clock.advance(500)
                #expect(try await client.call(.get, "/dashboard/api/users", headers: busy.headers).status == .ok)
            }
            harness.server.clock.advance(301)
            let expired = try await client.call(.get, "/dashboard/api/users", headers: busy.headers)
            #expect(expired.status == .unauthorized && expired["error"] == "admin_unauthorized", "absolute timeout, however active")
            let page = try await client.execute(uri: "/dashboard/users", method: .get, headers: busy.headers)
            #expect(page.status == .seeOther)
        }
    }

    @Test("deleting a passkey or a user needs a passkey check from the last minutes")
    func freshCheck() async throws {
        let harness = try DashboardHarness { $0.dashboard.freshCheckWindow = 300 }
        try await harness.server.run { client in
            let session = try await harness.setUp(client)
            let device = try Device(server: harness.server)
            let user = try await harness.registerUser(client, "ann", device: device)
            let userID = user["userId"]?.stringValue ?? ""
            let passkey = "/dashboard/api/users/\(userID)/passkeys/\(user["credentialId"]?.stringValue ?? "")"
            harness.server.clock.advance(301)
            for (method, path) in [(HTTPRequest.Method.delete, passkey), (.delete, "/dashboard/api/users/\(userID)")] {
                let refused = try await client.call(method, path, headers: session.withCSRF)
                #expect(refused.status == .forbidden && refused["error"] == "fresh_check_required", "\(path)")
            }
            #expect(try await client.call(.patch, passkey, json: ["name": "x"], headers: session.withCSRF).status == .ok, "renaming is not destructive")
            let options = try await client.call(.post, "/dashboard/api/recheck/options", headers: session.withCSRF)
            #expect(options.status == .ok)
            #expect(options["allowCredentials"]?.arrayValue?.count == 1, "the admin's own passkeys")
            let checked = try await client.call(
                .post, "/dashboard/api/recheck/verify",
                json: ["challengeKey": options["challengeKey"] ?? nil, "cred": try harness.admin.get(options.json, signCount: 1)],
                headers: session.withCSRF)
            #expect(checked.status == .ok, "\(checked.json)")
            let deleted = try await client.call(.delete, passkey, headers: session.withCSRF)
            #expect(deleted.status == .ok, "\(deleted.json)")
            #expect(await harness.server.repository.credentials(userID: userID).isEmpty)
        }
    }

    @Test("PASSKEY_ADMIN_TOKEN is a break-glass bearer: no cookie, no CSRF, counts as fresh")
    func breakGlass() async throws {
        let token = String(repeating: "k", count: 40)
        let harness = try DashboardHarness { $0.dashboard.adminToken = token }
        try await harness.server.run { client in
            let device = try Device(server: harness.server)
            let user = try await harness.registerUser(client, "ann", device: device)
            let bearer: HTTPFields = [.authorization: "Bearer \(token)"]
            let list = try await client.call(.get, "/dashboard/api/users", headers: bearer)
            #expect(list.status == .ok && list["users"]?.arrayValue?.count == 1)
            #expect(try await client.call(.get, "/dashboard/api/users", headers: [.authorization: "Bearer \(token)x"]).status == .unauthorized)
            let page = try await client.execute(uri: "/dashboard/settings", method: .get, headers: bearer)
            #expect(page.status == .ok)
            let deleted = try await client.call(.delete, "/dashboard/api/users/\(user["userId"]?.stringValue ?? "")", headers: bearer)
            #expect(deleted.status == .ok, "\(deleted.json)")
            let events = try await client.call(.get, "/dashboard/api/events?user=ann", headers: bearer)
            #expect(events["events"]?.arrayValue?.first?.objectValue?["kind"] == "admin.delete_user")
        }
        var tooShort = ServerConfiguration()
        tooShort.dashboard.adminToken = "short"
        #expect(throws: ConfigurationError.self) { try tooShort.validate() }
    }

    @Test("a ceremony's event reaches a live SSE stream within one second")
    func liveStream() async throws {
        let harness = try DashboardHarness()
        try await harness.server.run { client in
            let session = try await harness.setUp(client)
            // Up to three tries, each a new stream and a new failing ceremony: with hundreds of tests running in parallel
            // on two cores, one try can lose a second waiting for a thread. The best try must be within a second.
            var best = Duration.seconds(60)
            var lastResponse: TestResponse?
            for attempt in 1...3 where best >= .seconds(1) {
                let stream = Task {
                    try await client.execute(uri: "/dashboard/events/stream?max=1&result=failure", method: .get, headers: session.headers)
                }
                while await harness.server.broadcaster.subscriberCount == 0 { try await Task.sleep(for: .milliseconds(5)) }
                let device = try Device(server: harness.server, credentialID: UInt8(attempt))
                let options = try await client.call(.get, "/generate-registration-options?username=ann")
                let failed = try await client.call(
                    .post, "/verify-registration",
                    json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json, origin: "https://evil.example")])
                // From the ceremony's answer to the event on the stream (the ceremony itself may be slow on a loaded machine).
                let answered = ContinuousClock.now
                #expect(failed["error"] == "origin_mismatch")
                lastResponse = try await stream.value
                best = min(best, ContinuousClock.now - answered)
                while await harness.server.broadcaster.subscriberCount > 0 { try await Task.sleep(for: .milliseconds(5)) }
            }
            #expect(best < .seconds(1))
            let response = try #require(lastResponse)
            #expect(response.headers[.contentType] == "text/event-stream")
            let text = String(buffer: response.body)
            let data = try #require(text.split(separator: "\n").first { $0.hasPrefix("data: ") })
            let event = try JSONValue.parse(String(data.dropFirst(6))).objectValue ?? [:]
            #expect(text.contains("event: ceremony"))
            #expect(event["kind"] == "registration.verify")
            #expect(event["result"] == "failure")
            #expect(event["code"] == "origin_mismatch")
            #expect(event["received"] == "https://evil.example", "what came")
            #expect(event["expected"]?.stringValue?.contains(harness.server.origin) == true, "what was expected")
            #expect(event["explanation"]?.stringValue?.isEmpty == false)
        }
    }

    @Test("events never hold challenges, tokens or full credential ids")
    func eventsHoldNoSecrets() async throws {
        let harness = try DashboardHarness()
        try await harness.server.run { client in
            let session = try await harness.setUp(client)
            let device = try Device(server: harness.server)
            let options = try await client.call(.get, "/generate-registration-options?username=ann")
            let registered = try await client.call(
                .post, "/verify-registration", json: ["challengeKey": options["challengeKey"] ?? nil, "cred": device.create(options.json)])
            #expect(registered.status == .ok)
            let signInOptions = try await client.call(.get, "/generate-authentication-options")
            let signedIn = try await client.call(
                .post, "/verify-authentication",
                json: ["challengeKey": signInOptions["challengeKey"] ?? nil, "cred": try device.get(signInOptions.json, signCount: 1)])
            #expect(signedIn.status == .ok)
            let secrets = [
                options["challenge"]?.stringValue, options["challengeKey"]?.stringValue, signInOptions["challenge"]?.stringValue,
                signInOptions["challengeKey"]?.stringValue, registered["signedPasskeyData"]?.stringValue, signedIn["signedPasskeyData"]?.stringValue,
                registered["credentialId"]?.stringValue, String(session.cookie.split(separator: "=")[1]), session.csrf,
            ].compactMap { $0 }
            #expect(secrets.count == 9)
            let answer = try await client.call(.get, "/dashboard/api/events", headers: session.headers)
            let events = answer["events"]?.arrayValue ?? []
            let kinds = Set(events.compactMap { $0.objectValue?["kind"]?.stringValue })
            let expectedKinds: Set<String> = [
                "registration.options", "registration.verify", "authentication.options", "authentication.verify", "admin.setup",
            ]
            #expect(kinds.isSuperset(of: expectedKinds), "\(kinds)")
            let text = answer.json.serialized()
            for secret in secrets { #expect(!text.contains(secret), "an event holds a secret") }
            let stored = await harness.server.repository.events(matching: EventFilter(), before: nil, limit: 100)
            for event in stored {
                let fields = [event.code, event.explanation, event.userID, event.username, event.credentialIDPrefix, event.origin, event.expected, event.received]
                for secret in secrets { #expect(!fields.contains { $0?.contains(secret) == true }) }
            }
            let signIn = events.first { $0.objectValue?["kind"] == "authentication.verify" }?.objectValue
            #expect(signIn?["username"] == "ann")
            #expect(signIn?["credentialIdPrefix"]?.stringValue == String((registered["credentialId"]?.stringValue ?? "").prefix(8)))
            #expect(signIn?["requestId"]?.stringValue?.isEmpty == false)

            // What a request brought is shown escaped: a direction override in a user agent cannot reorder the row.
            let spoofed = try await client.call(
                .get, "/generate-authentication-options", headers: [.userAgent: "Mozilla/5.0 \u{202E}exe.gnp"])
            #expect(spoofed.status == .ok)
            let after = try await client.call(.get, "/dashboard/api/events", headers: session.headers)
            let agents = (after["events"]?.arrayValue ?? []).compactMap { $0.objectValue?["userAgent"]?.stringValue }
            #expect(agents.contains(#"Mozilla/5.0 \u{202e}exe.gnp"#), "\(agents)")
            #expect(!agents.contains { $0.unicodeScalars.contains("\u{202E}") })
        }
    }

    @Test("the broadcaster delivers keep-alives and events in order, drops left subscribers, and ends every stream at close")
    func broadcaster() async throws {
        let broadcaster = EventBroadcaster()
        let (first, updates) = await broadcaster.subscribe()
        let (second, _) = await broadcaster.subscribe()
        #expect(await broadcaster.subscriberCount == 2)
        await broadcaster.unsubscribe(second)
        #expect(await broadcaster.subscriberCount == 1)
        let event = EventRecord(id: 7, time: Date(timeIntervalSince1970: 0), kind: EventRecord.authenticationVerify, result: .success)
        await broadcaster.keepAlive()
        await broadcaster.publish(event)
        await broadcaster.close()
        var received: [LiveUpdate] = []
        for await update in updates { received.append(update) }
        #expect(received == [.keepAlive, .event(event)], "then the stream ends")
        #expect(await broadcaster.subscriberCount == 0)
        let (_, late) = await broadcaster.subscribe()
        var lateCount = 0
        for await _ in late { lateCount += 1 }
        #expect(lateCount == 0, "a subscription after close ends at once")
        _ = first
    }

    @Test("admin sign-in options are rate-limited per client, like the users' options")
    func signInRateLimit() async throws {
        let harness = try DashboardHarness { $0.optionsPerMinute = 2 }
        try await harness.server.run { client in
            #expect(try await client.call(.post, "/dashboard/api/login/options").status == .ok)
            #expect(try await client.call(.post, "/dashboard/api/login/options").status == .ok)
            let limited = try await client.call(.post, "/dashboard/api/login/options")
            #expect(limited.status == .tooManyRequests && limited["error"] == "rate_limited")
        }
    }

    @Test("a live stream ends when its admin signs out, after the sign-out's own event")
    func streamEndsAfterSignOut() async throws {
        let harness = try DashboardHarness()
        try await harness.server.run { client in
            let session = try await harness.setUp(client)
            let stream = Task { try await client.execute(uri: "/dashboard/events/stream", method: .get, headers: session.headers) }
            while await harness.server.broadcaster.subscriberCount == 0 { try await Task.sleep(for: .milliseconds(5)) }
            #expect(try await client.call(.post, "/dashboard/api/logout", headers: session.withCSRF).status == .ok)
            let logoutEvent = await harness.server.repository.events(matching: EventFilter(), before: nil, limit: 1)
            #expect(logoutEvent.first?.kind == "admin.sign_out")
            // No keep-alive needed: signing out ends the session's streams on this instance at once.
            let response = try await stream.value
            let text = String(buffer: response.body)
            #expect(text.hasPrefix(": connected"))
            #expect(text.contains("admin.sign_out"), "the sign-out itself was streamed")
            #expect(await harness.server.broadcaster.subscriberCount == 0)
        }
    }
}
