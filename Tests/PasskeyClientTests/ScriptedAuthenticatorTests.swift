import PasskeyClient
import PasskeySoftwareAuthenticator
import PasskeyWire
import Testing
import PasskeyTestSupport

@Suite("Scripted authenticator")
struct ScriptedAuthenticatorTests {
    typealias RP = TestRelyingParty

    @Test("each canned outcome becomes its error code")
    func outcomes() async {
        let cases: [(ScriptedOutcome<RegistrationResponseJSON>, PasskeyError.Code)] = [
            (.cancelled, .cancelled), (.noCredentials, .noCredentials), (.alreadyRegistered, .excludedCredentialExists),
            (.failure(PasskeyError(.network, stage: .network, "offline")), .network),
        ]
        for (outcome, code) in cases {
            let authenticator = ScriptedAuthenticator(registration: outcome)
            #expect(await passkeyErrorCode { () async throws(PasskeyError) in try await authenticator.makeCredential(RP.registrationRequest()) } == code)
        }
        let assertion = ScriptedAuthenticator(assertion: .noCredentials)
        #expect(await passkeyErrorCode { () async throws(PasskeyError) in try await assertion.getAssertion(RP.assertionRequest()) } == .noCredentials)
    }

    @Test("a given response is returned as is, and requests are recorded")
    func respond() async throws {
        let recorded = try await SoftwareAuthenticator().makeCredential(RP.registrationRequest())
        let authenticator = ScriptedAuthenticator(registration: .respond(recorded))
        let request = RegistrationRequest(options: RP.registrationRequest().options, style: .conditional)
        #expect(try await authenticator.makeCredential(request) == recorded)
        #expect(await authenticator.registrationRequests == [request])
        #expect(await authenticator.assertionRequests.isEmpty)
    }

    @Test("an unscripted ceremony is an internal error saying so")
    func unscripted() async {
        let error = await thrownError { () async throws(PasskeyError) in try await ScriptedAuthenticator().getAssertion(RP.assertionRequest()) }
        #expect(error?.code == .internalError)
        #expect(error?.reason.contains("no outcome scripted for assertion") == true)
    }

    @Test("scripts can change between calls")
    func rescript() async throws {
        let authenticator = ScriptedAuthenticator(assertion: .cancelled)
        #expect(await passkeyErrorCode { () async throws(PasskeyError) in try await authenticator.getAssertion(RP.assertionRequest()) } == .cancelled)
        await authenticator.script(assertion: .noCredentials)
        #expect(await passkeyErrorCode { () async throws(PasskeyError) in try await authenticator.getAssertion(RP.assertionRequest()) } == .noCredentials)
    }

    @Test("it follows the seam's rules: cancellation during the sheet, one ceremony at a time")
    func seamRules() async throws {
        let authenticator = ScriptedAuthenticator(assertion: .noCredentials, delay: .seconds(60))
        let task = Task { await passkeyErrorCode { () async throws(PasskeyError) in try await authenticator.getAssertion(RP.assertionRequest()) } }
        #expect(await eventually { await authenticator.ceremonyInProgress == .assertion })
        #expect(await passkeyErrorCode { () async throws(PasskeyError) in try await authenticator.makeCredential(RP.registrationRequest()) } == .ceremonyInProgress)
        task.cancel()
        #expect(await task.value == .cancelled)
        #expect(await authenticator.ceremonyInProgress == nil)
    }

    @Test("usable wherever an Authenticator is expected")
    func existential() async throws {
        let authenticators: [any Authenticator] = [ScriptedAuthenticator(assertion: .cancelled), SoftwareAuthenticator()]
        for authenticator in authenticators {
            let code = await passkeyErrorCode { () async throws(PasskeyError) in try await authenticator.getAssertion(RP.assertionRequest()) }
            #expect(code == .cancelled || code == .noCredentials)
        }
    }
}
