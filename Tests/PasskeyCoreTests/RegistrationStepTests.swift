import Crypto
import Foundation
import PasskeyCBOR
import PasskeyCore
import PasskeyTestSupport
import PasskeyWire
import Testing

/// WebAuthn L3 §7.1: a valid registration, then one failing test per verification step, each changing exactly one thing.
@Suite("Registration ceremony (§7.1), one step at a time")
struct RegistrationStepTests {
    let rp = RelyingParty.test
    let challenge = TestAuthenticator.challenge

    func verify(_ response: RegistrationResponseJSON, rp: RelyingParty? = nil, requireUserPresence: Bool = true) throws(WebAuthnError)
        -> VerifiedRegistration
    {
        try (rp ?? self.rp).verifyRegistration(response, expectedChallenge: challenge, requireUserPresence: requireUserPresence)
    }

    @Test("a valid none registration yields everything to store")
    func validRegistration() throws {
        let a = try TestAuthenticator()
        let result = try verify(a.registration())
        #expect(result.credentialID == a.credentialID)
        #expect(result.credentialPublicKey == a.key.coseKey.encoded)
        #expect(result.publicKeyAlgorithm == .es256)
        #expect(result.signCount == 0)
        #expect(result.aaguid == .zero)
        #expect(result.userVerified)
        #expect(!result.backupEligible && !result.backupState)
        #expect(result.transports == [.internal, .hybrid])
        #expect(result.attestation.format == .none && result.attestation.type == .none)
        #expect(result.rpID == "example.com")
        let record = result.credentialRecord(userHandle: a.userHandle)
        #expect(record.uvInitialized && record.userHandle == a.userHandle)
    }

    @Test("step 27: the client's transports are stored bounded: well-formed names, each once, at most eight")
    func transportsBounded() throws {
        let a = try TestAuthenticator()
        var response = a.registration()
        let junk = AuthenticatorTransport(rawValue: String(repeating: "x", count: 1_000))
        response.response.transports =
            [.usb, .usb, "<script>", junk, "", "smart-card", "future-transport"] + (0..<20).map { AuthenticatorTransport(rawValue: "t\($0)") }
        let stored = try verify(response).transports
        #expect(stored == [.usb, .smartCard, "future-transport", "t0", "t1", "t2", "t3", "t4"])
    }

    @Test("every supported algorithm registers", arguments: TestKey.algorithms)
    func algorithms(alg: COSEAlgorithmIdentifier) throws {
        let a = try TestAuthenticator(algorithm: alg)
        #expect(try verify(a.registration()).publicKeyAlgorithm == alg)
    }

    @Test("step 3: credential type must be public-key")
    func credentialType() throws {
        var r = try TestAuthenticator().registration()
        r.type = "private-key"
        #expect(errorCode { try verify(r) } == .credentialTypeInvalid)
    }

    @Test("id must name the same credential as rawId")
    func idRawIdMismatch() throws {
        var r = try TestAuthenticator().registration()
        r.id = Base64URL.encode([1, 2, 3])
        #expect(errorCode { try verify(r) } == .credentialIDMismatch)
    }

    @Test("rawId must be the credential ID in authenticator data")
    func rawIdNotAttested() throws {
        let r = try TestAuthenticator().registration(rawId: [9, 9, 9])
        #expect(errorCode { try verify(r) } == .credentialIDMismatch)
    }

    @Test("clientDataJSON must be base64url")
    func clientDataNotBase64URL() throws {
        var r = try TestAuthenticator().registration()
        r.response.clientDataJSON = "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0+/"
        #expect(errorCode { try verify(r) } == .invalidBase64URL)
    }

    @Test("step 5: clientDataJSON must be UTF-8")
    func clientDataInvalidUTF8() throws {
        let a = try TestAuthenticator()
        var bytes = TestAuthenticator.clientData(type: "webauthn.create")
        bytes.insert(0xff, at: bytes.count - 2)
        #expect(errorCode { try verify(a.registration(clientData: bytes)) } == .clientDataMalformed)
    }

    @Test("step 5: a leading byte order mark is removed by UTF-8 decode")
    func clientDataBOM() throws {
        let a = try TestAuthenticator()
        let bytes = [0xef, 0xbb, 0xbf] + TestAuthenticator.clientData(type: "webauthn.create")
        #expect(try verify(a.registration(clientData: bytes)).credentialID == a.credentialID)
    }

