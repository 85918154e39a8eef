import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PasskeyAPI
import PasskeyRelyingParty
import PasskeyStorage
import PasskeyWire

/// The OpenID Provider's endpoints (docs/oidc.md), when the server runs with `--oidc-issuer`:
/// - `GET /.well-known/openid-configuration` (discovery) and `GET /oidc/jwks.json` (RS256 and ES256 keys);
/// - `GET|POST /oidc/authorize`: the authorization request; the browser goes back to the client at once when its
///   session answers it, else gets the sign-in page;
/// - `POST /oidc/sign-in`: the page's passkey assertion (or consent), answered with where the browser goes;
/// - `POST /oidc/token` (codes and refresh tokens), `GET|POST /oidc/userinfo`, `GET|POST /oidc/end-session`.
///
/// Each step is an event in the dashboard's log (`oidc.<step>`) and a metric, as ceremony steps are; codes and tokens
/// are never logged.
struct OpenIDController<Repository: PasskeyRepository, Context: CallerRequestContext>: Sendable {
    let provider: OpenIDProvider<Repository>
    let configuration: ServerConfiguration
    let steps: StepRecorder<Context>
    let bodyLimit: Int
    let script: [UInt8]
    let style: [UInt8]

    init(provider: OpenIDProvider<Repository>, configuration: ServerConfiguration, steps: StepRecorder<Context>, bodyLimit: Int) {
        self.provider = provider
        self.configuration = configuration
        self.steps = steps
        self.bodyLimit = bodyLimit
        func asset(_ name: String) -> [UInt8] {
            let url = Bundle.module.url(forResource: "Public/" + name, withExtension: nil) ?? Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Public")
            return url.flatMap { try? Data(contentsOf: $0) }.map { [UInt8]($0) } ?? []
        }
        script = asset("oidc.js")
        style = asset("oidc.css")
    }

    func addRoutes(to router: Router<Context>) {
        router.get(".well-known/openid-configuration", use: discovery)
        router.get("oidc/jwks.json", use: jwks)
        router.get("oidc/authorize", use: authorize)
        router.post("oidc/authorize", use: authorize)
        router.post("oidc/sign-in", use: signIn)
        router.post("oidc/token", use: token)
        router.get("oidc/userinfo", use: userInfo)
        router.post("oidc/userinfo", use: userInfo)
        router.get("oidc/end-session", use: endSession)
        router.post("oidc/end-session", use: endSession)
        let script = script, style = style
        router.get("oidc/oidc.js") { _, _ in Self.asset(script, "text/javascript; charset=utf-8") }
        router.get("oidc/oidc.css") { _, _ in Self.asset(style, "text/css; charset=utf-8") }
    }

    // MARK: Discovery

    /// `GET /.well-known/openid-configuration`.
    func discovery(_ request: Request, context: Context) async -> Response {
        let settings = provider.settings
        var response = Response.json(
            OpenIDConfiguration(
                issuer: settings.issuer, authorizationEndpoint: settings.endpoint("oidc/authorize"), tokenEndpoint: settings.endpoint("oidc/token"),
                userinfoEndpoint: settings.endpoint("oidc/userinfo"), jwksURI: settings.endpoint("oidc/jwks.json"),
                endSessionEndpoint: settings.endpoint("oidc/end-session"), scopesSupported: AuthorizationRequest.knownScopes,
                idTokenSigningAlgValuesSupported: OpenIDClients.algorithms))
        response.headers[.cacheControl] = "public, max-age=3600"
        return response
    }

    /// `GET /oidc/jwks.json`: every key an ID token may be signed with.
    func jwks(_ request: Request, context: Context) async -> Response {
        do throws(RelyingPartyError) {
            var response = Response.json(try await provider.signer.jwks())
            response.headers[.cacheControl] = "public, max-age=300"
            return response
        } catch { return Response.error(APIError(error)) }
    }

    // MARK: Authorization

    /// `GET` or `POST /oidc/authorize`.
    func authorize(_ request: Request, context: Context) async -> Response {
        var request = request
        return await steps.observedResponse("oidc", "authorize", request, context, refusal: authorizationRefusal) { note in
            let parameters = request.method == .post ? try await formBody(&request).all : request.formQuery.all
            switch try await provider.authorize(parameters, sessionSecret: sessionSecret(request)) {
            case .respond(let response):
                note.detail = "answered from the browser session"
                return Self.send(response)
            case .signIn(let sealed, let client, let authorization, let session):
                note.detail = "sign-in page for \(client.name)"
                return page(
                    OpenIDPages.signIn(
                        client: client, sealed: sealed, request: authorization, session: session, rpName: configuration.rpName,
                        recoveryURL: configuration.oidcRecoveryURL),
                    formTarget: authorization.redirectURI)
            }
        }
    }

