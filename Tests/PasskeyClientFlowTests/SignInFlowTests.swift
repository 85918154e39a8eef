import Foundation
import PasskeyClient
import PasskeyWire
import Testing
import PasskeyTestSupport

@Suite("PasskeyAuthClient.signIn: passkeys, saved passwords and Sign in with Apple in one sheet")
struct SignInFlowTests {
    static let both = SignInAlternatives(passwords: true, appleID: AppleIDRequest(scopes: [.email], nonce: "n-1"))

    @Test("ended with a passkey: verified by the server as authenticate() is, with the same events")
    func passkey() async throws {
        let server = FlowServer()
        let events = Collector<PasskeyClientEvent>()
        try await server.run { transport in
            // The software authenticator has no passwords and no Apple ID: its sheet offers passkeys only.
            let client = PasskeyAuthClient(transport: transport, authenticator: server.authenticator(), onEvent: { events.append($0) })
            let registered = try await client.register(username: "ann")
            guard case .passkey(let result) = try await client.signIn(username: "ann", offering: Self.both) else {
                Issue.record("a passkey sign-in ended otherwise")
                return
            }
            #expect(result.verified && result.userId == registered.userId && result.username == "ann")
            #expect(events.values.suffix(2) == [
                .authenticationStarted(username: "ann"),
                .authenticationSucceeded(userId: registered.userId, credentialId: registered.credentialId, isAnonymous: false),
            ])
        }
    }

    @Test("a saved password or Sign in with Apple picked in the sheet is handed back, and nothing is sent to verify")
    func alternatives() async throws {
        let server = FlowServer()
        let events = Collector<PasskeyClientEvent>()
        try await server.run { transport in
            let verifications = Collector<String>()
            let watched = transport.intercepting { request in if request.path.hasPrefix("verify-") { verifications.append(request.path) } }
            let sheet = ScriptedAuthenticator(assertion: .cancelled)
            let client = PasskeyAuthClient(transport: watched, authenticator: sheet, onEvent: { events.append($0) })

            let saved = PasswordCredential(user: "ann@example.com", password: "correct horse")
            await sheet.script(alternative: .password(saved))
            #expect(try await client.signIn(offering: Self.both) == .password(saved))
            let request = try #require(await sheet.assertionRequests.last)
            #expect(request.options.rpId == server.configuration.rpID && request.mediation == .modal, "the server's options reach the sheet")

            let apple = AppleIDCredential(user: "001234.abcd", identityToken: "eyJ.e30.c2ln", realUserStatus: .likelyReal)
            await sheet.script(alternative: .appleID(apple))
            #expect(try await client.signIn(mediation: .immediate, offering: Self.both) == .appleID(apple))
            #expect(await sheet.offeredAlternatives == [Self.both, Self.both])
            #expect(verifications.values.isEmpty)
            #expect(events.values == [
                .authenticationStarted(username: nil), .authenticationEndedWithAlternative(kind: .password),
                .authenticationStarted(username: nil), .authenticationEndedWithAlternative(kind: .appleID),
            ])
        }
    }

    @Test("what was not offered cannot be picked; AutoFill and an empty offer are authenticate()")
    func notOffered() async throws {
        let server = FlowServer()
        try await server.run { transport in
            let sheet = ScriptedAuthenticator(assertion: .cancelled)
            let events = Collector<PasskeyClientEvent>()
            let client = PasskeyAuthClient(transport: transport, authenticator: sheet, onEvent: { events.append($0) })
            await sheet.script(alternative: .appleID(AppleIDCredential(user: "001234.abcd")))
            // Passwords only: the Apple ID is not in the sheet, so the person's choice is the passkey sheet's (cancelled).
            let cancelled = await expectPasskeyError { () async throws(PasskeyError) in
                _ = try await client.signIn(offering: SignInAlternatives(passwords: true))
            }
            #expect(cancelled?.code == .cancelled)
            #expect(events.values.prefix(2) == [
                .authenticationStarted(username: nil),
                .authenticationFailed(PasskeyClientFailure(code: .cancelled, stage: .authenticator, serverCode: nil)),
            ])
            #expect(await sheet.offeredAlternatives == [SignInAlternatives(passwords: true)])
            for (mediation, offer) in [(AssertionMediation.conditional, Self.both), (.modal, SignInAlternatives.passkeysOnly)] {
                let error = await expectPasskeyError { () async throws(PasskeyError) in _ = try await client.signIn(mediation: mediation, offering: offer) }
                #expect(error?.code == .cancelled, "the scripted passkey sheet's answer, as authenticate() gives it")
            }
            #expect(await sheet.offeredAlternatives.count == 1, "AutoFill and an empty offer ask for an assertion, not a combined sheet")
            #expect(await sheet.assertionRequests.map(\.mediation) == [.modal, .conditional, .modal])
        }
    }
}
