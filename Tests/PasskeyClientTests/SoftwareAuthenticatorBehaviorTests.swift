import Foundation
import PasskeyClient
import PasskeyCore
import PasskeySoftwareAuthenticator
import PasskeyWire
import Testing
import PasskeyTestSupport

/// The authenticator-side rules: credential lists, one passkey per account, cancellation, one ceremony at a time.
@Suite("Software authenticator behaviour")
struct SoftwareAuthenticatorBehaviorTests {
    typealias RP = TestRelyingParty
    let rp = TestRelyingParty.relyingParty()

    /// Registers user `user` and returns the verified record.
    func register(_ authenticator: SoftwareAuthenticator, user: UInt8, rp: RelyingParty? = nil) async throws -> CredentialRecord {
        let rp = rp ?? self.rp
        let request = RP.registrationRequest(rp, user: user)
        let response = try await authenticator.makeCredential(request)
        return try rp.verifyRegistration(response, expectedChallenge: request.options.challenge)
            .credentialRecord(userHandle: RP.userHandle(user))
    }

    @Test("a credential in excludeCredentials → excluded_credential_exists, and nothing is stored")
    func excludeMatch() async throws {
        let store = InMemoryCredentialStore()
        let authenticator = SoftwareAuthenticator(store: store)
        let record = try await register(authenticator, user: 1)
        let error = await thrownError { () async throws(PasskeyError) in
            try await authenticator.makeCredential(RP.registrationRequest(rp, user: 1, exclude: [record]))
        }
        #expect(error?.code == .excludedCredentialExists)
        #expect(error?.stage == .authenticator)
        #expect(error?.recovery == .signInWithExistingPasskey)
        #expect(await store.allCredentials().map(\.id) == [record.id])
    }

    @Test("excludeCredentials naming credentials that are not here does not block registration")
    func excludeNoMatch() async throws {
        let authenticator = SoftwareAuthenticator()
        let elsewhere = CredentialRecord(id: [UInt8](repeating: 7, count: 32), publicKey: [], signCount: 0)
        _ = try await authenticator.makeCredential(RP.registrationRequest(rp, exclude: [elsewhere]))
    }

    @Test("allowCredentials with no credential here → no_credentials")
    func allowNoMatch() async throws {
        let authenticator = SoftwareAuthenticator()
        _ = try await register(authenticator, user: 1)
        let elsewhere = CredentialRecord(id: [UInt8](repeating: 7, count: 32), publicKey: [], signCount: 0)
        let error = await thrownError { () async throws(PasskeyError) in
            try await authenticator.getAssertion(RP.assertionRequest(rp, allow: [elsewhere]))
        }
        #expect(error?.code == .noCredentials)
        #expect(error?.recovery == .useAnotherDeviceOrMethod)
    }

    @Test("no credential at all for the RP → no_credentials, for every mediation", arguments: AssertionMediation.allCases)
    func emptyAuthenticator(mediation: AssertionMediation) async throws {
        let authenticator = SoftwareAuthenticator(configuration: .init(userResponseDelay: .seconds(30)))
        let started = ContinuousClock.now
        let code = await passkeyErrorCode { () async throws(PasskeyError) in
            try await authenticator.getAssertion(RP.assertionRequest(rp, mediation: mediation))
        }
        #expect(code == .noCredentials)
        #expect(ContinuousClock.now - started < .seconds(5), "answers at once, without waiting for a person")
    }

    @Test("allowCredentials selects that credential")
    func allowMatch() async throws {
        let authenticator = SoftwareAuthenticator()
        let ann = try await register(authenticator, user: 1)
        _ = try await register(authenticator, user: 2)
        let request = RP.assertionRequest(rp, allow: [ann])
        let response = try await authenticator.getAssertion(request)
        let verified = try rp.verifyAuthentication(
            response, expectedChallenge: request.options.challenge, credential: ann,
            expectedUser: .identified(userHandle: RP.userHandle(1)), allowedCredentialIDs: [ann.id])
        #expect(verified.credentialID == ann.id)
    }

    @Test("discoverable sign-in picks the credential for the RP ID and returns its user handle")
    func discoverable() async throws {
        let authenticator = SoftwareAuthenticator()
        let other = RelyingParty(id: "other.org", origins: ["https://other.org"])
        let otherRecord = try await register(authenticator, user: 9, rp: other)
        let record = try await register(authenticator, user: 3)

        let response = try await authenticator.getAssertion(RP.assertionRequest(rp))
        #expect(response.response.userHandle == Base64URL.encode(RP.userHandle(3)))
        #expect(Base64URL.decode(response.rawId) == record.id)

        let otherRequest = AssertionRequest(options: other.makeAuthenticationOptions())
        let otherResponse = try await authenticator.getAssertion(otherRequest)
        let verified = try other.verifyAuthentication(
            otherResponse, expectedChallenge: otherRequest.options.challenge, credential: otherRecord, expectedUser: .discoverable)
        #expect(verified.userHandle == RP.userHandle(9))
        #expect(verified.rpID == "other.org")
    }