    /// `POST /oidc/sign-in` `{request, cred?, challengeKey?, consent?}`: JSON in, JSON out (``OpenIDSignInAnswer``), for
    /// the page's script.
    func signIn(_ request: Request, context: Context) async -> Response {
        var request = request
        return await steps.observedResponse("oidc", "sign_in", request, context, refusal: signInRefusal) { note in
            let body = try await request.decode(OpenIDSignInRequest.self, limit: bodyLimit)
            let outcome = try await provider.completeSignIn(
                sealed: body.request, credential: body.cred, challengeKey: body.challengeKey, consent: body.consent, sessionSecret: sessionSecret(request))
            if let signIn = outcome.signIn {
                note.concerns(signIn.user, credentialID: signIn.credential.id)
                if signIn.counterRegressed { steps.flagCounterRegression(note, context, signIn.user, signIn.credential) }
            }
            var response = Response.json(Self.answer(outcome.response))
            if let secret = outcome.newSession {
                response.headers[.setCookie] = cookie(secret, maxAge: Int(provider.settings.sessionLifetime), for: request)
            }
            return response
        }
    }

    /// `GET` or `POST /oidc/end-session` (RP-initiated logout 1.0): ends the browser session; back to the client when
    /// it registered the `post_logout_redirect_uri`, else a signed-out page.
    func endSession(_ request: Request, context: Context) async -> Response {
        var request = request
        return await steps.observedResponse("oidc", "end_session", request, context, refusal: { error, _ in Self.errorPage(error) }) { _ in
            let query = request.method == .post ? try await formBody(&request) : request.formQuery
            let target = try await provider.endSession(
                sessionSecret: sessionSecret(request), idTokenHint: try query.single("id_token_hint"), clientID: try query.single("client_id"),
                postLogoutRedirectURI: try query.single("post_logout_redirect_uri"), state: try query.single("state"))
            var response = target.map { Response(status: .seeOther, headers: [.location: $0, .cacheControl: "no-store"]) } ?? page(OpenIDPages.signedOut())
            response.headers[.setCookie] = cookie("", maxAge: 0, for: request)
            return response
        }
    }

    // MARK: Tokens

    /// `POST /oidc/token`.
    func token(_ request: Request, context: Context) async -> Response {
        var request = request
        return await steps.observedResponse("oidc", "token", request, context, refusal: tokenRefusal(request)) { note in
            let form = try await formBody(&request)
            var parameters: [String: String] = [:]
            for (name, value) in form.all {
                // RFC 6749 §3.2: parameters must not be sent more than once.
                guard parameters[name] == nil else { throw APIError(.invalidRequest, "The parameter \(name) was sent more than once.") }
                parameters[name] = value
            }
            let credentials = OpenIDProvider<Repository>.ClientCredentials(
                basic: try Self.basicCredentials(request.headers[.authorization]), postedID: parameters["client_id"],
                postedSecret: parameters["client_secret"])
            let issued = try await provider.token(parameters, credentials: credentials)
            note.concerns(issued.user)
            note.detail = "\(parameters["grant_type"] ?? "") for \(issued.client.name)"
            var response = Response.json(issued.answer)
            response.headers[.cacheControl] = "no-store"
            if let pragma = HTTPField.Name("Pragma") { response.headers[pragma] = "no-cache" }
            return response
        }
    }

    /// `GET` or `POST /oidc/userinfo` with `Authorization: Bearer <access token>`, or a POST with `access_token` in its
    /// form body (RFC 6750 §2.2, what pyoidc sends), not both.
    func userInfo(_ request: Request, context: Context) async -> Response {
        var request = request
        return await steps.observedResponse("oidc", "userinfo", request, context, refusal: userInfoRefusal) { note in
            var token = BearerSecrets.bearer(request.headers[.authorization])
            if request.method == .post, request.headers[.contentType] != nil, let posted = try await formBody(&request).single("access_token") {
                guard token == nil else { throw APIError(.invalidRequest, "Send the access token once: in the Authorization header or the body.") }
                token = posted
            }
            let (answer, _, user) = try await provider.userInfo(accessToken: token)
            note.concerns(user)
            var response = Response.json(answer)
            response.headers[.cacheControl] = "no-store"
            return response
        }
    }

    // MARK: Refusals

    /// To the client's redirect URI when the refusal may go there (OpenID Connect Core §3.1.2.6), else an error page.
    func authorizationRefusal(_ error: APIError, _ thrown: any Error) -> Response {
        if let refusal = thrown as? AuthorizationRefusal, let response = provider.response(for: refusal) { return Self.send(response) }
        return Self.errorPage(error)
    }

    /// The page shows the message; a refusal the client must learn of (a declined consent) sends the browser there.
    func signInRefusal(_ error: APIError, _ thrown: any Error) -> Response {
        if let refusal = thrown as? AuthorizationRefusal, let response = provider.response(for: refusal) { return Response.json(Self.answer(response)) }
        return Response.error(error)
    }