    @Test("step 6: unknown client data members are tolerated")
    func clientDataUnknownMembers() throws {
        let a = try TestAuthenticator()
        let bytes = TestAuthenticator.clientData(type: "webauthn.create", extra: [("other_keys_can_be_added_here", "do not compare clientDataJSON against a template")])
        #expect(try verify(a.registration(clientData: bytes)).credentialID == a.credentialID)
    }

    @Test("step 6: client data members must have the right types")
    func clientDataWrongTypes() throws {
        let a = try TestAuthenticator()
        let bytes = JSONValue.object(["type": 1, "challenge": .string(challenge), "origin": "https://example.com"]).serializedBytes
        #expect(errorCode { try verify(a.registration(clientData: bytes)) } == .clientDataMalformed)
    }

    @Test("step 7: type must be webauthn.create")
    func clientDataType() throws {
        let a = try TestAuthenticator()
        #expect(errorCode { try verify(a.registration(clientData: TestAuthenticator.clientData(type: "webauthn.get"))) } == .clientDataTypeMismatch)
    }

    @Test("step 8: the challenge must be the one issued", arguments: [
        Base64URL.encode([UInt8](repeating: 8, count: 32)),
        TestAuthenticator.challenge + "=",
        TestAuthenticator.challenge.replacingOccurrences(of: "_", with: "/").replacingOccurrences(of: "-", with: "+") + "x",
        "",
    ])
    func challengeMismatch(sent: String) throws {
        let a = try TestAuthenticator()
        let r = a.registration(clientData: TestAuthenticator.clientData(type: "webauthn.create", challenge: sent))
        #expect(errorCode { try verify(r) } == .challengeMismatch)
    }

    @Test("step 9: the origin must be accepted exactly", arguments: [
        "https://evil.example", "http://example.com", "https://example.com:8443", "https://sub.example.com",
        "https://example.com/", "null", "",
    ])
    func originMismatch(origin: String) throws {
        let a = try TestAuthenticator()
        let r = a.registration(clientData: TestAuthenticator.clientData(type: "webauthn.create", origin: origin))
        #expect(errorCode { try verify(r) } == .originMismatch)
    }

    @Test("step 9: iOS and Android app origins are accepted when listed")
    func appOrigins() throws {
        var a = try TestAuthenticator()
        let android = "android:apk-key-hash:" + Base64URL.encode([UInt8](repeating: 3, count: 32))
        let rp = RelyingParty(id: "example.com", origins: ["https://www.example.com", "https://example.com", android])
        a.origin = android
        #expect(try verify(a.registration(), rp: rp).origin == android)
    }

    @Test("step 10: crossOrigin true needs a policy that allows iframes")
    func crossOrigin() throws {
        let a = try TestAuthenticator()
        let bytes = TestAuthenticator.clientData(type: "webauthn.create", extra: [("crossOrigin", true)])
        #expect(errorCode { try verify(a.registration(clientData: bytes)) } == .crossOriginNotAllowed)
        var permissive = rp
        permissive.allowCrossOrigin = true
        #expect(try verify(a.registration(clientData: bytes), rp: permissive).credentialID == a.credentialID)
    }

    @Test("step 11: topOrigin must be an accepted top-level origin")
    func topOrigin() throws {
        let a = try TestAuthenticator()
        let bytes = TestAuthenticator.clientData(
            type: "webauthn.create", extra: [("crossOrigin", true), ("topOrigin", "https://attacker.example")])
        var permissive = rp
        permissive.allowCrossOrigin = true
        permissive.topOrigins = ["https://shop.example"]
        #expect(errorCode { try verify(a.registration(clientData: bytes), rp: permissive) } == .topOriginMismatch)
        #expect(errorCode { try verify(a.registration(clientData: bytes)) } == .crossOriginNotAllowed)
        permissive.topOrigins = ["https://attacker.example"]
        #expect(try verify(a.registration(clientData: bytes), rp: permissive).credentialID == a.credentialID)
    }

