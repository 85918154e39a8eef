import Foundation
import PasskeyCBOR
import PasskeyCore
import PasskeyTestSupport
import PasskeyWire
import Testing

@Suite("Creation and request options")
struct OptionsTests {
    let rp = RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"])

    @Test("creation options carry the policy, a fresh 32-byte challenge and the user's credentials to exclude")
    func creation() throws {
        let handle = RelyingParty.makeUserHandle()
        #expect(handle.count == 64)
        let existing = CredentialRecord(id: [1, 2, 3], publicKey: [], signCount: 0, transports: [.usb, .nfc])
        let options = rp.makeRegistrationOptions(userHandle: handle, userName: "ann@example.com", excludeCredentials: [existing])
        #expect(options.rp == PublicKeyCredentialRpEntity(id: "example.com", name: "Example"))
        #expect(options.user.id == Base64URL.encode(handle))
        #expect(options.user.name == "ann@example.com" && options.user.displayName == "ann@example.com")
        #expect(Base64URL.decode(options.challenge)?.count == 32)
        #expect(options.pubKeyCredParams.map(\.alg) == CeremonyPolicy.defaultAlgorithms)
        #expect(options.pubKeyCredParams.allSatisfy { $0.type == .publicKey })
        #expect(options.excludeCredentials == [PublicKeyCredentialDescriptorJSON(id: "AQID", transports: [.usb, .nfc])])
        #expect(options.authenticatorSelection?.residentKey == .required)
        #expect(options.authenticatorSelection?.requireResidentKey == true)
        #expect(options.authenticatorSelection?.userVerification == .required)
        #expect(options.attestation == AttestationConveyancePreference.none)
        #expect(options.timeout == 60_000)
        #expect(options.extensions?["credProps"] == true)
        // Two calls never share a challenge.
        #expect(rp.makeRegistrationOptions(userHandle: handle, userName: "a").challenge != options.challenge)
    }

    @Test("a policy requiring trusted attestation asks for direct attestation")
    func directAttestation() {
        var strict = rp
        strict.policy.attestation = .requireTrusted
        #expect(strict.makeRegistrationOptions(userHandle: [1], userName: "a").attestation == .direct)
    }

    @Test("request options: allowCredentials for a named user, empty for discoverable sign-in")
    func request() {
        let record = CredentialRecord(id: [9], publicKey: [], signCount: 0)
        let named = rp.makeAuthenticationOptions(allowCredentials: [record], random: .constant(1))
        #expect(named.allowCredentials == [PublicKeyCredentialDescriptorJSON(id: "CQ")])
        #expect(named.rpId == "example.com")
        #expect(named.userVerification == .required)
        #expect(named.challenge == Base64URL.encode([UInt8](repeating: 1, count: 32)))
        #expect(rp.makeAuthenticationOptions().allowCredentials == [])
    }

    @Test("options round-trip through the L3 JSON the browser parses")
    func json() throws {
        let options = rp.makeRegistrationOptions(userHandle: [1, 2], userName: "ann", displayName: "Ann")
        let text = options.jsonString
        #expect(!text.contains("="))  // base64url without padding
        #expect(try PublicKeyCredentialCreationOptionsJSON(jsonString: text) == options)
    }
}

@Suite("Authenticator data, client data and COSE keys")
struct ParserTests {
    @Test("authenticator data: flags and counter are read from their positions")
    func authenticatorData() throws {
        var b = AuthenticatorDataBuilder()
        b.flags = [.userPresent, .backupEligible, .backupState]
        b.signCount = 0x0102_0304
        let data = try AuthenticatorData(bytes: b.build())
        #expect(data.userPresent && !data.userVerified && data.backupEligible && data.backupState)
        #expect(data.signCount == 0x0102_0304)
        #expect(data.attestedCredentialData == nil && data.extensions == nil)
        #expect(errorCode { try AuthenticatorData(bytes: Array(b.build().prefix(36))) } == .authenticatorDataMalformed)
    }

