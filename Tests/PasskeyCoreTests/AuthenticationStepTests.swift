import Crypto
import Foundation
import PasskeyCBOR
import PasskeyCore
import PasskeyTestSupport
import PasskeyWire
import Testing

/// WebAuthn L3 §7.2: a valid sign-in, then one failing test per verification step, each changing exactly one thing.
@Suite("Authentication ceremony (§7.2), one step at a time")
struct AuthenticationStepTests {
    let rp = RelyingParty.test
    let challenge = TestAuthenticator.challenge

    func verify(
        _ response: AuthenticationResponseJSON, record: CredentialRecord, rp: RelyingParty? = nil,
        expectedUser: ExpectedUser = .discoverable, allowed: [[UInt8]]? = nil
    ) throws(WebAuthnError) -> VerifiedAuthentication {
        try (rp ?? self.rp).verifyAuthentication(
            response, expectedChallenge: challenge, credential: record, expectedUser: expectedUser, allowedCredentialIDs: allowed)
    }

    @Test("a valid discoverable sign-in returns what to update", arguments: TestKey.algorithms)
    func validSignIn(alg: COSEAlgorithmIdentifier) throws {
        let a = try TestAuthenticator(algorithm: alg)
        let authData = a.authData(for: "get") { $0.signCount = 8 }.build()
        let result = try verify(a.assertion(authData: authData), record: a.record(signCount: 7))
        #expect(result.newSignCount == 8)
        #expect(result.userVerified)
        #expect(result.userHandle == a.userHandle)
        #expect(!result.counterRegressed)
        let updated = result.updating(a.record(signCount: 7))
        #expect(updated.signCount == 8)
    }

    @Test("a sign-in by username (user identified first) works without a user handle in the response")
    func identifiedUser() throws {
        let a = try TestAuthenticator()
        let response = try a.assertion(userHandle: .some(nil))
        let result = try verify(response, record: a.record(), expectedUser: .identified(userHandle: a.userHandle), allowed: [a.credentialID])
        #expect(result.userHandle == nil)
    }

    @Test("step 3: credential type must be public-key")
    func credentialType() throws {
        let a = try TestAuthenticator()
        var r = try a.assertion()
        r.type = "password"
        #expect(errorCode { try verify(r, record: a.record()) } == .credentialTypeInvalid)
    }

    @Test("the response must be for the record given")
    func otherCredential() throws {
        let a = try TestAuthenticator()
        var record = a.record()
        record.id = [1, 2, 3]
        #expect(errorCode { try verify(try a.assertion(), record: record) } == .credentialIDMismatch)
    }

    @Test("step 5: the credential must be among allowCredentials")
    func allowCredentials() throws {
        let a = try TestAuthenticator()
        #expect(errorCode { try verify(try a.assertion(), record: a.record(), allowed: [[9, 9]]) } == .credentialNotAllowed)
    }

    @Test("step 6: an identified user's handle must match the response's")
    func identifiedUserHandleMismatch() throws {
        let a = try TestAuthenticator()
        let r = try a.assertion(userHandle: .some([1, 2, 3]))
        #expect(errorCode { try verify(r, record: a.record(), expectedUser: .identified(userHandle: a.userHandle)) } == .userHandleMismatch)
        var foreign = a.record()
        foreign.userHandle = [4, 4, 4]
        #expect(errorCode { try verify(try a.assertion(userHandle: .some(nil)), record: foreign, expectedUser: .identified(userHandle: a.userHandle)) } == .userHandleMismatch)
    }

    @Test("step 6: a discoverable sign-in needs a user handle, and it must own the credential")
    func discoverableUserHandle() throws {
        let a = try TestAuthenticator()
        #expect(errorCode { try verify(try a.assertion(userHandle: .some(nil)), record: a.record()) } == .userHandleMissing)
        #expect(errorCode { try verify(try a.assertion(userHandle: .some([0x75])), record: a.record()) } == .userHandleMismatch)
    }

    @Test("step 7: members must be base64url")
    func memberEncoding() throws {
        let a = try TestAuthenticator()
        var r = try a.assertion()
        r.response.signature = "not base64url!"
        #expect(errorCode { try verify(r, record: a.record()) } == .invalidBase64URL)
    }

    @Test("step 10: type must be webauthn.get (a registration's client data is refused)")
    func clientDataType() throws {
        let a = try TestAuthenticator()
        let r = try a.assertion(clientData: TestAuthenticator.clientData(type: "webauthn.create"))
        #expect(errorCode { try verify(r, record: a.record()) } == .clientDataTypeMismatch)
    }