    /// RFC 6749 §5.2: 400, or 401 with `WWW-Authenticate` for a client that failed to authenticate.
    func tokenRefusal(_ request: Request) -> (APIError, any Error) -> Response {
        { error, _ in
            let code = OAuthErrorAnswer(error: error.code, errorDescription: error.message)
            var response = Response.json(code, status: error.code == .invalidClient ? .unauthorized : HTTPResponse.Status(code: error.statusCode))
            if error.code == .invalidClient { response.headers[.wwwAuthenticate] = #"Basic realm="passkey-server""# }
            response.headers[.cacheControl] = "no-store"
            return response
        }
    }

    /// RFC 6750 §3: 401 with the `Bearer` challenge naming the error.
    func userInfoRefusal(_ error: APIError, _ thrown: any Error) -> Response {
        var response = Response.json(OAuthErrorAnswer(error: error.code, errorDescription: error.message), status: HTTPResponse.Status(code: error.statusCode))
        if error.code == .invalidToken {
            response.headers[.wwwAuthenticate] = #"Bearer error="invalid_token", error_description="\#(error.message.replacingOccurrences(of: "\"", with: "'"))""#
        }
        return response
    }

    // MARK: Helpers

    /// The browser to the client: a redirect with the query, or a page that posts the form.
    static func send(_ response: AuthorizationResponse) -> Response {
        if response.mode == .formPost { return page(OpenIDPages.formPost(response), formTarget: response.redirectURI) }
        return Response(status: .seeOther, headers: [.location: response.location, .cacheControl: "no-store"])
    }

    static func answer(_ response: AuthorizationResponse) -> OpenIDSignInAnswer {
        guard response.mode == .formPost else { return OpenIDSignInAnswer(location: response.location) }
        return OpenIDSignInAnswer(formAction: response.redirectURI, formParameters: Dictionary(response.parameters, uniquingKeysWith: { first, _ in first }))
    }

    static func errorPage(_ error: APIError) -> Response {
        var response = page(OpenIDPages.error(error.code.rawValue, error.message))
        response.status = HTTPResponse.Status(code: error.statusCode)
        return response
    }

    func page(_ html: String, formTarget: String? = nil) -> Response { Self.page(html, formTarget: formTarget) }

    /// A page under its own CSP: scripts and styles from this server, and forms posted here or to the client's redirect
    /// URI only.
    static func page(_ html: String, formTarget: String? = nil) -> Response {
        var response = Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
        let formSource = formTarget.flatMap(Self.source).map { " " + $0 } ?? ""
        response.headers[.contentSecurityPolicy] =
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'\(formSource); frame-ancestors 'none'; base-uri 'none'"
        return response
    }

    /// The CSP source of a redirect URI: its origin, or its scheme for an app's private-use scheme.
    static func source(_ uri: String) -> String? {
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased() else { return nil }
        guard let host = components.host, scheme == "https" || scheme == "http" else { return scheme + ":" }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }

    static func asset(_ bytes: [UInt8], _ type: String) -> Response {
        guard !bytes.isEmpty else { return Response.error(APIError(.notFound, "The sign-in page is missing from this build.")) }
        return Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "public, max-age=300"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// `application/x-www-form-urlencoded` body, at most ``bodyLimit`` bytes.
    func formBody(_ request: inout Request) async throws -> FormQuery {
        if let type = request.headers[.contentType], !type.lowercased().hasPrefix("application/x-www-form-urlencoded") {
            throw APIError(.invalidRequest, "The body must be application/x-www-form-urlencoded.")
        }
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: bodyLimit) } catch { throw APIError.requestTooLarge(limit: bodyLimit) }
        return FormQuery(String(decoding: buffer.readableBytesView, as: UTF8.self))
    }

    /// `Authorization: Basic` with the client id and secret, each form-encoded (RFC 6749 §2.3.1).
    static func basicCredentials(_ header: String?) throws(APIError) -> (id: String, secret: String)? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic" else { return nil }
        guard let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { throw APIError(.invalidClient, "The Authorization header's Basic credentials do not read.") }
        return (FormQuery.decode(text[..<colon]), FormQuery.decode(text[text.index(after: colon)...]))
    }

    // MARK: The browser session

    /// `__Host-passkey_oidc` over TLS, `passkey_oidc` on plain HTTP (localhost). `SameSite=Lax`: the cookie must come
    /// along when another site's link brings the browser to `/oidc/authorize`, so a second application signs in
    /// without a ceremony.
    func cookieName(_ request: Request) -> String { configuration.cameOverTLS(request.headers) ? "__Host-passkey_oidc" : "passkey_oidc" }

    func cookie(_ value: String, maxAge: Int, for request: Request) -> String {
        let secure = configuration.cameOverTLS(request.headers)
        return "\(cookieName(request))=\(value); Path=/; HttpOnly; SameSite=Lax; Max-Age=\(maxAge)" + (secure ? "; Secure" : "")
    }

    func sessionSecret(_ request: Request) -> String? { request.cookieValues(named: cookieName(request)).first }
}