    @Test("attested credential data: every declared length is checked")
    func attestedCredentialData() throws {
        var b = AuthenticatorDataBuilder()
        b.flags.insert(.attestedCredentialData)
        b.credentialID = [1, 2, 3, 4]
        b.credentialPublicKey = try TestKey.make(.es256).coseKey.encoded
        let good = b.build()
        #expect(try AuthenticatorData(bytes: good).attestedCredentialData?.credentialID == [1, 2, 3, 4])
        var longID = good
        longID[37 + 16 + 1] = 0xff  // credentialIdLength beyond the data
        #expect(errorCode { try AuthenticatorData(bytes: longID) } == .authenticatorDataMalformed)
        #expect(errorCode { try AuthenticatorData(bytes: Array(good.prefix(37 + 10))) } == .authenticatorDataMalformed)
        #expect(errorCode { try AuthenticatorData(bytes: Array(good.prefix(good.count - 5))) } == .cborMalformed)
    }

    @Test("client data keeps the bytes it was parsed from, for hashing")
    func clientData() throws {
        let bytes = Array(#"{"type":"webauthn.get","challenge":"abc","origin":"https:\/\/example.com","crossOrigin":false,"topOrigin":null}"#.utf8)
        let c = try CollectedClientData(bytes: bytes)
        #expect(c.bytes == bytes)
        #expect(c.origin == "https://example.com")
        #expect(c.crossOrigin == false && c.topOrigin == nil)
        #expect(errorCode { try CollectedClientData(bytes: Array(#"{"type":"webauthn.get","challenge":"abc"}"#.utf8)) } == .clientDataMalformed)
        #expect(errorCode { try CollectedClientData(bytes: Array(#"["webauthn.get"]"#.utf8)) } == .clientDataMalformed)
        #expect(errorCode { try CollectedClientData(bytes: Array(#"{"type":"webauthn.get","challenge":"abc","origin":"o","crossOrigin":"yes"}"#.utf8)) } == .clientDataMalformed)
    }

    @Test("COSE keys: unknown key types and algorithms decode, then fail clearly")
    func coseKeys() throws {
        let unknown = COSEKey(keyType: COSEKeyType(rawValue: 99), algorithm: 12345, parameters: .unknown).encoded
        let key = try COSEKey(bytes: unknown)
        #expect(key.keyType.rawValue == 99 && key.algorithm.rawValue == 12345)
        #expect(errorCode { try key.makeVerifier() } == .unsupportedAlgorithm)
        let ed448 = COSEKey(keyType: .okp, algorithm: .edDSA, parameters: .okp(curve: .ed448, x: [UInt8](repeating: 1, count: 57))).encoded
        #expect(errorCode { try COSEKey(bytes: ed448).makeVerifier() } == .unsupportedAlgorithm)
        #expect(errorCode { try COSEKey(bytes: [0xa1, 0x01, 0x02]) } == .publicKeyMalformed)  // no alg
        #expect(errorCode { try COSEKey(bytes: [0x80]) } == .publicKeyMalformed)  // not a map
        let shortX = COSEKey(keyType: .ec2, algorithm: .es256, parameters: .ec2(curve: .p256, x: [1], y: [2])).encoded
        #expect(errorCode { try COSEKey(bytes: shortX) } == .publicKeyMalformed)
    }

    @Test("a credential public key that carries private key material is refused", arguments: [COSEAlgorithmIdentifier.es256, .edDSA, .rs256])
    func privateKeyMaterial(algorithm: COSEAlgorithmIdentifier) throws {
        let key = try TestKey.make(algorithm).coseKey
        #expect(try COSEKey(bytes: key.encoded) == key)
        let privateLabel: Int64 = algorithm == .rs256 ? -3 : -4
        guard case .map(var map) = key.cborValue else { Issue.record("not a map"); return }
        map[.int(privateLabel)] = .bytes([UInt8](repeating: 7, count: 32))
        #expect(errorCode { try COSEKey(bytes: CBOREncoder().encode(.map(map))) } == .publicKeyMalformed)
    }

    @Test("AAGUIDs print in canonical form and parse back")
    func aaguid() {
        let value = AAGUID("08987058-CADC-4B81-B6E1-30DE50DCBE96")
        #expect(value?.description == "08987058-cadc-4b81-b6e1-30de50dcbe96")
        #expect(AAGUID("not-an-aaguid") == nil)
        #expect(AAGUID.zero.isZero)
    }
}