    @Test("step 11: a topOrigin needs a policy that allows iframes, and crossOrigin true beside it")
    func topOriginAlone() throws {
        let a = try TestAuthenticator()
        // Only the topOrigin differs from a valid ceremony: the default policy refuses it for that alone.
        let alone = TestAuthenticator.clientData(type: "webauthn.create", extra: [("topOrigin", "https://shop.example")])
        #expect(errorCode { try verify(a.registration(clientData: alone)) } == .crossOriginNotAllowed)
        var permissive = rp
        permissive.allowCrossOrigin = true
        permissive.topOrigins = ["https://shop.example"]
        #expect(errorCode { try verify(a.registration(clientData: alone), rp: permissive) } == .crossOriginNotAllowed)
        let sameOrigin = TestAuthenticator.clientData(
            type: "webauthn.create", extra: [("crossOrigin", false), ("topOrigin", "https://shop.example")])
        #expect(errorCode { try verify(a.registration(clientData: sameOrigin), rp: permissive) } == .crossOriginNotAllowed)
    }

    @Test("token binding status must be present or supported")
    func tokenBinding() throws {
        let a = try TestAuthenticator()
        let bad = TestAuthenticator.clientData(type: "webauthn.create", extra: [("tokenBinding", .object(["status": "not-supported"]))])
        #expect(errorCode { try verify(a.registration(clientData: bad)) } == .tokenBindingInvalid)
        let good = TestAuthenticator.clientData(type: "webauthn.create", extra: [("tokenBinding", .object(["status": "supported"]))])
        #expect(try verify(a.registration(clientData: good)).credentialID == a.credentialID)
    }

    @Test("step 13: the attestation object must be CBOR with fmt, attStmt and authData")
    func attestationObjectStructure() throws {
        let a = try TestAuthenticator()
        var r = a.registration()
        r.response.attestationObject = Base64URL.encode([0xa1, 0x63])  // truncated
        #expect(errorCode { try verify(r) } == .cborMalformed)

        let authData = a.authData(for: "create").build()
        for object: CBORValue in [
            .map(["attStmt": .map([:]), "authData": .bytes(authData)]),
            .map(["fmt": .int(1), "attStmt": .map([:]), "authData": .bytes(authData)]),
            .map(["fmt": "none", "authData": .bytes(authData)]),
            .map(["fmt": "none", "attStmt": .array([]), "authData": .bytes(authData)]),
            .map(["fmt": "none", "attStmt": .map([:]), "authData": .text("x")]),
            .array([]),
        ] {
            r.response.attestationObject = Base64URL.encode(CBOREncoder().encode(object))
            #expect(errorCode { try verify(r) } == .attestationObjectMalformed)
        }
        var bytes = CBOREncoder().encode(.map(["fmt": "none", "attStmt": .map([:]), "authData": .bytes(authData)]))
        bytes.append(0x00)
        r.response.attestationObject = Base64URL.encode(bytes)
        #expect(errorCode { try verify(r) } == .cborMalformed)
    }

    @Test("step 14: rpIdHash must be SHA-256 of an accepted RP ID")
    func rpIDHash() throws {
        let a = try TestAuthenticator()
        let other = a.authData(for: "create") { $0.rpID = "evil.example" }.build()
        #expect(errorCode { try verify(a.registration(authData: other)) } == .rpIDHashMismatch)
        let parent = a.authData(for: "create") { $0.rpID = "sub.example.com" }.build()
        #expect(errorCode { try verify(a.registration(authData: parent)) } == .rpIDHashMismatch)
        var multi = rp
        multi.additionalIDs = ["evil.example"]
        #expect(try verify(a.registration(authData: other), rp: multi).rpID == "evil.example")
    }

    @Test("step 15: UP must be set, unless the options asked for conditional create")
    func userPresence() throws {
        let a = try TestAuthenticator()
        let noUP = a.authData(for: "create") { $0.flags.remove(.userPresent) }.build()
        #expect(errorCode { try verify(a.registration(authData: noUP)) } == .userPresenceRequired)
        #expect(try verify(a.registration(authData: noUP), requireUserPresence: false).credentialID == a.credentialID)
    }

    @Test("step 16: UV must be set when the policy requires it")
    func userVerification() throws {
        let a = try TestAuthenticator()
        let noUV = a.authData(for: "create") { $0.flags.remove(.userVerified) }.build()
        #expect(errorCode { try verify(a.registration(authData: noUV)) } == .userVerificationRequired)
        var lenient = rp
        lenient.policy.userVerification = .preferred
        #expect(try verify(a.registration(authData: noUV), rp: lenient).userVerified == false)
    }