    @Test("among several candidates, the most recently used is picked")
    func mostRecentlyUsed() async throws {
        let clock = TestClock()
        let authenticator = SoftwareAuthenticator(now: clock.now)
        let ann = try await register(authenticator, user: 1)
        clock.advance(60)
        let bob = try await register(authenticator, user: 2)
        #expect(try await authenticator.getAssertion(RP.assertionRequest(rp)).rawId == Base64URL.encode(bob.id))
        clock.advance(60)
        _ = try await authenticator.getAssertion(RP.assertionRequest(rp, allow: [ann]))
        #expect(try await authenticator.getAssertion(RP.assertionRequest(rp)).rawId == Base64URL.encode(ann.id))
    }

    @Test("one credential per (RP ID, user handle): registering again replaces the old one")
    func replacement() async throws {
        let store = InMemoryCredentialStore()
        let authenticator = SoftwareAuthenticator(store: store)
        let old = try await register(authenticator, user: 1)
        let bob = try await register(authenticator, user: 2)
        let new = try await register(authenticator, user: 1)
        #expect(old.id != new.id)
        #expect(Set(await store.credentials(rpID: RP.rpID).map(\.id)) == [new.id, bob.id])

        // The relying party still holds `old` (the orphan Apple users create): it can no longer sign in.
        let code = await passkeyErrorCode { () async throws(PasskeyError) in
            try await authenticator.getAssertion(RP.assertionRequest(rp, allow: [old]))
        }
        #expect(code == .noCredentials)
    }

    @Test("the same user handle at another RP ID is a separate credential")
    func replacementIsPerRP() async throws {
        let store = InMemoryCredentialStore()
        let authenticator = SoftwareAuthenticator(store: store)
        _ = try await register(authenticator, user: 1)
        _ = try await register(authenticator, user: 1, rp: RelyingParty(id: "other.org", origins: ["https://other.org"]))
        #expect(await store.allCredentials().count == 2)
    }

    @Test("cancelling the task running a ceremony → cancelled, promptly, with nothing stored", arguments: CeremonyKind.allCases)
    func cancellation(ceremony: CeremonyKind) async throws {
        let store = InMemoryCredentialStore()
        let setup = SoftwareAuthenticator(store: store)
        let existing = ceremony == .assertion ? try await register(setup, user: 1) : nil
        let authenticator = SoftwareAuthenticator(configuration: .init(userResponseDelay: .seconds(60)), store: store)
        let rp = rp
        let started = ContinuousClock.now
        let task = Task { () async -> PasskeyError.Code? in
            switch ceremony {
            case .registration:
                await passkeyErrorCode { () async throws(PasskeyError) in try await authenticator.makeCredential(RP.registrationRequest(rp, user: 2)) }
            case .assertion:
                await passkeyErrorCode { () async throws(PasskeyError) in try await authenticator.getAssertion(RP.assertionRequest(rp)) }
            }
        }
        #expect(await eventually { await authenticator.ceremonyInProgress == ceremony })
        task.cancel()
        #expect(await task.value == .cancelled)
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(await authenticator.ceremonyInProgress == nil)
        let stored = await store.allCredentials()
        #expect(stored.map(\.id) == (existing.map { [$0.id] } ?? []))
        #expect(stored.allSatisfy { $0.signCount == 0 }, "a cancelled sign-in does not advance the counter")
    }

    @Test("a task cancelled before the ceremony starts → cancelled")
    func cancelledBeforeStart() async throws {
        let authenticator = SoftwareAuthenticator()
        let rp = rp
        let task = Task { () async -> PasskeyError.Code? in
            withUnsafeCurrentTask { $0?.cancel() }
            return await passkeyErrorCode { () async throws(PasskeyError) in try await authenticator.makeCredential(RP.registrationRequest(rp)) }
        }
        #expect(await task.value == .cancelled)
    }

