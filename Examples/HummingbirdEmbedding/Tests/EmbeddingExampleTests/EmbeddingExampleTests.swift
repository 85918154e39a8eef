import Foundation
import HTTPTypes
import Hummingbird
import PasskeyAPI
import HummingbirdTesting
import NIOCore
import PasskeyClient
import PasskeySoftwareAuthenticator
import PasskeyStorage
import PasskeyWire
import Testing

@testable import EmbeddingExample

/// The embedding example, driven as its users would: a person signs up with the app's own login, adds a passkey, and
/// later signs in with it; the passkey is made and used by the software authenticator, which really signs.
@Suite("An existing Hummingbird app adds passkey sign-in through the relying-party library")
struct EmbeddingExampleTests {
    static let origin = "http://localhost:8080"

    static func call(_ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, session: String? = nil, json: JSONValue? = nil)
        async throws -> (status: HTTPResponse.Status, json: JSONValue)
    {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let session { headers[.authorization] = "Bearer \(session)" }
        let response = try await client.execute(
            uri: path, method: method, headers: headers, body: json.map { ByteBuffer(bytes: $0.serializedBytes) })
        let bytes = Array(response.body.readableBytesView)
        return (response.status, bytes.isEmpty ? .null : try JSONValue.parse(bytes))
    }

    @Test("sign up with the app's login, add a passkey, sign in with it: the app's own user and a new session")
    func addAndSignIn() async throws {
        let router = buildRouter(repository: InMemoryRepository(), origin: Self.origin, rpID: "localhost")
        let device = SoftwareAuthenticator(configuration: SoftwareAuthenticatorConfiguration(origin: .web(Self.origin)))
        try await Application(router: router).test(.router) { client in
            let signedUp = try await Self.call(client, .post, "/signup", json: ["email": "ann@example.com", "name": "Ann"])
            let session = try #require(signedUp.json.objectValue?["session"]?.stringValue)
            let userID = try #require(signedUp.json.objectValue?["user"]?.objectValue?["id"]?.stringValue)

            // Adding a passkey needs the app's session.
            #expect(try await Self.call(client, .post, "/passkeys/register/options").status == .unauthorized)
            let started = try await Self.call(client, .post, "/passkeys/register/options", session: session)
            #expect(started.status == .ok, "\(started.json)")
            let creation = try PublicKeyCredentialCreationOptionsJSON(json: try #require(started.json.objectValue?["publicKey"]))
            #expect(creation.user.name == "ann@example.com" && creation.user.displayName == "Ann")
            let credential = try await device.makeCredential(RegistrationRequest(options: creation))
            let added = try await Self.call(
                client, .post, "/passkeys/register",
                json: ["challengeKey": try #require(started.json.objectValue?["challengeKey"]), "credential": credential.json])
            #expect(added.status == .ok && added.json.objectValue?["credentialId"]?.stringValue == credential.id, "\(added.json)")

            // Later, without a session: the passkey names its account, and the account its app user.
            let request = try await Self.call(client, .post, "/passkeys/sign-in/options")
            let options = try PublicKeyCredentialRequestOptionsJSON(json: try #require(request.json.objectValue?["publicKey"]))
            #expect(options.allowCredentials?.isEmpty ?? true)
            let assertion = try await device.getAssertion(AssertionRequest(options: options))
            let challengeKey = try #require(request.json.objectValue?["challengeKey"])
            let signedIn = try await Self.call(client, .post, "/passkeys/sign-in", json: ["challengeKey": challengeKey, "credential": assertion.json])
            #expect(signedIn.status == .ok, "\(signedIn.json)")
            #expect(signedIn.json.objectValue?["user"]?.objectValue?["id"]?.stringValue == userID)
            let newSession = try #require(signedIn.json.objectValue?["session"]?.stringValue)
            let me = try await Self.call(client, .get, "/me", session: newSession)
            #expect(me.json.objectValue?["email"]?.stringValue == "ann@example.com")

            // The same response again: the challenge was spent by the sign-in, so the library refuses it.
            let replayed = try await Self.call(client, .post, "/passkeys/sign-in", json: ["challengeKey": challengeKey, "credential": assertion.json])
            #expect(replayed.status == .badRequest, "\(replayed.json)")
            #expect(replayed.json.objectValue?["error"]?.objectValue?["message"]?.stringValue?.hasPrefix(ErrorCode.challengeInvalid.rawValue) == true, "\(replayed.json)")
        }
    }

    @Test("a passkey made for another site is refused with the library's code")
    func otherOrigin() async throws {
        let router = buildRouter(repository: InMemoryRepository(), origin: Self.origin, rpID: "localhost")
        let phishing = SoftwareAuthenticator(configuration: SoftwareAuthenticatorConfiguration(origin: .web("http://localhost:9999")))
        try await Application(router: router).test(.router) { client in
            let signedUp = try await Self.call(client, .post, "/signup", json: ["email": "bo@example.com", "name": "Bo"])
            let session = try #require(signedUp.json.objectValue?["session"]?.stringValue)
            let started = try await Self.call(client, .post, "/passkeys/register/options", session: session)
            let creation = try PublicKeyCredentialCreationOptionsJSON(json: try #require(started.json.objectValue?["publicKey"]))
            let credential = try await phishing.makeCredential(RegistrationRequest(options: creation))
            let refused = try await Self.call(
                client, .post, "/passkeys/register",
                json: ["challengeKey": try #require(started.json.objectValue?["challengeKey"]), "credential": credential.json])
            #expect(refused.status == .badRequest)
            #expect(refused.json.objectValue?["error"]?.objectValue?["message"]?.stringValue?.hasPrefix(ErrorCode.originMismatch.rawValue) == true, "\(refused.json)")
        }
    }
}