    @Test("step 17: BS may not be set without BE")
    func backupStateWithoutEligibility() throws {
        let a = try TestAuthenticator()
        let bad = a.authData(for: "create") { $0.flags.insert(.backupState) }.build()
        #expect(errorCode { try verify(a.registration(authData: bad)) } == .backupStateInvalid)
        let synced = a.authData(for: "create") { $0.flags.formUnion([.backupState, .backupEligible]) }.build()
        let result = try verify(a.registration(authData: synced))
        #expect(result.backupEligible && result.backupState && result.isMultiDevice)
    }

    @Test("step 18: a device-bound-only policy refuses backup-eligible credentials")
    func backupEligibilityPolicy() throws {
        let a = try TestAuthenticator()
        var strict = rp
        strict.policy.backup.allowBackupEligible = false
        let synced = a.authData(for: "create") { $0.flags.insert(.backupEligible) }.build()
        #expect(errorCode { try verify(a.registration(authData: synced), rp: strict) } == .backupPolicyViolation)
    }

    @Test("registration needs attested credential data (AT)")
    func attestedCredentialDataRequired() throws {
        let a = try TestAuthenticator()
        let noAT = a.authData(for: "get").build()
        #expect(errorCode { try verify(a.registration(authData: noAT)) } == .authenticatorDataMalformed)
    }

    @Test("step 20: the key's algorithm must have been offered")
    func algorithmNotOffered() throws {
        let a = try TestAuthenticator(algorithm: .rs256)
        #expect(errorCode { try rp.verifyRegistration(a.registration(), expectedChallenge: challenge, allowedAlgorithms: [.es256]) } == .algorithmNotAllowed)
    }

    @Test("unsupported algorithms decode, then fail with unsupported_algorithm (ML-DSA-44)")
    func unsupportedAlgorithm() throws {
        let a = try TestAuthenticator()
        let key = COSEKey(keyType: .akp, algorithm: .mlDSA44, parameters: .akp(publicKey: [UInt8](repeating: 1, count: 1312))).encoded
        let authData = a.authData(for: "create") { $0.credentialPublicKey = key }.build()
        #expect(errorCode { try verify(a.registration(authData: authData)) } == .unsupportedAlgorithm)
    }

