import _CryptoExtras
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PasskeyRelyingParty
import PasskeyServer
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyWire
import Testing

/// The OpenID Provider in process: a server with `--oidc-issuer` on its default origin, a registered passkey, and the
/// steps a browser and a client take, each returning what came back so a test can change one thing.
struct OpenIDHarness {
    let server: TestServer
    let device: Device
    static let issuer = "http://localhost:8080"
    static let redirect = "https://app.example.com/callback"
    static let verifier = String(repeating: "v", count: 43) + "erifier"

    init(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        server = TestServer { configuration in
            configuration.oidcIssuer = OpenIDHarness.issuer
            configure(&configuration)
        }
        device = try Device(server: server)
    }

    var clients: OpenIDClients { OpenIDClients(repository: server.repository, audit: StoredAuditLog(repository: server.repository), now: { [clock = server.clock] in clock.now }) }

    /// A client made through the library: confidential (with its secret) unless `isPublic`.
    func client(
        isPublic: Bool = false, algorithm: String = "RS256", thirdParty: Bool = false, scopes: [String]? = nil
    ) async throws -> (id: String, secret: String?) {
        let made = try await clients.create(
            OpenIDClients.Settings(
                name: "App", redirectURIs: [Self.redirect], postLogoutRedirectURIs: ["https://app.example.com/bye"], scopes: scopes,
                idTokenAlgorithm: algorithm, thirdParty: thirdParty),
            isPublic: isPublic, by: AuditActor(description: "by the test"))
        return (made.0.id, made.secret)
    }

    /// Registers the device's passkey for `username`.
    func register(_ http: any TestClientProtocol, username: String = "ann@example.com") async throws -> String {
        let options = try await http.call(.get, "/generate-registration-options?username=\(username)")
        let verified = try await http.call(
            .post, "/verify-registration",
            json: ["username": .string(username), "challengeKey": options["challengeKey"] ?? .null, "cred": device.create(options.json)])
        #expect(verified["verified"] == true, "\(verified.json)")
        return verified["userId"]?.stringValue ?? ""
    }

    static func query(_ parameters: [(String, String)]) -> String {
        var components = URLComponents()
        components.queryItems = parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
        return components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B") ?? ""
    }