    @Test("one ceremony at a time: a second request is refused with ceremony_in_progress; the first is undisturbed")
    func oneAtATime() async throws {
        // A wide window: the second and third requests must arrive while the first waits, also on a loaded machine.
        let authenticator = SoftwareAuthenticator(configuration: .init(userResponseDelay: .seconds(3)))
        let rp = rp
        let first = Task { try await authenticator.makeCredential(RP.registrationRequest(rp, user: 1)) }
        #expect(await eventually { await authenticator.ceremonyInProgress == .registration })

        let second = await thrownError { () async throws(PasskeyError) in try await authenticator.getAssertion(RP.assertionRequest(rp)) }
        #expect(second?.code == .ceremonyInProgress)
        #expect(second?.recovery == .finishOtherCeremony)
        let third = await passkeyErrorCode { () async throws(PasskeyError) in
            try await authenticator.makeCredential(RP.registrationRequest(rp, user: 2))
        }
        #expect(third == .ceremonyInProgress)

        // The first one completes normally, and the gate is free again afterwards.
        let response = try await first.value
        #expect(response.type == .publicKey)
        #expect(await authenticator.ceremonyInProgress == nil)
        await authenticator.reconfigure(SoftwareAuthenticatorConfiguration())
        _ = try await authenticator.getAssertion(RP.assertionRequest(rp))
    }

    @Test("a person slower than the options' timeout → timeout")
    func timeout() async throws {
        let authenticator = SoftwareAuthenticator(configuration: .init(userResponseDelay: .seconds(60)))
        var request = RP.registrationRequest(rp)
        request.options.timeout = 50
        let error = await thrownError { () async throws(PasskeyError) in try await authenticator.makeCredential(request) }
        #expect(error?.code == .timeout)
        #expect(error?.recovery == .retry)
    }

    @Test("options a browser would reject are refused with a code naming the problem")
    func invalidOptions() async throws {
        let authenticator = SoftwareAuthenticator()
        var badChallenge = RP.registrationRequest(rp)
        badChallenge.options.challenge = "not base64url!"
        var emptyChallenge = RP.assertionRequest(rp)
        emptyChallenge.options.challenge = ""
        var badUser = RP.registrationRequest(rp)
        badUser.options.user.id = ""
        var rsaOnly = RP.registrationRequest(rp)
        rsaOnly.options.pubKeyCredParams = [PublicKeyCredentialParameters(alg: .rs256)]
        var crossPlatform = RP.registrationRequest(rp)
        crossPlatform.attachments = .securityKey

        #expect(await passkeyErrorCode { () async throws(PasskeyError) in try await authenticator.makeCredential(badChallenge) } == .invalidChallenge)
        #expect(await passkeyErrorCode { () async throws(PasskeyError) in try await authenticator.getAssertion(emptyChallenge) } == .invalidChallenge)
        #expect(await passkeyErrorCode { () async throws(PasskeyError) in try await authenticator.makeCredential(badUser) } == .invalidOptions)
        #expect(await passkeyErrorCode { () async throws(PasskeyError) in try await authenticator.makeCredential(rsaOnly) } == .notSupported)
        #expect(await passkeyErrorCode { () async throws(PasskeyError) in try await authenticator.makeCredential(crossPlatform) } == .notSupported)
    }

    @Test("a website whose host is not under the RP ID → domain_not_associated")
    func webOriginOutsideRPID() async throws {
        let authenticator = SoftwareAuthenticator(configuration: .init(origin: .web("https://www.example.net")))
        let error = await thrownError { () async throws(PasskeyError) in try await authenticator.makeCredential(RP.registrationRequest(rp)) }
        #expect(error?.code == .domainNotAssociated)
        #expect(error?.stage == .options)
        // A subdomain origin under the RP ID is fine, and an absent RP ID defaults to the origin's host.
        let web = SoftwareAuthenticator(configuration: .init(origin: .web("https://login.www.example.com:8443")))
        _ = try await web.makeCredential(RP.registrationRequest(rp))
        var noRPID = RP.assertionRequest(rp)
        noRPID.options.rpId = nil
        #expect(await passkeyErrorCode { () async throws(PasskeyError) in try await web.getAssertion(noRPID) } == .noCredentials)
    }

    @Test("time and randomness are injected: the credential ID and creation time are the ones supplied")
    func injectedTimeAndRandomness() async throws {
        let fixed = Date(timeIntervalSince1970: 1_700_000_000)
        let source = CountingRandom()
        let store = InMemoryCredentialStore()
        let authenticator = SoftwareAuthenticator(store: store, now: { fixed }, random: source.bytes)
        let record = try await register(authenticator, user: 1)
        #expect(record.id == Array(1...32))
        let stored = try #require(await store.allCredentials().first)
        #expect(stored.createdAt == fixed)
        #expect(stored.privateKey == Array(33...64))
    }
}

/// A settable clock for `now:`.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_700_000_000)

    var now: @Sendable () -> Date { { self.lock.withLock { self.current } } }

    func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
}

/// Randomness that counts 1, 2, 3, … so tests can predict IDs and keys.
final class CountingRandom: @unchecked Sendable {
    private let lock = NSLock()
    private var next: UInt8 = 1

    var bytes: RandomBytes {
        RandomBytes { count in
            self.lock.withLock {
                (0..<count).map { _ in
                    defer { self.next &+= 1 }
                    return self.next
                }
            }
        }
    }
}