    @Test("RS1 credentials need the legacy switch")
    func legacyAlgorithm() throws {
        let a = try TestAuthenticator(algorithm: .rs256)
        guard case .rsa(let n, let e) = a.key.coseKey.parameters else { Issue.record("not RSA"); return }
        let key = COSEKey(keyType: .rsa, algorithm: .rs1, parameters: .rsa(n: n, e: e)).encoded
        let authData = a.authData(for: "create") { $0.credentialPublicKey = key }.build()
        #expect(errorCode { try verify(a.registration(authData: authData)) } == .algorithmNotAllowed)
        var legacy = rp
        legacy.policy.allowLegacyAlgorithms = true
        #expect(try verify(a.registration(authData: authData), rp: legacy).publicKeyAlgorithm == .rs1)
        // The switch accepts RS1 by offering it (last), as step 20 wants; options that did not offer it refuse it.
        #expect(legacy.policy.offeredAlgorithms == CeremonyPolicy.defaultAlgorithms + [.rs1])
        #expect(rp.policy.offeredAlgorithms == CeremonyPolicy.defaultAlgorithms)
        let offered = legacy.makeRegistrationOptions(
            userHandle: [1], userName: "ann", displayName: "Ann").pubKeyCredParams.map(\.alg)
        #expect(offered.last == .rs1)
        #expect(errorCode { try legacy.verifyRegistration(a.registration(authData: authData), expectedChallenge: challenge, allowedAlgorithms: [.rs256]) }
            == .algorithmNotAllowed)
    }

    @Test("RSA keys under 2048 bits are refused explicitly")
    func weakRSA() throws {
        let a = try TestAuthenticator()
        let key = COSEKey(keyType: .rsa, algorithm: .rs256, parameters: .rsa(n: [0x80] + [UInt8](repeating: 1, count: 127), e: [1, 0, 1])).encoded
        let authData = a.authData(for: "create") { $0.credentialPublicKey = key }.build()
        #expect(errorCode { try verify(a.registration(authData: authData)) } == .publicKeyWeak)
    }

    @Test("a key whose curve does not fit its algorithm is malformed")
    func curveAlgorithmMismatch() throws {
        let a = try TestAuthenticator()
        guard case .ec2(_, let x, let y) = a.key.coseKey.parameters else { return }
        let wrongAlg = COSEKey(keyType: .ec2, algorithm: .es384, parameters: .ec2(curve: .p256, x: x, y: y)).encoded
        let authData = a.authData(for: "create") { $0.credentialPublicKey = wrongAlg }.build()
        var rp = self.rp
        rp.policy.algorithms.append(.es384)
        #expect(errorCode { try verify(a.registration(authData: authData), rp: rp) } == .publicKeyMalformed)
        let offCurve = COSEKey(keyType: .ec2, algorithm: .es256, parameters: .ec2(curve: .p256, x: x, y: x)).encoded
        let authData2 = a.authData(for: "create") { $0.credentialPublicKey = offCurve }.build()
        #expect(errorCode { try verify(a.registration(authData: authData2)) } == .publicKeyMalformed)
    }

    @Test("step 21: formats are matched case-sensitively")
    func formatCaseSensitive() throws {
        let a = try TestAuthenticator()
        #expect(errorCode { try verify(a.registration(fmt: "None")) } == .unsupportedAttestationFormat)
        #expect(errorCode { try verify(a.registration(fmt: "unknown")) } == .unsupportedAttestationFormat)
    }

    @Test("step 22: none attestation must have an empty statement")
    func noneWithStatement() throws {
        let a = try TestAuthenticator()
        let r = a.registration(attStmt: .map(["alg": .int(-7), "sig": .bytes([1, 2, 3])]))
        #expect(errorCode { try verify(r) } == .attestationInvalid)
    }

    @Test("step 24: a policy requiring trusted attestation refuses none")
    func requireTrustedAttestation() throws {
        let a = try TestAuthenticator()
        var strict = rp
        strict.policy.attestation = .requireTrusted
        #expect(errorCode { try verify(a.registration(), rp: strict) } == .attestationNotAllowed)
    }

    @Test("step 25: credential IDs up to 1023 bytes are accepted, longer ones refused")
    func credentialIDLength() throws {
        var a = try TestAuthenticator()
        a.credentialID = [UInt8](repeating: 0x42, count: 1023)
        #expect(try verify(a.registration()).credentialID.count == 1023)
        a.credentialID = [UInt8](repeating: 0x42, count: 1024)
        #expect(errorCode { try verify(a.registration()) } == .credentialIDTooLong)
    }

    @Test("ED must match the presence of extensions, and nothing may follow")
    func extensionsAndLeftovers() throws {
        let a = try TestAuthenticator()
        let edWithout = a.authData(for: "create") { $0.flags.insert(.extensionData) }.build()
        #expect(errorCode { try verify(a.registration(authData: edWithout)) } == .authenticatorDataMalformed)
        let extensions = CBOREncoder().encode(.map(["credProtect": .int(2)]))
        let withoutED = a.authData(for: "create") { $0.extensions = extensions }.build()
        #expect(errorCode { try verify(a.registration(authData: withoutED)) } == .authenticatorDataMalformed)
        let valid = a.authData(for: "create") {
            $0.extensions = extensions
            $0.flags.insert(.extensionData)
        }.build()
        #expect(try verify(a.registration(authData: valid)).authenticatorExtensions?[text: "credProtect"] == .int(2))
        let leftover = a.authData(for: "create") { $0.trailing = [0] }.build()
        #expect(errorCode { try verify(a.registration(authData: leftover)) } == .authenticatorDataMalformed)
    }

    @Test("policy: a model the FIDO Metadata Service reports compromised is refused, whatever its attestation")
    func compromisedModel() throws {
        let a = try TestAuthenticator()
        let model = try #require(AAGUID("fa2b99dc-9e39-4257-8f92-4a30d23c4118"))
        let authData = a.authData(for: "create") { $0.aaguid = model.bytes }.build()
        var strict = rp
        strict.policy.attestation.compromisedAAGUIDs = [model]
        #expect(errorCode { try verify(a.registration(authData: authData), rp: strict) } == .authenticatorCompromised)
        // The same response from another model, and the same model without the report, register.
        #expect(try verify(a.registration(authData: authData)).aaguid == model)
        let another = a.authData(for: "create") { $0.aaguid = [UInt8](repeating: 7, count: 16) }.build()
        #expect(try verify(a.registration(authData: another), rp: strict).aaguid == AAGUID(bytes: [UInt8](repeating: 7, count: 16)))
    }
}