    static var challenge: String { Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8)))) }

    /// The usual authorization request's parameters, for `clientID`, with PKCE S256.
    static func authorization(_ clientID: String, extra: [(String, String)] = []) -> [(String, String)] {
        [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirect), ("scope", "openid profile email offline_access"),
            ("state", "s-123"), ("nonce", "n-456"), ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ] + extra
    }

    /// `GET /oidc/authorize` with `parameters`, carrying `cookie` when given.
    func authorize(_ http: any TestClientProtocol, _ parameters: [(String, String)], cookie: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let cookie { headers[.cookie] = cookie }
        return try await http.execute(uri: "/oidc/authorize?" + Self.query(parameters), method: .get, headers: headers, body: nil)
    }

    /// The sealed request of a sign-in page.
    static func sealed(_ page: TestResponse) -> String? {
        let html = String(decoding: page.body.readableBytesView, as: UTF8.self)
        guard let start = html.range(of: "data-request=\"") else { return nil }
        return String(html[start.upperBound...].prefix { $0 != "\"" })
    }

    /// The sign-in page's passkey step: options, the device's assertion, `POST /oidc/sign-in`. Returns the answer and the
    /// session cookie it set.
    func signIn(_ http: any TestClientProtocol, sealed: String, cookie: String? = nil) async throws -> (answer: JSONResponse, cookie: String?) {
        let options = try await http.call(.get, "/generate-authentication-options")
        let body: JSONValue = ["request": .string(sealed), "cred": try device.get(options.json), "challengeKey": options["challengeKey"] ?? .null]
        var headers: HTTPFields = [:]
        if let cookie { headers[.cookie] = cookie }
        let answer = try await http.call(.post, "/oidc/sign-in", json: body, headers: headers)
        let setCookie = answer.headers[.setCookie].flatMap { $0.split(separator: ";").first.map(String.init) }
        return (answer, setCookie)
    }

    /// The parameters of a location's query.
    static func parameters(_ location: String?) -> [String: String] {
        let items = location.flatMap(URLComponents.init(string:))?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// A whole passkey sign-in for `clientID`: the code and the session cookie.
    func code(_ http: any TestClientProtocol, _ clientID: String, extra: [(String, String)] = []) async throws -> (code: String, cookie: String?) {
        let page = try await authorize(http, Self.authorization(clientID, extra: extra))
        #expect(page.status == .ok, "\(String(decoding: page.body.readableBytesView, as: UTF8.self))")
        let sealed = try #require(Self.sealed(page))
        let (answer, cookie) = try await signIn(http, sealed: sealed)
        let parameters = Self.parameters(answer["location"]?.stringValue)
        return (try #require(parameters["code"], "\(answer.json)"), cookie)
    }

    /// `POST /oidc/token` with a form body and, when given, Basic client authentication.
    static func token(_ http: any TestClientProtocol, _ form: [(String, String)], basic: (String, String)? = nil) async throws -> JSONResponse {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let (id, secret) = basic {
            headers[.authorization] = "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString()
        }
        let response = try await http.execute(uri: "/oidc/token", method: .post, headers: headers, body: ByteBuffer(string: query(form)))
        let bytes = Array(response.body.readableBytesView)
        return JSONResponse(status: response.status, headers: response.headers, json: (try? JSONValue.parse(bytes)) ?? .null)
    }

    /// The code exchanged by a confidential client.
    static func exchange(_ http: any TestClientProtocol, _ code: String, client: (id: String, secret: String?), verifier: String? = OpenIDHarness.verifier,
        redirect: String = OpenIDHarness.redirect
    ) async throws -> JSONResponse {
        var form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect)]
        if let verifier { form.append(("code_verifier", verifier)) }
        if client.secret == nil { form.append(("client_id", client.id)) }
        return try await token(http, form, basic: client.secret.map { (client.id, $0) })
    }

    static func userInfo(_ http: any TestClientProtocol, _ accessToken: String) async throws -> JSONResponse {
        try await http.call(.get, "/oidc/userinfo", headers: [.authorization: "Bearer \(accessToken)"])
    }

    /// The ID token's header and claims, after checking its signature against the provider's JWKS.
    static func verifiedClaims(_ http: any TestClientProtocol, _ token: String) async throws -> (header: JSONObject, claims: JSONObject) {
        let parts = token.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        func object(_ part: String) throws -> JSONObject {
            let bytes = try #require(Base64URL.decode(part))
            return try #require(try JSONValue.parse(bytes).objectValue)
        }
        let header = try object(parts[0])
        let claims = try object(parts[1])
        let signature = try #require(Base64URL.decode(parts[2]))
        let keys = try await http.call(.get, "/oidc/jwks.json")["keys"]?.arrayValue ?? []
        let key = try #require(keys.first { $0.objectValue?["kid"] == header["kid"] }?.objectValue, "the JWKS has the token's kid")
        let input = Array((parts[0] + "." + parts[1]).utf8)
        switch header["alg"]?.stringValue {
        case "RS256":
            let n = try #require(key["n"]?.stringValue.flatMap(Base64URL.decode))
            let e = try #require(key["e"]?.stringValue.flatMap(Base64URL.decode))
            let publicKey = try _RSA.Signing.PublicKey(n: n, e: e)
            #expect(publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: input, padding: .insecurePKCS1v1_5))
        case "ES256":
            let x = try #require(key["x"]?.stringValue.flatMap(Base64URL.decode))
            let y = try #require(key["y"]?.stringValue.flatMap(Base64URL.decode))
            let publicKey = try P256.Signing.PublicKey(rawRepresentation: x + y)
            #expect(publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: signature), for: input))
        default:
            Issue.record("unexpected alg \(header["alg"]?.stringValue ?? "none")")
        }
        return (header, claims)
    }
}
