import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOPosix
import PasskeyTestSupport
import PasskeyWire

/// The ceremonies the load generator runs.
enum Ceremony: String, CaseIterable {
    /// `GET /generate-authentication-options?username=` and `POST /verify-authentication`, for a random seeded account.
    case signIn = "sign-in"
    /// The same without a username (a discoverable passkey).
    case usernameless
    /// `GET /generate-registration-options?username=` and `POST /verify-registration` for a new account.
    case registration
    /// Two `GET /.well-known/webauthn` (a constant document through every middleware): what the HTTP edge costs for
    /// the two requests of a ceremony, without storage or cryptography.
    case twoStaticRequests = "two-static-requests"
    /// Only the first request of a sign-in (`GET /generate-authentication-options?username=`): with the sign-in's
    /// figure, splits its cost between the two requests.
    case signInOptions = "sign-in-options"
    /// A whole OpenID Connect code flow without a browser session (docs/oidc.md): `GET /oidc/authorize` (the sign-in
    /// page), the passkey sign-in of a random seeded account (options, `POST /oidc/sign-in`), `POST /oidc/token` with
    /// PKCE and client_secret_basic, and `GET /oidc/userinfo`.
    case openIDCodeFlow = "oidc-code-flow"
}

/// One keep-alive HTTP/1.1 connection of the load generator, on the generator's one event-loop thread: a lean client, so
/// that its CPU (printed, not counted) leaves the server as much of the machine as it can.
final class LoadClient: @unchecked Sendable {
    let client: TestClient
    let origin: String
    let base: TestAuthenticator
    let signInAuthData: [UInt8]
    /// xorshift state: each worker picks its accounts from its own sequence.
    var state: UInt64
    /// The OpenID client the code flow signs in to: its id and secret.
    var openIDClient: (id: String, secret: String)?
    static let verifier = String(repeating: "bench-verifier-", count: 4)
    static let challenge = Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8))))
    static let redirect = "https://app.example.com/callback"

    init(port: Int, group: any EventLoopGroup, key: TestKey, seed: UInt64) throws {
        client = TestClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(30)), eventLoopGroupProvider: .shared(group))
        client.connect()
        origin = "http://localhost:\(port)"
        var device = try TestAuthenticator()
        device.key = key
        base = device
        signInAuthData = device.authData(for: "get") { $0.rpID = "localhost" }.build()
        state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    }

    static func healthy(port: Int) async throws -> Bool {
        let client = TestClient(host: "127.0.0.1", port: port)
        client.connect()
        defer { Task { try? await client.shutdown() } }
        let response = try? await client.execute(TestClient.Request("/health", method: .get, authority: "localhost"))
        return response?.status == .ok
    }

    func next(below bound: Int) -> Int {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Int(state % UInt64(bound))
    }

    /// One request; the body as it came, when the status is 200.
    func send(_ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields = [:], body: String? = nil) async throws -> [UInt8] {
        let response = try await client.execute(
            TestClient.Request(uri, method: method, authority: "localhost", headers: headers, body: body.map { ByteBuffer(string: $0) }))
        let bytes = Array(response.body?.readableBytesView ?? ByteBuffer().readableBytesView)
        guard response.status == .ok else {
            throw BenchFailure("\(method) \(uri.prefix(60)): \(response.status.code) \(String(decoding: bytes.prefix(300), as: UTF8.self))")
        }
        return bytes
    }

    func call(_ method: HTTPRequest.Method, _ uri: String, _ body: JSONValue? = nil) async throws -> JSONObject {
        let response = try await client.execute(
            TestClient.Request(
                uri, method: method, authority: "localhost", headers: body == nil ? [:] : [.contentType: "application/json"],
                body: body.map { ByteBuffer(bytes: $0.serializedBytes) }))
        let bytes = Array(response.body?.readableBytesView ?? ByteBuffer().readableBytesView)
        guard response.status == .ok, let object = try JSONValue.parse(bytes).objectValue else {
            throw BenchFailure("\(method) \(uri.prefix(60)): \(response.status.code) \(String(decoding: bytes.prefix(300), as: UTF8.self))")
        }
        return object
    }

    /// One whole ceremony; throws when any step is not answered 200 (a verification must also say verified).
    func run(_ ceremony: Ceremony, accounts: Int, name: String) async throws {
        switch ceremony {
        case .signIn, .usernameless:
            let index = next(below: accounts)
            let path = ceremony == .signIn ? "/generate-authentication-options?username=" + Seeding.username(index) : "/generate-authentication-options"
            let options = try await call(.get, path)
            var device = base
            device.credentialID = Seeding.credentialID(index)
            device.userHandle = Seeding.userHandle(index)
            let clientData = TestAuthenticator.clientData(type: "webauthn.get", challenge: options["challenge"]?.stringValue ?? "", origin: origin)
            let body: JSONValue = [
                "challengeKey": options["challengeKey"] ?? nil, "cred": try device.assertion(authData: signInAuthData, clientData: clientData).json,
            ]
            guard try await call(.post, "/verify-authentication", body)["verified"] == true else { throw BenchFailure("not verified") }
        case .openIDCodeFlow:
            try await codeFlow(accounts: accounts)
        case .signInOptions:
            _ = try await call(.get, "/generate-authentication-options?username=" + Seeding.username(next(below: accounts)))
        case .twoStaticRequests:
            _ = try await call(.get, "/.well-known/webauthn")
            _ = try await call(.get, "/.well-known/webauthn")
        case .registration:
            let options = try await call(.get, "/generate-registration-options?username=" + name)
            var device = base
            device.userHandle = options["user"]?.objectValue?["id"]?.stringValue.flatMap(Base64URL.decode) ?? []
            device.credentialID = (0..<16).map { _ in UInt8.random(in: 0...255) }
            let clientData = TestAuthenticator.clientData(type: "webauthn.create", challenge: options["challenge"]?.stringValue ?? "", origin: origin)
            let authData = device.authData(for: "create") { $0.rpID = "localhost" }.build()
            let body: JSONValue = [
                "username": .string(name), "challengeKey": options["challengeKey"] ?? nil,
                "cred": device.registration(authData: authData, clientData: clientData).json,
            ]
            guard try await call(.post, "/verify-registration", body)["verified"] == true else { throw BenchFailure("not verified") }
        }
    }

    /// A whole code flow for a random seeded account, as an application and a browser without a session run it.
    func codeFlow(accounts: Int) async throws {
        guard let openIDClient else { throw BenchFailure("no OpenID client was added") }
        let index = next(below: accounts)
        let query = "response_type=code&client_id=\(openIDClient.id)&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcallback&scope=openid%20profile"
            + "&state=bench&nonce=bench&code_challenge=\(Self.challenge)&code_challenge_method=S256&login_hint=\(Seeding.username(index))"
        let page = String(decoding: try await send(.get, "/oidc/authorize?" + query), as: UTF8.self)
        guard let start = page.range(of: "data-request=\"") else { throw BenchFailure("no sign-in page") }
        let sealed = String(page[start.upperBound...].prefix { $0 != "\"" })
        let options = try await call(.get, "/generate-authentication-options?username=" + Seeding.username(index))
        var device = base
        device.credentialID = Seeding.credentialID(index)
        device.userHandle = Seeding.userHandle(index)
        let clientData = TestAuthenticator.clientData(type: "webauthn.get", challenge: options["challenge"]?.stringValue ?? "", origin: origin)
        let signedIn = try await call(
            .post, "/oidc/sign-in",
            ["request": .string(sealed), "challengeKey": options["challengeKey"] ?? nil, "cred": try device.assertion(authData: signInAuthData, clientData: clientData).json])
        guard let location = signedIn["location"]?.stringValue, let code = URLComponents(string: location)?.queryItems?.first(where: { $0.name == "code" })?.value
        else { throw BenchFailure("no code: \(JSONValue.object(signedIn).serialized())") }
        let basic = "Basic " + Data("\(openIDClient.id):\(openIDClient.secret)".utf8).base64EncodedString()
        let tokens = try JSONValue.parse(
            try await send(
                .post, "/oidc/token", headers: [.contentType: "application/x-www-form-urlencoded", .authorization: basic],
                body: "grant_type=authorization_code&code=\(code)&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcallback&code_verifier=\(Self.verifier)"))
        guard let access = tokens.objectValue?["access_token"]?.stringValue else { throw BenchFailure("no access token") }
        _ = try await send(.get, "/oidc/userinfo", headers: [.authorization: "Bearer " + access])
    }

    func close() async { try? await client.shutdown() }
}
