import Crypto
import Foundation
import PasskeyClient
import PasskeyCore
import PasskeyTestSupport
import PasskeySoftwareAuthenticator
import PasskeyWire
import Testing

/// The software authenticator's responses, checked by the relying party's own verifier (PasskeyCore), for every
/// combination of the behaviours a real authenticator can have.
@Suite("Software authenticator, verified by PasskeyCore")
struct SoftwareAuthenticatorVerifierTests {
    typealias RP = TestRelyingParty

    /// Registers, verifies, and returns the stored record with what the verifier reported.
    func register(
        _ authenticator: SoftwareAuthenticator, rp: RelyingParty = RP.relyingParty(), user: UInt8 = 1,
        requireUserPresence: Bool = true, style: RegistrationStyle = .modal
    ) async throws -> (VerifiedRegistration, CredentialRecord, RegistrationResponseJSON) {
        let request = RP.registrationRequest(rp, user: user, style: style)
        let response = try await authenticator.makeCredential(request)
        let verified = try rp.verifyRegistration(
            response, expectedChallenge: request.options.challenge, requireUserPresence: requireUserPresence)
        return (verified, verified.credentialRecord(userHandle: RP.userHandle(user)), response)
    }

    /// Signs in without a username (discoverable) and verifies.
    func signIn(
        _ authenticator: SoftwareAuthenticator, record: CredentialRecord, rp: RelyingParty = RP.relyingParty()
    ) async throws -> VerifiedAuthentication {
        let request = RP.assertionRequest(rp)
        let response = try await authenticator.getAssertion(request)
        return try rp.verifyAuthentication(
            response, expectedChallenge: request.options.challenge, credential: record, expectedUser: .discoverable)
    }

    @Test(
        "registration and two sign-ins verify, for each algorithm and attestation",
        arguments: [SigningAlgorithm.es256, .ed25519], AttestationMode.allCases)
    func roundTrip(algorithm: SigningAlgorithm, attestation: AttestationMode) async throws {
        let authenticator = SoftwareAuthenticator(
            configuration: SoftwareAuthenticatorConfiguration(algorithms: [algorithm], attestation: attestation))
        let (registered, record, response) = try await register(authenticator)

        #expect(registered.publicKeyAlgorithm == algorithm.coseAlgorithm)
        #expect(response.response.publicKeyAlgorithm == algorithm.coseAlgorithm)
        #expect(registered.attestation.format == (attestation == .none ? .none : .packed))
        #expect(registered.attestation.type == (attestation == .none ? .none : .self))
        #expect(registered.signCount == 0)
        #expect(registered.userVerified)
        #expect(!registered.backupEligible && !registered.backupState)
        #expect(registered.aaguid == .zero)
        #expect(registered.rpID == RP.rpID)
        #expect(registered.origin == RP.appleAppOrigin)
        #expect(registered.transports == [.internal, .hybrid])
        #expect(registered.authenticatorAttachment == .platform)
        #expect(registered.credentialID.count == 32)
        #expect(Base64URL.decode(response.rawId) == registered.credentialID)
        #expect(response.clientExtensionResults["credProps"] == .object(["rk": true]))

        // The JSON `publicKey` convenience member is the same key as SubjectPublicKeyInfo.
        let spki = try #require(response.response.publicKey.flatMap(Base64URL.decode))
        switch algorithm {
        case .es256: #expect(try P256.Signing.PublicKey(derRepresentation: spki).rawRepresentation.count == 64)
        case .ed25519: #expect(spki.count == 44 && spki.prefix(12) == [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00])
        }

        let first = try await signIn(authenticator, record: record)
        let second = try await signIn(authenticator, record: first.updating(record))
        #expect(first.credentialID == registered.credentialID)
        #expect(first.userHandle == RP.userHandle(1))
        #expect(first.userVerified)
        #expect(first.newSignCount == 1)
        #expect(second.newSignCount == 2)
        #expect(second.newSignCount > first.newSignCount)
        #expect(!first.counterRegressed && !second.counterRegressed)
    }

    @Test("synced passkey mode: BE and BS set, counter always 0, accepted as not regressed")
    func syncedPasskey() async throws {
        let authenticator = SoftwareAuthenticator(configuration: .syncedPasskey())
        let (registered, record, _) = try await register(authenticator)
        #expect(registered.backupEligible && registered.backupState && registered.isMultiDevice)
        #expect(registered.signCount == 0)

        let first = try await signIn(authenticator, record: record)
        let second = try await signIn(authenticator, record: first.updating(record))
        #expect(first.newSignCount == 0 && second.newSignCount == 0)
        #expect(first.backupEligible && first.backupState && second.backupState)
        #expect(!first.counterRegressed && !second.counterRegressed)
    }

