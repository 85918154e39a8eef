import Foundation
import PasskeyClient
import PasskeySoftwareAuthenticator
import PasskeyTestSupport
import PasskeyWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client the Nuri server guide writes (`../shared/reference/seeds/001_…`, "Complete Swift Example"), as written:
/// its `Decodable` models (`username: String`), its request bodies (built with `JSONSerialization`, `"username":
/// username ?? ""`, `"transports": ["internal"]`, `"userHandle": credential.userID?… ?? ""`), `URLSession.shared`, and
/// no `challengeKey` at sign-in. The authenticator's part, which the guide leaves to AuthenticationServices, is the
/// software authenticator acting as the iOS app (origin `https://<RP ID>`). Against a real `passkey-server` process.
@Suite("The Nuri guide's client against passkey-server", .serialized)
struct NuriGuideClientTests {
    // MARK: The guide's models, as its code decodes them

    struct RegistrationOptions: Decodable {
        let challenge: String
        let rp: RelyingParty
        let user: User
        let pubKeyCredParams: [Parameter]
        let timeout: Int
        let attestation: String
        let authenticatorSelection: Selection
        let challengeKey: String

        struct RelyingParty: Decodable {
            let name: String
            let id: String
        }
        struct User: Decodable {
            let id: String
            let name: String
            let displayName: String
        }
        struct Parameter: Decodable {
            let alg: Int
            let type: String
        }
        struct Selection: Decodable {
            let residentKey: String
            let userVerification: String
        }
    }

    struct AuthenticationOptions: Decodable {
        let challenge: String
        let timeout: Int
        let rpId: String
        let allowCredentials: [Allowed]
        let userVerification: String

        struct Allowed: Decodable {
            let id: String
            let type: String
        }
    }

    struct AuthResponse: Decodable {
        let verified: Bool
        let username: String
        let isAnonymous: Bool
    }

    // MARK: The guide's PasskeyService, with the software authenticator where it calls AuthenticationServices

    struct PasskeyService {
        let baseURL: String
        let authenticator: SoftwareAuthenticator

        func data(_ request: URLRequest) async throws -> Data {
            let (data, response) = try await URLSession.shared.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            guard status == 200 else { throw CLITestError("\(request.url?.path ?? "") answered \(status): \(String(decoding: data, as: UTF8.self))") }
            return data
        }

        func post(_ path: String, _ body: [String: Any]) async throws -> Data {
            var request = URLRequest(url: URL(string: "\(baseURL)/\(path)")!)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            return try await data(request)
        }

        /// The guide's `register(username:)`; returns the options' `user.name` and the server's answer.
        func register(username: String?) async throws -> (userName: String, answer: AuthResponse) {
            let optionsURL = username != nil
                ? "\(baseURL)/generate-registration-options?username=\(username!)"
                : "\(baseURL)/generate-registration-options"
            let optionsData = try await data(URLRequest(url: URL(string: optionsURL)!))
            let options = try JSONDecoder().decode(RegistrationOptions.self, from: optionsData)
            // AuthenticationServices' part: the platform authenticator makes the passkey from the options.
            let credential = try await authenticator.makeCredential(
                RegistrationRequest(options: try PublicKeyCredentialCreationOptionsJSON(json: try JSONValue.parse(Array(optionsData)))))
            let body: [String: Any] = [
                "username": username ?? "",
                "challengeKey": options.challengeKey,
                "cred": [
                    "id": credential.id,
                    "rawId": credential.rawId,
                    "type": "public-key",
                    "response": [
                        "clientDataJSON": credential.response.clientDataJSON,
                        "attestationObject": credential.response.attestationObject,
                        "transports": ["internal"],
                    ],
                ],
            ]
            let answer = try JSONDecoder().decode(AuthResponse.self, from: try await post("verify-registration", body))
            return (options.user.name, answer)
        }