    @Test("step 11: the challenge must be the one issued")
    func challengeMismatch() throws {
        let a = try TestAuthenticator()
        let r = try a.assertion(clientData: TestAuthenticator.clientData(type: "webauthn.get", challenge: "AAAA"))
        #expect(errorCode { try verify(r, record: a.record()) } == .challengeMismatch)
    }

    @Test("step 12: the origin must be accepted")
    func originMismatch() throws {
        let a = try TestAuthenticator()
        let r = try a.assertion(clientData: TestAuthenticator.clientData(type: "webauthn.get", origin: "https://examp1e.com"))
        #expect(errorCode { try verify(r, record: a.record()) } == .originMismatch)
    }

    @Test("step 13: crossOrigin needs a policy allowing it")
    func crossOrigin() throws {
        let a = try TestAuthenticator()
        let r = try a.assertion(clientData: TestAuthenticator.clientData(type: "webauthn.get", extra: [("crossOrigin", true)]))
        #expect(errorCode { try verify(r, record: a.record()) } == .crossOriginNotAllowed)
    }

    @Test("step 14: topOrigin must be accepted")
    func topOrigin() throws {
        let a = try TestAuthenticator()
        var rp = self.rp
        rp.allowCrossOrigin = true
        let r = try a.assertion(clientData: TestAuthenticator.clientData(type: "webauthn.get", extra: [("crossOrigin", true), ("topOrigin", "https://evil.example")]))
        #expect(errorCode { try verify(r, record: a.record(), rp: rp) } == .topOriginMismatch)
    }

    @Test("step 14: a topOrigin without crossOrigin true is refused, even where iframes are allowed")
    func topOriginWithoutCrossOrigin() throws {
        let a = try TestAuthenticator()
        var rp = self.rp
        rp.allowCrossOrigin = true
        rp.topOrigins = ["https://shop.example"]
        let alone = try a.assertion(clientData: TestAuthenticator.clientData(type: "webauthn.get", extra: [("topOrigin", "https://shop.example")]))
        #expect(errorCode { try verify(alone, record: a.record(), rp: rp) } == .crossOriginNotAllowed)
        #expect(errorCode { try verify(alone, record: a.record()) } == .crossOriginNotAllowed)
        let framed = try a.assertion(
            clientData: TestAuthenticator.clientData(type: "webauthn.get", extra: [("crossOrigin", true), ("topOrigin", "https://shop.example")]))
        #expect(try verify(framed, record: a.record(), rp: rp).credentialID == a.credentialID)
    }

    @Test("step 15: rpIdHash must match")
    func rpIDHash() throws {
        let a = try TestAuthenticator()
        let r = try a.assertion(authData: a.authData(for: "get") { $0.rpID = "example.org" }.build())
        #expect(errorCode { try verify(r, record: a.record()) } == .rpIDHashMismatch)
    }

    @Test("step 16: UP must be set")
    func userPresence() throws {
        let a = try TestAuthenticator()
        let r = try a.assertion(authData: a.authData(for: "get") { $0.flags.remove(.userPresent) }.build())
        #expect(errorCode { try verify(r, record: a.record()) } == .userPresenceRequired)
    }

    @Test("step 17: UV must be set when required, and is reported otherwise")
    func userVerification() throws {
        let a = try TestAuthenticator()
        let r = try a.assertion(authData: a.authData(for: "get") { $0.flags.remove(.userVerified) }.build())
        #expect(errorCode { try verify(r, record: a.record()) } == .userVerificationRequired)
        var lenient = rp
        lenient.policy.userVerification = .discouraged
        #expect(try verify(r, record: a.record(), rp: lenient).userVerified == false)
    }

    @Test("step 18: BS may not be set without BE")
    func backupState() throws {
        let a = try TestAuthenticator()
        let r = try a.assertion(authData: a.authData(for: "get") { $0.flags.insert(.backupState) }.build())
        #expect(errorCode { try verify(r, record: a.record()) } == .backupStateInvalid)
    }

    @Test("step 19: BE must not change; BS may")
    func backupEligibility() throws {
        let a = try TestAuthenticator()
        let r = try a.assertion(authData: a.authData(for: "get") { $0.flags.insert(.backupEligible) }.build())
        #expect(errorCode { try verify(r, record: a.record(backupEligible: false)) } == .backupEligibilityChanged)
        // The other way: a passkey stored as backup eligible now says it is not.
        let deviceBound = try a.assertion(authData: a.authData(for: "get").build())
        #expect(errorCode { try verify(deviceBound, record: a.record(backupEligible: true)) } == .backupEligibilityChanged)
        let synced = try a.assertion(authData: a.authData(for: "get") { $0.flags.formUnion([.backupEligible, .backupState]) }.build())
        let result = try verify(synced, record: a.record(backupEligible: true))
        #expect(result.backupState && result.updating(a.record(backupEligible: true)).backupState)
    }