    @Test("backup eligible but not backed up: BE set, BS clear")
    func backupEligibleOnly() async throws {
        let authenticator = SoftwareAuthenticator(configuration: SoftwareAuthenticatorConfiguration(backup: .eligible))
        let (registered, record, _) = try await register(authenticator)
        #expect(registered.backupEligible && !registered.backupState)
        let signedIn = try await signIn(authenticator, record: record)
        #expect(signedIn.backupEligible && !signedIn.backupState)
    }

    @Test("presence only: UV clear and accepted when the RP prefers UV, refused by our verifier when it requires UV")
    func presenceOnly() async throws {
        let preferring = RP.relyingParty(userVerification: .preferred)
        let authenticator = SoftwareAuthenticator(configuration: SoftwareAuthenticatorConfiguration(userVerification: .presenceOnly))
        let request = RP.registrationRequest(preferring)
        let response = try await authenticator.makeCredential(request)
        let registered = try preferring.verifyRegistration(response, expectedChallenge: request.options.challenge)
        #expect(!registered.userVerified)
        #expect(
            errorCode {
                try preferring.verifyRegistration(response, expectedChallenge: request.options.challenge, requireUserVerification: true)
            } == .userVerificationRequired)

        let record = registered.credentialRecord(userHandle: RP.userHandle(1))
        let signedIn = try await signIn(authenticator, record: record, rp: preferring)
        #expect(!signedIn.userVerified)
    }

    @Test("presence only: options requiring UV are refused by the authenticator, before any key is made")
    func presenceOnlyRefusesRequiredUV() async throws {
        let store = InMemoryCredentialStore()
        let authenticator = SoftwareAuthenticator(
            configuration: SoftwareAuthenticatorConfiguration(userVerification: .presenceOnly), store: store)
        let error = await thrownError { () async throws(PasskeyError) in
            try await authenticator.makeCredential(RP.registrationRequest())
        }
        #expect(error?.code == .notSupported)
        #expect(error?.stage == .authenticator)
        #expect(await store.allCredentials().isEmpty)
    }

    @Test("conditional create: UP and UV clear; accepted only when the RP does not require presence")
    func conditionalCreate() async throws {
        let preferring = RP.relyingParty(userVerification: .preferred)
        let authenticator = SoftwareAuthenticator()
        let request = RP.registrationRequest(preferring, style: .conditional)
        let response = try await authenticator.makeCredential(request)
        #expect(
            errorCode { try preferring.verifyRegistration(response, expectedChallenge: request.options.challenge) }
                == .userPresenceRequired)
        let registered = try preferring.verifyRegistration(
            response, expectedChallenge: request.options.challenge, requireUserPresence: false)
        #expect(!registered.userVerified)
    }

    static let origins: [(OriginPolicy, String)] = [
        (.web(TestRelyingParty.webOrigin), TestRelyingParty.webOrigin),
        (.appleApp, TestRelyingParty.appleAppOrigin),
        (.android(apkKeyHash: TestRelyingParty.apkKeyHash, packageName: TestRelyingParty.androidPackage), TestRelyingParty.androidOrigin),
    ]

    @Test("each origin mode is what the verifier sees, for both ceremonies", arguments: origins)
    func originModes(policy: OriginPolicy, expected: String) async throws {
        let authenticator = SoftwareAuthenticator(configuration: SoftwareAuthenticatorConfiguration(origin: policy))
        let (registered, record, response) = try await register(authenticator)
        #expect(registered.origin == expected)
        #expect(try await signIn(authenticator, record: record).origin == expected)

        let clientData = try JSONValue.parse(try #require(Base64URL.decode(response.response.clientDataJSON)))
        #expect(clientData.objectValue?["type"] == "webauthn.create")
        #expect(clientData.objectValue?["origin"]?.stringValue == expected)
        if case .android = policy {
            #expect(clientData.objectValue?["androidPackageName"] == "com.example.app")
        } else {
            #expect(clientData.objectValue?["crossOrigin"] == false)
        }
    }

    @Test("a relying party that does not list the origin refuses it")
    func unlistedOrigin() async throws {
        let webOnly = RP.relyingParty(origins: [RP.webOrigin])
        let request = RP.registrationRequest(webOnly)
        let response = try await SoftwareAuthenticator(configuration: .init(origin: .appleApp)).makeCredential(request)
        #expect(errorCode { try webOnly.verifyRegistration(response, expectedChallenge: request.options.challenge) } == .originMismatch)
    }

    @Test("the signed challenge is the options' challenge")
    func challengeBinding() async throws {
        let rp = RP.relyingParty()
        let request = RP.registrationRequest(rp)
        let response = try await SoftwareAuthenticator().makeCredential(request)
        #expect(try response.signedChallenge() == request.options.challenge)
        let other = RP.registrationRequest(rp).options.challenge
        #expect(errorCode { try rp.verifyRegistration(response, expectedChallenge: other) } == .challengeMismatch)
    }
}
