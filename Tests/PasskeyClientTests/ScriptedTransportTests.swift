import PasskeyAPI
import PasskeyClient
import PasskeySoftwareAuthenticator
import PasskeyWire
import Testing
import PasskeyTestSupport

/// What an app's own tests do with the shipped doubles: a sign-in screen's outcomes without a server or a device.
@Suite("Scripted transport")
struct ScriptedTransportTests {
    typealias RP = TestRelyingParty

    /// Options as a server sends them (with `challengeKey`), and an assertion over them from the software authenticator.
    static func signInFixture() async throws -> (options: JSONValue, assertion: AuthenticationResponseJSON) {
        let software = SoftwareAuthenticator()
        _ = try await software.makeCredential(RP.registrationRequest())
        let request = RP.assertionRequest()
        guard case .object(var options) = request.options.json else { throw PasskeyError(.internalError, stage: .options, "not an object") }
        options["challengeKey"] = "key-1"
        return (.object(options), try await software.getAssertion(request))
    }

    @Test("answers in order, the last one repeating; every request recorded with its path and body")
    func answersInOrder() async throws {
        let (options, assertion) = try await Self.signInFixture()
        let server = ScriptedTransport()
        await server.script("generate-authentication-options", .json(options))
        await server.script(
            "verify-authentication", .error(code: "challenge_invalid", message: "expired"),
            .json(["verified": true, "userId": "u1", "username": "ann", "isAnonymous": false, "credentialId": .string(assertion.id)]))
        let client = PasskeyAuthClient(transport: server, authenticator: ScriptedAuthenticator(assertion: .respond(assertion)))

        let first = await thrownError { () async throws(PasskeyError) in try await client.authenticate() }
        #expect(first?.code == .invalidChallenge && first?.server?.code == .challengeInvalid)
        let second = try await client.authenticate()
        #expect(second.userId == "u1" && second.username == "ann")
        let third = try await client.authenticate()
        #expect(third.userId == "u1", "the last answer keeps answering")

        let verifications = await server.requests(to: "verify-authentication")
        #expect(verifications.count == 3 && verifications.allSatisfy { $0.method == .post })
        let body = try JSONValue.parse(verifications[0].body ?? [])
        #expect(body.objectValue?["challengeKey"] == "key-1")
        #expect(body.objectValue?["cred"]?.objectValue?["id"] == .string(assertion.id))
    }

    @Test("PRF results the app did not ask for are the backend's: sent on unchanged, not in the result")
    func prfForTheBackend() async throws {
        let (options, fixture) = try await Self.signInFixture()
        var assertion = fixture
        let output = Base64URL.encode([UInt8](repeating: 7, count: 32))
        assertion.clientExtensionResults["prf"] = ["results": ["first": .string(output)]]
        let server = ScriptedTransport()
        await server.script("generate-authentication-options", .json(options))
        await server.script(
            "verify-authentication", .json(["verified": true, "userId": "u1", "isAnonymous": true, "credentialId": .string(assertion.id)]))
        let client = PasskeyAuthClient(transport: server, authenticator: ScriptedAuthenticator(assertion: .respond(assertion)))
        let signedIn = try await client.authenticate()
        #expect(signedIn.prf == nil)
        let sent = try JSONValue.parse(try #require(await server.requests(to: "verify-authentication").first?.body))
        #expect(sent.objectValue?["cred"]?.objectValue?["clientExtensionResults"]?.objectValue?["prf"] == ["results": ["first": .string(output)]])
    }

    @Test("offline and unscripted paths are errors that say so")
    func failures() async throws {
        let server = ScriptedTransport(["generate-authentication-options": [.offline]])
        let client = PasskeyAuthClient(transport: server, authenticator: ScriptedAuthenticator())
        let offline = await thrownError { () async throws(PasskeyError) in try await client.authenticate() }
        #expect(offline?.code == .network)
        let unscripted = await thrownError { () async throws(PasskeyError) in try await client.register(username: "ann") }
        #expect(unscripted?.code == .internalError)
        #expect(unscripted?.reason == "ScriptedTransport has no answer for GET generate-registration-options")
    }
}