    @Test("steps 6, 19 and 22 are checked after the signature: signed with another key, a response learns nothing stored")
    func storedStateAfterSignature() throws {
        let holder = try TestAuthenticator()
        var attacker = try TestAuthenticator()
        attacker.credentialID = holder.credentialID
        attacker.userHandle = [UInt8](repeating: 0x42, count: 64)  // not the owner's: step 6 would fail
        // BE set where the record has it clear (step 19), counter 0 under a stored 9 (step 22).
        let forged = try attacker.assertion(authData: attacker.authData(for: "get") { $0.flags.insert(.backupEligible) }.build())
        var record = holder.record(backupEligible: false)
        record.signCount = 9
        #expect(errorCode { try verify(forged, record: record) } == .signatureInvalid)
        // Signed by the holder, the same differences get their own codes, in the spec's order.
        var mismatched = holder
        mismatched.userHandle = [UInt8](repeating: 0x42, count: 64)
        #expect(errorCode { try verify(try mismatched.assertion(), record: holder.record()) } == .userHandleMismatch)
        let changed = try holder.assertion(authData: holder.authData(for: "get") { $0.flags.insert(.backupEligible) }.build())
        #expect(errorCode { try verify(changed, record: record) } == .backupEligibilityChanged)
    }

    @Test("step 21: the signature must verify over authData ‖ SHA-256(clientDataJSON)")
    func signature() throws {
        let a = try TestAuthenticator()
        let good = try a.assertion()
        var sig = Base64URL.decode(good.response.signature) ?? []
        sig[sig.count - 1] ^= 1
        #expect(errorCode { try verify(try a.assertion(signature: sig), record: a.record()) } == .signatureInvalid)

        // Signed authData, then one flag byte changed after signing.
        let authData = a.authData(for: "get").build()
        let clientData = TestAuthenticator.clientData(type: "webauthn.get")
        let signature = try a.key.sign(authData + Array(SHA256.hash(data: clientData)))
        var altered = authData
        altered[33] ^= 0xff  // sign count byte
        #expect(errorCode { try verify(try a.assertion(authData: altered, clientData: clientData, signature: signature), record: a.record()) } == .signatureInvalid)

        // Raw r‖s instead of DER, and the all-zero "psychic signature" (CVE-2022-21449).
        let raw = Array(try P256.Signing.ECDSASignature(derRepresentation: Base64URL.decode(good.response.signature) ?? []).rawRepresentation)
        #expect(errorCode { try verify(try a.assertion(signature: raw), record: a.record()) } == .signatureInvalid)
        let psychic: [UInt8] = [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00]
        #expect(errorCode { try verify(try a.assertion(signature: psychic), record: a.record()) } == .signatureInvalid)

        // Signed by another key.
        let b = try TestAuthenticator()
        #expect(errorCode { try verify(try b.assertion(), record: a.record()) } == .signatureInvalid)
    }

    @Test("step 22: counters", arguments: [
        (stored: UInt32(5), returned: UInt32(5), ok: false),
        (stored: 5, returned: 3, ok: false),
        (stored: 7, returned: 0, ok: false),
        (stored: 0, returned: 0, ok: true),
        (stored: 0, returned: 7, ok: true),
        (stored: 1_625_263_263, returned: 1_625_263_266, ok: true),
    ])
    func counters(stored: UInt32, returned: UInt32, ok: Bool) throws {
        let a = try TestAuthenticator()
        let r = try a.assertion(authData: a.authData(for: "get") { $0.signCount = returned }.build())
        if ok {
            #expect(try verify(r, record: a.record(signCount: stored)).newSignCount == returned)
        } else {
            #expect(errorCode { try verify(r, record: a.record(signCount: stored)) } == .counterRegressed)
        }
    }

    @Test("step 22: under reportRegression a regression is reported and the stored counter kept")
    func counterReport() throws {
        let a = try TestAuthenticator()
        var rp = self.rp
        rp.policy.counter = .reportRegression
        let r = try a.assertion(authData: a.authData(for: "get") { $0.signCount = 3 }.build())
        let result = try verify(r, record: a.record(signCount: 5), rp: rp)
        #expect(result.counterRegressed && result.newSignCount == 5)
    }

    @Test("the signed challenge can be read to find the ceremony")
    func signedChallenge() throws {
        let a = try TestAuthenticator()
        #expect(try a.assertion().signedChallenge() == challenge)
    }
}
