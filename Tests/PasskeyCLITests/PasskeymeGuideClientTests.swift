import Foundation
import PasskeyAPI
import PasskeyClient
import PasskeySoftwareAuthenticator
import PasskeyTestSupport
import PasskeyWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app code of PasskeymeSDK's two documents (`../shared/reference/seeds/000_…`, the integration guide, and `003_…`,
/// the API reference), changed only as docs/migrating/passkeymesdk.md says: the models' member types are the SDK's wire
/// types, `PasskeymeSDK` is `PasskeyAuthClient` (its low-level calls, which return the credential itself), the `User`
/// decoder reads ISO 8601 dates, and refusals are read with `PasskeyError(serverStatus:body:path:)`. Everything else
/// is as the documents write it: the `/api/…` paths, `JSONEncoder` bodies in the guide, `JSONSerialization` with
/// `toDictionary()` in the reference, `URLSession.shared`. The software authenticator stands for the iPhone (origin
/// `https://<RP ID>`). Against a real `passkey-server` process.
@Suite("PasskeymeSDK's app code against passkey-server", .serialized)
struct PasskeymeGuideClientTests {
    // MARK: The integration guide's models ("Data Models"), member types changed as the migration guide says

    struct RegistrationChallengeRequest: Codable {
        let username: String
        let displayName: String
    }

    struct RegistrationChallenge: Codable {
        let challenge: String
        let rp: PublicKeyCredentialRpEntity
        let user: PublicKeyCredentialUserEntityJSON
        let pubKeyCredParams: [PublicKeyCredentialParameters]
        let timeout: Int?
        let attestation: AttestationConveyancePreference
        let authenticatorSelection: AuthenticatorSelectionCriteria?
        let excludeCredentials: [PublicKeyCredentialDescriptorJSON]?
    }

    struct CompleteRegistrationRequest: Codable {
        let credential: RegistrationResponseJSON
        let username: String
    }

    struct AuthenticationChallengeRequest: Codable {
        let username: String?
    }

    struct AuthenticationChallenge: Codable {
        let challenge: String
        let rpId: String?
        let allowCredentials: [PublicKeyCredentialDescriptorJSON]?
        let timeout: Int?
        let userVerification: UserVerificationRequirement
    }

    struct CompleteAuthenticationRequest: Codable {
        let assertion: AuthenticationResponseJSON
        let username: String?
    }

    struct User: Codable {
        let id: String
        let username: String
        let displayName: String
        let email: String?
        let createdAt: Date
    }

    // MARK: The integration guide's AuthenticationManager (registration and authentication flows)

    struct AuthenticationManager {
        let apiBaseURL: String
        let passkeys: PasskeyAuthClient

        /// The guide's decoder, with the one line the migration guide adds.
        static func userDecoder() -> JSONDecoder {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return decoder
        }

        func post(_ path: String, _ data: Data) async throws -> Data {
            let url = URL(string: "\(apiBaseURL)\(path)")!
            var urlRequest = URLRequest(url: url)
            urlRequest.httpMethod = "POST"
            urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
            urlRequest.httpBody = data
            let (responseData, response) = try await URLSession.shared.data(for: urlRequest)
            guard let httpResponse = response as? HTTPURLResponse, httpResponse.statusCode == 200 else {
                throw PasskeyError(serverStatus: (response as? HTTPURLResponse)?.statusCode ?? 0, body: responseData, path: path)
            }
            return responseData
        }

        func registerPasskey(username: String, displayName: String) async throws -> User {
            let challenge = try await getRegistrationChallenge(username: username, displayName: displayName)
            let credential = try await performPasskeyRegistration(challenge: challenge)
            return try await completeRegistration(credential: credential, username: username)
        }

        func getRegistrationChallenge(username: String, displayName: String) async throws -> RegistrationChallenge {
            let request = RegistrationChallengeRequest(username: username, displayName: displayName)
            let data = try JSONEncoder().encode(request)
            return try JSONDecoder().decode(RegistrationChallenge.self, from: try await post("/api/registration-challenge", data))
        }

