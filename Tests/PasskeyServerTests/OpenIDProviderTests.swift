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

/// The OpenID Provider through the real router: the code flow end to end, then each refusal with one thing wrong.
@Suite("OpenID Provider")
struct OpenIDProviderTests {
    typealias H = OpenIDHarness

    @Test("a confidential client signs in with a passkey: code, RS256 ID token, userinfo, a rotated refresh token")
    func confidentialFlow() async throws {
        let harness = try H()
        let client = try await harness.client()
        try await harness.server.run { http in
            let userID = try await harness.register(http)
            let discovery = try await http.call(.get, "/.well-known/openid-configuration")
            #expect(discovery["issuer"] == .string(H.issuer))
            #expect(discovery["authorization_endpoint"] == .string(H.issuer + "/oidc/authorize"))
            #expect(discovery["code_challenge_methods_supported"] == ["S256"])
            #expect(discovery["id_token_signing_alg_values_supported"] == ["RS256", "ES256"])

            let page = try await harness.authorize(http, H.authorization(client.id))
            let csp = page.headers[.contentSecurityPolicy] ?? ""
            #expect(csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'"), "\(csp)")
            let sealed = try #require(H.sealed(page))
            let (answer, cookie) = try await harness.signIn(http, sealed: sealed)
            let location = try #require(answer["location"]?.stringValue, "\(answer.json)")
            #expect(location.hasPrefix(H.redirect + "?"))
            let returned = H.parameters(location)
            #expect(returned["state"] == "s-123" && returned["iss"] == H.issuer, "\(location)")
            #expect(cookie?.hasPrefix("passkey_oidc=") == true)

            let tokens = try await H.exchange(http, try #require(returned["code"]), client: client)
            #expect(tokens.status == .ok, "\(tokens.json)")
            #expect(tokens["token_type"] == "Bearer" && tokens.headers[.cacheControl] == "no-store")
            let (header, claims) = try await H.verifiedClaims(http, try #require(tokens["id_token"]?.stringValue))
            #expect(header["alg"] == "RS256")
            #expect(claims["iss"] == .string(H.issuer) && claims["aud"] == .string(client.id) && claims["sub"] == .string(userID))
            #expect(claims["nonce"] == "n-456", "the nonce is echoed")
            #expect(claims["amr"] == ["hwk", "user", "mfa"] && claims["acr"] == "urn:passkey:mfa")
            #expect(claims["auth_time"]?.numberValue == harness.server.clock.now.timeIntervalSince1970.rounded(.down))
            #expect(claims["email"] == "ann@example.com" && claims["preferred_username"] == "ann@example.com")

            let access = try #require(tokens["access_token"]?.stringValue)
            let info = try await H.userInfo(http, access)
            #expect(info.status == .ok && info["sub"] == .string(userID) && info["email"] == "ann@example.com", "\(info.json)")

            let refresh = try #require(tokens["refresh_token"]?.stringValue)
            let refreshed = try await H.token(http, [("grant_type", "refresh_token"), ("refresh_token", refresh)], basic: (client.id, client.secret ?? ""))
            #expect(refreshed.status == .ok, "\(refreshed.json)")
            let newRefresh = try #require(refreshed["refresh_token"]?.stringValue)
            #expect(newRefresh != refresh, "the refresh token is rotated")
            let (_, refreshedClaims) = try await H.verifiedClaims(http, try #require(refreshed["id_token"]?.stringValue))
            #expect(refreshedClaims["nonce"] == nil && refreshedClaims["auth_time"] == claims["auth_time"])
        }
    }

    @Test("a public client with PKCE gets an ES256 ID token; a second sign-in reuses the browser session")
    func publicClientAndSession() async throws {
        let harness = try H()
        let client = try await harness.client(isPublic: true, algorithm: "ES256")
        try await harness.server.run { http in
            _ = try await harness.register(http)
            let (code, cookie) = try await harness.code(http, client.id)
            let tokens = try await H.exchange(http, code, client: client)
            #expect(tokens.status == .ok, "\(tokens.json)")
            let (header, _) = try await H.verifiedClaims(http, try #require(tokens["id_token"]?.stringValue))
            #expect(header["alg"] == "ES256")

            // The session answers the next request without a ceremony: a redirect with a code.
            let again = try await harness.authorize(http, H.authorization(client.id), cookie: cookie)
            #expect(again.status == .seeOther)
            #expect(H.parameters(again.headers[.location])["code"] != nil, "\(again.headers)")
            // form_post: a page that posts the code to the redirect URI, allowed by its CSP.
            let posted = try await harness.authorize(http, H.authorization(client.id, extra: [("response_mode", "form_post")]), cookie: cookie)
            let html = String(decoding: posted.body.readableBytesView, as: UTF8.self)
            #expect(posted.status == .ok && html.contains(#"action="https://app.example.com/callback""#) && html.contains(#"name="code""#))
            #expect(posted.headers[.contentSecurityPolicy]?.contains("form-action 'self' https://app.example.com") == true)
            // max_age shorter than the session's age: a new ceremony, not the session.
            harness.server.clock.advance(120)
            let stale = try await harness.authorize(http, H.authorization(client.id, extra: [("max_age", "60")]), cookie: cookie)
            #expect(stale.status == .ok && H.sealed(stale) != nil, "max_age exceeded shows the sign-in page")
            let staleNone = try await harness.authorize(http, H.authorization(client.id, extra: [("max_age", "60"), ("prompt", "none")]), cookie: cookie)
            #expect(H.parameters(staleNone.headers[.location])["error"] == "login_required")
            // Logout ends the session: prompt=none then needs a sign-in.
            let bye = try await http.execute(
                uri: "/oidc/end-session?" + H.query([("client_id", client.id), ("post_logout_redirect_uri", "https://app.example.com/bye"), ("state", "x")]),
                method: .get, headers: [.cookie: cookie ?? ""], body: nil)
            #expect(bye.status == .seeOther && bye.headers[.location] == "https://app.example.com/bye?state=x")
            let after = try await harness.authorize(http, H.authorization(client.id, extra: [("prompt", "none")]), cookie: cookie)
            #expect(H.parameters(after.headers[.location])["error"] == "login_required")
        }
    }

    @Test("an untrusted client or redirect URI gets an error page, never a redirect")
    func errorPages() async throws {
        let harness = try H()
        let client = try await harness.client()
        try await harness.server.run { http in
            for (parameters, code) in [
                (H.authorization("oc_nobody"), "oidc_client_unknown"),
                (H.authorization(client.id).map { $0.0 == "redirect_uri" ? ($0.0, "https://evil.example.com/callback") : $0 }, "redirect_uri_unregistered"),
                (H.authorization(client.id).map { $0.0 == "redirect_uri" ? ($0.0, H.redirect + "/more") : $0 }, "redirect_uri_unregistered"),
                (H.authorization(client.id).filter { $0.0 != "redirect_uri" }, "redirect_uri_unregistered"),
            ] {
                let page = try await harness.authorize(http, parameters)
                #expect(page.status == .badRequest && page.headers[.location] == nil)
                #expect(String(decoding: page.body.readableBytesView, as: UTF8.self).contains(code))
            }
        }
    }

    @Test("authorization refusals go to the redirect URI with the error, state and iss")
    func redirectedRefusals() async throws {
        let harness = try H()
        let confidential = try await harness.client()
        let publicClient = try await harness.client(isPublic: true)
        try await harness.server.run { http in
            func without(_ name: String, _ id: String) -> [(String, String)] { H.authorization(id).filter { $0.0 != name } }
            func replacing(_ name: String, _ value: String, _ id: String) -> [(String, String)] {
                H.authorization(id).map { $0.0 == name ? (name, value) : $0 }
            }
            for (parameters, code) in [
                (without("code_challenge", publicClient.id).filter { $0.0 != "code_challenge_method" }, "invalid_request"),  // public without PKCE
                (replacing("code_challenge_method", "plain", confidential.id), "invalid_request"),
                (without("code_challenge_method", confidential.id), "invalid_request"),  // plain by default
                (replacing("response_type", "token", confidential.id), "unsupported_response_type"),
                (replacing("scope", "profile email", confidential.id), "invalid_scope"),
                (H.authorization(confidential.id) + [("prompt", "none")], "login_required"),
                (H.authorization(confidential.id) + [("prompt", "none login")], "invalid_request"),
                (H.authorization(confidential.id) + [("max_age", "soon")], "invalid_request"),
                (H.authorization(confidential.id) + [("request", "eyJ...")], "request_not_supported"),
                (H.authorization(confidential.id) + [("state", "again")], "invalid_request"),  // a parameter twice
            ] {
                let answer = try await harness.authorize(http, parameters)
                #expect(answer.status == .seeOther, "\(parameters)")
                let returned = H.parameters(answer.headers[.location])
                #expect(returned["error"] == code && returned["iss"] == H.issuer, "\(parameters): \(answer.headers[.location] ?? "no location")")
                #expect(answer.headers[.location]?.hasPrefix(H.redirect) == true)
            }
        }
    }

    @Test("the token endpoint refuses a code with one thing wrong")
    func codeRefusals() async throws {
        let harness = try H()
        let client = try await harness.client()
        let other = try await harness.client()
        try await harness.server.run { http in
            _ = try await harness.register(http)
            func refused(_ answer: JSONResponse, _ code: String, _ what: String) {
                #expect(answer["error"] == .string(code) && answer["error_description"]?.stringValue?.isEmpty == false, "\(what): \(answer.json)")
            }
            refused(try await H.exchange(http, try await harness.code(http, client.id).code, client: client, redirect: H.redirect + "?x=1"), "invalid_grant", "wrong redirect_uri")
            refused(try await H.exchange(http, try await harness.code(http, client.id).code, client: client, verifier: nil), "invalid_grant", "no verifier")
            refused(try await H.exchange(http, try await harness.code(http, client.id).code, client: client, verifier: String(repeating: "w", count: 50)), "invalid_grant", "wrong verifier")
            refused(try await H.exchange(http, try await harness.code(http, client.id).code, client: other), "invalid_grant", "another client's code")
            let wrongSecret = try await H.exchange(http, try await harness.code(http, client.id).code, client: (client.id, "ocs_wrong"))
            refused(wrongSecret, "invalid_client", "wrong secret")
            #expect(wrongSecret.status == .unauthorized && wrongSecret.headers[.wwwAuthenticate]?.hasPrefix("Basic") == true)
            refused(try await H.exchange(http, try await harness.code(http, client.id).code, client: (client.id, nil)), "invalid_client", "no secret")

            let expiring = try await harness.code(http, client.id).code
            harness.server.clock.advance(61)
            refused(try await H.exchange(http, expiring, client: client), "invalid_grant", "an expired code")

            // A reused code: refused, and the tokens the first exchange gave are revoked.
            let code = try await harness.code(http, client.id).code
            let first = try await H.exchange(http, code, client: client)
            let access = try #require(first["access_token"]?.stringValue)
            #expect(try await H.userInfo(http, access).status == .ok)
            refused(try await H.exchange(http, code, client: client), "invalid_grant", "a reused code")
            let revoked = try await H.userInfo(http, access)
            #expect(revoked.status == .unauthorized && revoked["error"] == "invalid_token")
            #expect(revoked.headers[.wwwAuthenticate]?.hasPrefix("Bearer error=\"invalid_token\"") == true)
            let refreshAfter = try await H.token(
                http, [("grant_type", "refresh_token"), ("refresh_token", first["refresh_token"]?.stringValue ?? "")], basic: (client.id, client.secret ?? ""))
            refused(refreshAfter, "invalid_grant", "a refresh token of a reused code's family")

            refused(try await H.token(http, [("grant_type", "password"), ("username", "ann")], basic: (client.id, client.secret ?? "")), "unsupported_grant_type", "password grant")
        }
    }

    @Test("a reused refresh token revokes its family; a disabled client or account stops its tokens")
    func revocations() async throws {
        let harness = try H()
        let client = try await harness.client()
        try await harness.server.run { http in
            let userID = try await harness.register(http)
            let basic = (client.id, client.secret ?? "")
            let tokens = try await H.exchange(http, try await harness.code(http, client.id).code, client: client)
            let refresh = try #require(tokens["refresh_token"]?.stringValue)
            let rotated = try await H.token(http, [("grant_type", "refresh_token"), ("refresh_token", refresh)], basic: basic)
            let current = try #require(rotated["refresh_token"]?.stringValue)
            let replay = try await H.token(http, [("grant_type", "refresh_token"), ("refresh_token", refresh)], basic: basic)
            #expect(replay["error"] == "invalid_grant", "\(replay.json)")
            let afterReplay = try await H.token(http, [("grant_type", "refresh_token"), ("refresh_token", current)], basic: basic)
            #expect(afterReplay["error"] == "invalid_grant", "the family is revoked: \(afterReplay.json)")
            #expect(try await H.userInfo(http, try #require(rotated["access_token"]?.stringValue)).status == .unauthorized)

            // A disabled account: its tokens stop, and its codes do not exchange.
            let live = try await H.exchange(http, try await harness.code(http, client.id).code, client: client)
            let pending = try await harness.code(http, client.id).code
            _ = try await harness.server.repository.setUserDisabled(id: userID, disabledAt: harness.server.clock.now)
            #expect(try await H.userInfo(http, try #require(live["access_token"]?.stringValue))["error"] == "invalid_token")
            #expect(try await H.exchange(http, pending, client: client)["error"] == "invalid_grant")
            _ = try await harness.server.repository.setUserDisabled(id: userID, disabledAt: nil)
            harness.server.clock.advance(1)

            // A disabled client: refused at the token endpoint and at /authorize (an error page), its access tokens dead.
            let beforeDisable = try await H.exchange(http, try await harness.code(http, client.id).code, client: client)
            _ = try await harness.clients.update(id: client.id, OpenIDClients.Settings(enabled: false), by: AuditActor(description: "test"))
            #expect(try await H.userInfo(http, try #require(beforeDisable["access_token"]?.stringValue))["error"] == "invalid_token")
            let refused = try await H.token(
                http, [("grant_type", "refresh_token"), ("refresh_token", beforeDisable["refresh_token"]?.stringValue ?? "")], basic: basic)
            #expect(refused["error"] == "invalid_client" && refused.status == .unauthorized)
            #expect(try await harness.authorize(http, H.authorization(client.id)).status == .badRequest)
        }
    }

    @Test("a third-party client asks for consent; declining sends access_denied")
    func thirdPartyConsent() async throws {
        let harness = try H()
        let client = try await harness.client(thirdParty: true)
        try await harness.server.run { http in
            _ = try await harness.register(http)
            let (_, cookie) = try await harness.code(http, client.id)
            // Signed in already: the page asks only for consent, and prompt=none cannot give it.
            let page = try await harness.authorize(http, H.authorization(client.id), cookie: cookie)
            #expect(page.status == .ok && String(decoding: page.body.readableBytesView, as: UTF8.self).contains("Continue as"))
            let none = try await harness.authorize(http, H.authorization(client.id, extra: [("prompt", "none")]), cookie: cookie)
            #expect(H.parameters(none.headers[.location])["error"] == "consent_required")
            let sealed = try #require(H.sealed(page))
            let declined = try await http.call(.post, "/oidc/sign-in", json: ["request": .string(sealed), "consent": false], headers: [.cookie: cookie ?? ""])
            #expect(H.parameters(declined["location"]?.stringValue)["error"] == "access_denied", "\(declined.json)")
            let allowed = try await http.call(.post, "/oidc/sign-in", json: ["request": .string(sealed), "consent": true], headers: [.cookie: cookie ?? ""])
            #expect(H.parameters(allowed["location"]?.stringValue)["code"] != nil, "\(allowed.json)")
            // A tampered sealed request is refused.
            let tampered = try await http.call(.post, "/oidc/sign-in", json: ["request": .string("x" + sealed), "consent": true], headers: [.cookie: cookie ?? ""])
            #expect(tampered.status == .badRequest && tampered["error"] == "invalid_request")
        }
    }

    @Test("clients are managed with an API key; the secret is answered once; bad input gets stable codes")
    func clientAPI() async throws {
        let harness = try H()
        let apiKey = try await Administration.createAPIKey(name: "backend", repository: harness.server.repository).secret
        let backend: HTTPFields = [.authorization: "Bearer \(apiKey)"]
        try await harness.server.run { http in
            #expect(try await http.call(.get, "/oidc/clients").status == .unauthorized)
            let created = try await http.call(
                .post, "/oidc/clients", json: ["name": "Grafana", "redirectUris": ["https://grafana.example.com/login/generic_oauth"]], headers: backend)
            #expect(created.status == .ok, "\(created.json)")
            let id = try #require(created["clientId"]?.stringValue)
            let secret = try #require(created["clientSecret"]?.stringValue)
            #expect(created["public"] == false && created["idTokenAlgorithm"] == "RS256")
            let listed = try await http.call(.get, "/oidc/clients", headers: backend)
            #expect(listed["clients"]?.arrayValue?.count == 1 && !listed.json.serialized().contains(secret))
            for (body, code) in [
                (["name": "x", "redirectUris": ["http://grafana.example.com/cb"]] as JSONValue, "oidc_client_invalid"),
                (["name": "x", "redirectUris": ["https://a.example.com/cb#frag"]], "oidc_client_invalid"),
                (["name": "x", "redirectUris": ["javascript:alert(1)"]], "oidc_client_invalid"),
                (["name": "x", "redirectUris": []], "oidc_client_invalid"),
                (["name": "x", "redirectUris": ["https://a.example.com/cb"], "idTokenAlgorithm": "HS256"], "oidc_client_invalid"),
                (["name": "x", "redirectUris": ["https://a.example.com/cb"], "scopes": ["profile"]], "oidc_client_invalid"),
                (["redirectUris": ["https://a.example.com/cb"]], "oidc_client_invalid"),
                (["name": 3], "field_invalid"),
            ] {
                let refused = try await http.call(.post, "/oidc/clients", json: body, headers: backend)
                #expect(refused.status == .badRequest && refused["error"]?.stringValue == code, "\(body.serialized()): \(refused.json)")
            }
            let changed = try await http.call(.patch, "/oidc/clients/\(id)", json: ["idTokenAlgorithm": "ES256", "thirdParty": true], headers: backend)
            #expect(changed["idTokenAlgorithm"] == "ES256" && changed["thirdParty"] == true, "\(changed.json)")
            let rotated = try await http.call(.post, "/oidc/clients/\(id)/rotate-secret", headers: backend)
            #expect(rotated["clientSecret"]?.stringValue.map { $0 != secret } == true)
            let missing = try await http.call(.get, "/oidc/clients/oc_missing", headers: backend)
            #expect(missing["error"] == "oidc_client_not_found")
            let deleted = try await http.call(.delete, "/oidc/clients/\(id)", headers: backend)
            #expect(deleted["deleted"] == true)
            let events = await harness.server.repository.events(matching: EventFilter(), before: nil, limit: 100).map(\.kind)
            #expect(events.contains("admin.oidc_client_added") && events.contains("admin.oidc_client_secret_rotated") && events.contains("admin.oidc_client_removed"))
        }
    }

    @Test("the dashboard's Applications section adds, changes, rotates and removes clients, each an admin event")
    func dashboard() async throws {
        let token = String(repeating: "k", count: 40)
        let harness = try DashboardHarness {
            $0.dashboard.adminToken = token
            $0.oidcIssuer = H.issuer
        }
        let bearer: HTTPFields = [.authorization: "Bearer \(token)"]
        try await harness.server.run { client in
            let created = try await client.call(
                .post, "/dashboard/api/oidc-clients", json: ["name": "Gitea", "redirectUris": ["https://git.example.com/user/oauth2/passkey/callback"]],
                headers: bearer)
            #expect(created.status == .ok && created["clientSecret"]?.stringValue?.hasPrefix("ocs_") == true, "\(created.json)")
            let id = try #require(created["clientId"]?.stringValue)
            let page = try await client.execute(uri: "/dashboard/applications", method: .get, headers: bearer)
            let html = String(buffer: page.body)
            #expect(page.status == .ok && html.contains("Gitea") && html.contains(H.issuer + "/.well-known/openid-configuration"))
            #expect(!html.contains(created["clientSecret"]?.stringValue ?? "-"), "the secret is shown once, in the answer that made it")
            let rotated = try await client.call(.post, "/dashboard/api/oidc-clients/\(id)/rotate", headers: bearer)
            #expect(rotated["clientSecret"]?.stringValue != created["clientSecret"]?.stringValue)
            let changed = try await client.call(.patch, "/dashboard/api/oidc-clients/\(id)", json: ["enabled": false], headers: bearer)
            #expect(changed["enabled"] == false)
            let removed = try await client.call(.delete, "/dashboard/api/oidc-clients/\(id)", headers: bearer)
            #expect(removed["deleted"] == true)
            let events = try await client.call(.get, "/dashboard/api/events", headers: bearer)
            let kinds = events["events"]?.arrayValue?.compactMap { $0.objectValue?["kind"]?.stringValue } ?? []
            #expect(
                ["admin.oidc_client_added", "admin.oidc_client_secret_rotated", "admin.oidc_client_updated", "admin.oidc_client_removed"]
                    .allSatisfy(kinds.contains), "\(kinds)")
        }
    }

    @Test("no code, token, secret or session appears in the server's log")
    func nothingSecretLogged() async throws {
        let harness = try H()
        let client = try await harness.client()
        let capture = LogCapture()
        try await harness.server.run(logger: capture.logger) { http in
            _ = try await harness.register(http)
            let (code, cookie) = try await harness.code(http, client.id)
            let tokens = try await H.exchange(http, code, client: client)
            _ = try await H.exchange(http, code, client: client)  // refused, logged
            _ = try await H.userInfo(http, "not-a-token")
            let secrets = [code, cookie ?? "-", client.secret ?? "-"] + ["access_token", "refresh_token", "id_token"].compactMap { tokens[$0]?.stringValue }
            for secret in secrets {
                let value = String(secret.split(separator: "=").last ?? "")
                #expect(!capture.lines.contains { $0.contains(value) }, "\(value.prefix(8))… is in the log")
            }
            #expect(capture.lines.contains { $0.contains("invalid_grant") }, "the refusal itself is logged")
        }
    }

    @Test("the sign-in page links a lost device to the recovery page given, and says what to do without one")
    func recoveryLink() async throws {
        for url in [nil, "https://www.example.com/account/recover?from=sign-in"] {
            let harness = try H { $0.oidcRecoveryURL = url }
            let client = try await harness.client()
            try await harness.server.run { http in
                let page = String(buffer: try await harness.authorize(http, H.authorization(client.id)).body)
                if url != nil {
                    #expect(page.contains(#"<a id="recovery" href="https://www.example.com/account/recover?from=sign-in">"#), "\(page)")
                } else {
                    #expect(!page.contains("id=\"recovery\"") && page.contains("Ask Passkey Server for a recovery link"), "\(page)")
                }
            }
        }
    }

    @Test("without --oidc-issuer there are no OpenID endpoints")
    func disabled() async throws {
        let server = TestServer()
        try await server.run { http async throws in
            let discovery = try await http.call(.get, "/.well-known/openid-configuration")
            #expect(discovery.status == .notFound)
            let authorize = try await http.call(.get, "/oidc/authorize?client_id=x")
            #expect(authorize.status == .notFound)
        }
    }
}