        /// The guide's `authenticate()`, with the name the person typed when given (a named sign-in), and the user handle
        /// as iOS gave it or, as for a passkey iOS returns without one, `""`.
        func authenticate(username: String? = nil, sendUserHandle: Bool = true) async throws -> (username: String, isAnonymous: Bool) {
            let query = username.map { "?username=\($0)" } ?? ""
            let optionsData = try await data(URLRequest(url: URL(string: "\(baseURL)/generate-authentication-options\(query)")!))
            let options = try JSONDecoder().decode(AuthenticationOptions.self, from: optionsData)
            #expect(options.timeout == 60_000, "60-second challenges, as the guide says")
            let credential = try await authenticator.getAssertion(
                AssertionRequest(options: try PublicKeyCredentialRequestOptionsJSON(json: try JSONValue.parse(Array(optionsData)))))
            let body: [String: Any] = [
                "cred": [
                    "id": credential.id,
                    "rawId": credential.rawId,
                    "type": "public-key",
                    "response": [
                        "clientDataJSON": credential.response.clientDataJSON,
                        "authenticatorData": credential.response.authenticatorData,
                        "signature": credential.response.signature,
                        "userHandle": sendUserHandle ? credential.response.userHandle ?? "" : "",
                    ],
                ]
            ]
            let response = try JSONDecoder().decode(AuthResponse.self, from: try await post("verify-authentication", body))
            return (response.username, response.isAnonymous)
        }
    }

    static func service(_ server: ServerProcess) -> PasskeyService {
        // Each account's passkey in an authenticator of its own: a usernameless sign-in then has one passkey to offer.
        let authenticator = SoftwareAuthenticator(configuration: SoftwareAuthenticatorConfiguration(origin: .appleApp))
        return PasskeyService(baseURL: "http://127.0.0.1:\(server.port)", authenticator: authenticator)
    }

    static let serverArguments = ["--rp-id", "example.com", "--origin", "https://example.com", "--options-per-minute", "1000"]

    @Test("named: registration and sign-in decode with the guide's models and succeed, with and without the user handle")
    func named() async throws {
        let server = try ServerProcess(arguments: Self.serverArguments)
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let service = Self.service(server)
        let registered = try await service.register(username: "john_doe")
        #expect(registered.userName == "john_doe")
        #expect(registered.answer.verified && registered.answer.username == "john_doe" && !registered.answer.isAnonymous)
        let signedIn = try await service.authenticate()
        #expect(signedIn.username == "john_doe" && !signedIn.isAnonymous)
        // A passkey iOS returns without a user handle (a security key's, not discoverable) makes the guide's client
        // send "": read as none. Named, the account is known before (WebAuthn L3 §7.2 step 6) and it signs in.
        let withoutHandle = try await service.authenticate(username: "john_doe", sendUserHandle: false)
        #expect(withoutHandle.username == "john_doe" && !withoutHandle.isAnonymous)
        // Without a name, the user handle is what names the account (§7.2 step 6): a clear 400, not a crash or a 500.
        do {
            _ = try await service.authenticate(sendUserHandle: false)
            Issue.record("a usernameless sign-in without a user handle was accepted")
        } catch {
            #expect("\(error)".contains("400") && "\(error)".contains("user_handle_missing"), "\(error)")
        }
    }

    @Test("anonymous: registration and sign-in decode (username is a string), and the account signs in by the name its passkey carries")
    func anonymous() async throws {
        let server = try ServerProcess(arguments: Self.serverArguments)
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let service = Self.service(server)
        let registered = try await service.register(username: nil)
        #expect(registered.userName.hasPrefix("anonymous-"))
        #expect(registered.answer.verified && registered.answer.isAnonymous && registered.answer.username == registered.userName)
        let signedIn = try await service.authenticate()
        #expect(signedIn.username == registered.userName && signedIn.isAnonymous)
        let byName = try await service.authenticate(username: registered.userName)
        #expect(byName.username == registered.userName && byName.isAnonymous)
        let withoutHandle = try await service.authenticate(username: registered.userName, sendUserHandle: false)
        #expect(withoutHandle.username == registered.userName)
    }
}