        /// `PasskeymeSDK.passkeyRegister(challenge:)` and its continuation: one low-level call with the whole options.
        func performPasskeyRegistration(challenge: RegistrationChallenge) async throws -> RegistrationResponseJSON {
            try await passkeys.register(
                username: challenge.user.name, displayName: challenge.user.displayName, challenge: challenge.challenge,
                rp: challenge.rp, user: challenge.user, pubKeyCredParams: challenge.pubKeyCredParams, timeout: challenge.timeout,
                attestation: challenge.attestation, authenticatorSelection: challenge.authenticatorSelection,
                excludeCredentials: challenge.excludeCredentials)
        }

        func completeRegistration(credential: RegistrationResponseJSON, username: String) async throws -> User {
            let request = CompleteRegistrationRequest(credential: credential, username: username)
            let data = try JSONEncoder().encode(request)
            return try Self.userDecoder().decode(User.self, from: try await post("/api/complete-registration", data))
        }

        func authenticateWithPasskey(username: String? = nil) async throws -> User {
            let challenge = try await getAuthenticationChallenge(username: username)
            let assertion = try await performPasskeyAuthentication(challenge: challenge)
            return try await completeAuthentication(assertion: assertion, username: username)
        }

        func getAuthenticationChallenge(username: String?) async throws -> AuthenticationChallenge {
            let data = try JSONEncoder().encode(AuthenticationChallengeRequest(username: username))
            return try JSONDecoder().decode(AuthenticationChallenge.self, from: try await post("/api/authentication-challenge", data))
        }

        func performPasskeyAuthentication(challenge: AuthenticationChallenge) async throws -> AuthenticationResponseJSON {
            try await passkeys.authenticate(
                challenge: challenge.challenge, rpId: challenge.rpId, allowCredentials: challenge.allowCredentials,
                timeout: challenge.timeout, userVerification: challenge.userVerification)
        }

        func completeAuthentication(assertion: AuthenticationResponseJSON, username: String?) async throws -> User {
            let data = try JSONEncoder().encode(CompleteAuthenticationRequest(assertion: assertion, username: username))
            return try Self.userDecoder().decode(User.self, from: try await post("/api/complete-authentication", data))
        }
    }

    // MARK: The API reference's quick start ("Registration Flow", "Authentication Flow")

    struct QuickStart {
        let baseURL: String
        let passkeymeSDK: PasskeyAuthClient

        func registerPasskey(username: String, displayName: String) async throws -> User {
            let challenge = try await getRegistrationChallenge(username: username)
            // The form's display name goes with the call; the passkey carries the user the server made.
            let credential = try await passkeymeSDK.register(
                username: username, displayName: displayName, challenge: challenge.challenge, rp: challenge.rp,
                user: challenge.user, pubKeyCredParams: challenge.pubKeyCredParams, timeout: challenge.timeout,
                attestation: challenge.attestation, authenticatorSelection: challenge.authenticatorSelection,
                excludeCredentials: challenge.excludeCredentials)
            return try await completeRegistration(credential: credential, username: username)
        }

        func send(_ path: String, _ body: [String: Any]) async throws -> Data {
            let url = URL(string: "\(baseURL)\(path)")!
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            let (data, response) = try await URLSession.shared.data(for: request)
            guard let httpResponse = response as? HTTPURLResponse, httpResponse.statusCode == 200 else {
                throw PasskeyError(serverStatus: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data, path: path)
            }
            return data
        }

        func getRegistrationChallenge(username: String) async throws -> RegistrationChallenge {
            try JSONDecoder().decode(RegistrationChallenge.self, from: try await send("/api/start-registration", ["username": username]))
        }

        func completeRegistration(credential: RegistrationResponseJSON, username: String) async throws -> User {
            let body: [String: Any] = ["credential": credential.toDictionary(), "username": username]
            return try AuthenticationManager.userDecoder().decode(User.self, from: try await send("/api/complete-registration", body))
        }

        func authenticateWithPasskey(username: String? = nil) async throws -> User {
            let body = username != nil ? ["username": username!] : [:]
            let challenge = try JSONDecoder().decode(AuthenticationChallenge.self, from: try await send("/api/start-authentication", body))
            let assertion = try await passkeymeSDK.authenticate(
                username: username, challenge: challenge.challenge, rpId: challenge.rpId, allowCredentials: challenge.allowCredentials,
                timeout: challenge.timeout, userVerification: challenge.userVerification)
            let completion: [String: Any] = ["assertion": assertion.toDictionary(), "username": username ?? NSNull()]
            return try AuthenticationManager.userDecoder().decode(User.self, from: try await send("/api/complete-authentication", completion))
        }
    }

    static let serverArguments = ["--rp-id", "example.com", "--origin", "https://example.com", "--options-per-minute", "1000"]

    static func client(_ server: ServerProcess) -> PasskeyAuthClient {
        let authenticator = SoftwareAuthenticator(configuration: SoftwareAuthenticatorConfiguration(origin: .appleApp))
        return PasskeyAuthClient(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, authenticator: authenticator)
    }

    @Test("the integration guide: support check, registration, named and usernameless sign-in decode the guide's User")
    func integrationGuide() async throws {
        let server = try ServerProcess(arguments: Self.serverArguments)
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let passkeys = Self.client(server)
        let capabilities = await passkeys.capabilities()
        #expect(capabilities.isSupported && capabilities.isPlatformAuthenticatorAvailable && capabilities.unavailability == nil)
        let manager = AuthenticationManager(apiBaseURL: "http://127.0.0.1:\(server.port)", passkeys: passkeys)

        let started = Date()
        let user = try await manager.registerPasskey(username: "jane@example.com", displayName: "Jane Doe")
        #expect(user.username == "jane@example.com" && user.displayName == "Jane Doe" && user.email == "jane@example.com")
        #expect(abs(user.createdAt.timeIntervalSince(started)) < 60, "createdAt decodes to the moment of registration")

        let named = try await manager.authenticateWithPasskey(username: "jane@example.com")
        #expect(named.id == user.id && named.createdAt == user.createdAt)
        let usernameless = try await manager.authenticateWithPasskey()
        #expect(usernameless.id == user.id)

        // The answer also carries signedPasskeyData, the proof a backend of the app's own verifies (the User is unsigned).
        let challenge = try await manager.getAuthenticationChallenge(username: nil)
        let assertion = try await manager.performPasskeyAuthentication(challenge: challenge)
        let answer = try JSONValue.parse(Array(try await manager.post(
            "/api/complete-authentication", try JSONEncoder().encode(CompleteAuthenticationRequest(assertion: assertion, username: nil)))))
        let token = try #require(answer.objectValue?["signedPasskeyData"]?.stringValue)
        let parts = token.split(separator: ".").map(String.init)
        let claims = try #require(parts.count == 3 ? Base64URL.decode(parts[1]).flatMap { try? JSONValue.parse($0) } : nil)
        #expect(claims.objectValue?["sub"]?.stringValue == user.id && claims.objectValue?["ceremony"]?.stringValue == "authentication")

        // The guide's guards threw "network error" for every refusal; read, they say what the server said.
        do {
            _ = try await manager.registerPasskey(username: "jane@example.com", displayName: "Jane again")
            Issue.record("a taken username was registered again")
        } catch let error as PasskeyError {
            #expect(error.code == .server && error.server?.code == .usernameTaken && error.server?.httpStatus == 409)
        }
    }

    @Test("the API reference's quick start: the form's display name, toDictionary() bodies, NSNull username")
    func apiReferenceQuickStart() async throws {
        let server = try ServerProcess(arguments: Self.serverArguments)
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let quickStart = QuickStart(baseURL: "http://127.0.0.1:\(server.port)", passkeymeSDK: Self.client(server))
        // /api/start-registration gets no display name, so the server's user carries the username as its display
        // name, while the call passes the form's: the passkey carries the server's user, and its sign-ins verify.
        let user = try await quickStart.registerPasskey(username: "john_doe", displayName: "John Doe")
        #expect(user.username == "john_doe" && user.displayName == "john_doe" && user.email == nil)
        let signedIn = try await quickStart.authenticateWithPasskey(username: "john_doe")
        #expect(signedIn.id == user.id)
        let usernameless = try await quickStart.authenticateWithPasskey()
        #expect(usernameless.id == user.id)
    }
}
