import Testing
import Foundation
import PasskeyCore
@testable import PasskeyAttestation
import PasskeyCBOR
import PasskeyWire
import Crypto
import _CryptoExtras
import X509
import SwiftASN1

/// Runs every attestation statement format directly on the registration fixtures, then checks that each format
/// rejects a statement with exactly one thing changed.
@Suite struct AttestationFormatTests {
    /// SafetyNet fixtures whose source did not check `timestampMs` and whose pinned time precedes the verdict (the
    /// fixture notes say so); they run with the timestamp check disabled, as their sources did. The default window is
    /// exercised separately below, at the verdict's own time.
    static let safetyNetFixturesWithoutTimestampCheck: Set<String> = [
        "py_webauthn-android-safetynet-2021", "yubico-android-safetynet-2019",
    ]

    /// The fixture `expected.failure` values that are attestation failures, and the error each must produce. Other
    /// failures (challenge, rp-id, token-binding...) belong to the ceremony: the attestation itself must verify.
    static let attestationFailures: [String: WebAuthnError.Code] = [
        "attestation-trust": .attestationUntrusted,
        "attestation-statement": .attestationInvalid,
        "safetynet-cts-profile": .safetyNetIntegrityFailed,
    ]

    static func verifiers(for fixture: AttestationFixture) throws -> AttestationVerifiers {
        let timestampCheck: AndroidSafetyNetAttestation.Options.TimestampCheck =
            safetyNetFixturesWithoutTimestampCheck.contains(fixture.id)
            ? .disabled : AndroidSafetyNetAttestation.Options.defaultTimestampCheck
        return AttestationVerifiers.standard(
            trustAnchors: try fixture.trustAnchors, safetyNet: .init(timestampCheck: timestampCheck))
    }

    static func code(_ body: () throws -> VerifiedAttestation) -> WebAuthnError? {
        do {
            _ = try body()
            return nil
        } catch let error as WebAuthnError {
            return error
        } catch {
            return WebAuthnError(WebAuthnError.Code(rawValue: "unexpected"), "\(error)")
        }
    }

    // MARK: - Every registration fixture

    @Test("fixture attestation", arguments: AttestationFixtures.registrationIDs)
    func fixture(_ id: String) throws {
        let fixture = try AttestationFixtures.registration(id)
        let verifiers = try Self.verifiers(for: fixture)
        let input = try fixture.input()
        #expect(fixture.attestationObject.format.rawValue == fixture.expectedFormat)

        if let failure = fixture.expectedFailure, let code = Self.attestationFailures[failure] {
            let error = Self.code { try verifiers.verify(input) }
            #expect(error?.code == code, "\(id): expected \(code), got \(String(describing: error))")
            return
        }
        let result: VerifiedAttestation
        do { result = try verifiers.verify(input) } catch {
            Issue.record("\(id): attestation failed: \(error)")
            return
        }
        #expect(result.format.rawValue == fixture.expectedFormat)
        #expect(result.type.rawValue == fixture.expectedAttestationType, "\(id)")
        if let alg = fixture.expectedStatementAlgorithm {
            #expect(result.statementAlgorithm?.rawValue == alg, "\(id)")
        }
        // Trust: a configured root must be reached; without roots a chain is reported as unevaluated.
        if result.trustPath.isEmpty {
            #expect(result.trust == .notApplicable, "\(id)")
        } else if fixture.rootPEMs.isEmpty {
            #expect(result.trust == .noTrustAnchors, "\(id)")
        } else {
            guard case .trusted = result.trust else {
                Issue.record("\(id): expected a trusted chain, got \(result.trust)")
                return
            }
        }
    }

    @Test func fixturesArePresent() {
        #expect(AttestationFixtures.registrationIDs.count == 42)
    }

    @Test func standardVerifiersRegisterEveryFormat() {
        let formats = Set(AttestationVerifiers.standard().formats)
        let expected: Set<AttestationFormat> = [.none, .packed, .fidoU2F, .apple, .androidKey, .androidSafetyNet, .tpm, .compound]
        #expect(formats == expected)
    }

    // MARK: - Helpers for one-change negative tests

    /// Verifies `fixture` with one statement member replaced.
    static func verify(
        _ fixture: AttestationFixture, replacing member: String? = nil, with value: CBORValue? = nil,
        anchors: TrustAnchors? = nil, validationTime: Date? = nil, clientDataHash: [UInt8]? = nil,
        safetyNet: AndroidSafetyNetAttestation.Options = .init(), androidKey: AndroidKeyAttestation.Options = .init()
    ) throws -> VerifiedAttestation {
        var map = try fixture.statementMap
        if let member { map[.text(member)] = value }
        let verifiers = AttestationVerifiers.standard(
            trustAnchors: try anchors ?? fixture.trustAnchors, androidKey: androidKey, safetyNet: safetyNet)
        return try verifiers.verify(
            try fixture.input(statement: .map(map), clientDataHash: clientDataHash, validationTime: validationTime))
    }

    static func flippingLastByte(_ bytes: [UInt8]) -> [UInt8] {
        var copy = bytes
        if let last = copy.indices.last { copy[last] ^= 0x01 }
        return copy
    }

    /// `haystack` with the first occurrence of `needle` replaced by `replacement` (same length); `nil` if absent.
    static func replacing(_ needle: [UInt8], with replacement: [UInt8], in haystack: [UInt8]) -> [UInt8]? {
        guard needle.count == replacement.count, !needle.isEmpty, haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<(start + needle.count)]) == needle {
            var copy = haystack
            copy.replaceSubrange(start..<(start + needle.count), with: replacement)
            return copy
        }
        return nil
    }

    static func x5c(_ fixture: AttestationFixture) throws -> [[UInt8]] {
        guard case .array(let items)? = try fixture.statementMap[text: "x5c"] else { throw AttestationFixtureError("no x5c") }
        return items.compactMap(\.bytesValue)
    }

    static func bytes(_ fixture: AttestationFixture, _ member: String) throws -> [UInt8] {
        guard let bytes = try fixture.statementMap[text: member]?.bytesValue else { throw AttestationFixtureError("no \(member)") }
        return bytes
    }

    static func expectError(
        _ code: WebAuthnError.Code, containing text: String, _ body: () throws -> VerifiedAttestation,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = Self.code(body)
        #expect(error?.code == code, "got \(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.reason.contains(text) == true, "got \(String(describing: error))", sourceLocation: sourceLocation)
    }

    // MARK: - packed

    @Test func packedRejectsAFlippedSignatureByte() throws {
        let fixture = try AttestationFixtures.registration("yubico-packed-yubikey-5-nfc")
        let sig = try Self.bytes(fixture, "sig")
        Self.expectError(.attestationInvalid, containing: "signature does not verify") {
            try Self.verify(fixture, replacing: "sig", with: .bytes(Self.flippingLastByte(sig)))
        }
    }

    @Test func packedSelfRejectsAFlippedSignatureByte() throws {
        let fixture = try AttestationFixtures.registration("simplewebauthn-packed-self-es256")
        let sig = try Self.bytes(fixture, "sig")
        Self.expectError(.attestationInvalid, containing: "self attestation signature") {
            try Self.verify(fixture, replacing: "sig", with: .bytes(Self.flippingLastByte(sig)))
        }
    }

    @Test func packedSelfRejectsAnAlgorithmOtherThanTheCredentialKeys() throws {
        let fixture = try AttestationFixtures.registration("simplewebauthn-packed-self-es256")
        Self.expectError(.attestationInvalid, containing: "alg differs") {
            try Self.verify(fixture, replacing: "alg", with: .int(-257))
        }
    }

    @Test func packedRejectsAnUnknownAlgorithm() throws {
        let fixture = try AttestationFixtures.registration("yubico-packed-yubikey-5-nfc")
        Self.expectError(.unsupportedAlgorithm, containing: "not supported") {
            try Self.verify(fixture, replacing: "alg", with: .int(-999))
        }
    }

    /// One statement member of a valid packed (full attestation) statement removed or of the wrong kind.
    static let packedMalformedMembers: [(member: String, value: CBORValue?, reason: String)] = [
        ("alg", nil, "has no \"alg\""),
        ("alg", .text("ES256"), "\"alg\" must be an integer"),
        ("sig", nil, "has no \"sig\""),
        ("sig", .text("c2ln"), "\"sig\" must be a byte string"),
        ("x5c", .bytes([0x30]), "\"x5c\" must be an array"),
        ("x5c", .array([]), "must hold at least one certificate"),
        ("x5c", .array([.text("MIIB")]), "x5c[0] must be a byte string"),
    ]

    @Test("packed refuses a statement with one member missing or of the wrong kind", arguments: 0..<packedMalformedMembers.count)
    func packedRejectsAMalformedMember(index: Int) throws {
        let fixture = try AttestationFixtures.registration("yubico-packed-yubikey-5-nfc")
        let (member, value, reason) = Self.packedMalformedMembers[index]
        Self.expectError(.attestationInvalid, containing: reason) {
            try Self.verify(fixture, replacing: member, with: value)
        }
    }

    @Test func packedRejectsACertificateWithoutTheAttestationOU() throws {
        let fixture = try AttestationFixtures.registration("yubico-packed-yubikey-5-nfc")
        var chain = try Self.x5c(fixture)
        let ou = Array("Authenticator Attestation".utf8)
        let changed = Array("Authenticator Attestatioo".utf8)
        let leaf = try #require(Self.replacing(ou, with: changed, in: chain[0]))
        chain[0] = leaf
        Self.expectError(.attestationInvalid, containing: "OU") {
            try Self.verify(fixture, replacing: "x5c", with: .array(chain.map(CBORValue.bytes)), anchors: .empty)
        }
    }

    @Test func chainFailsAfterTheLeafExpires() throws {
        let fixture = try AttestationFixtures.registration("yubico-packed-yubikey-5-nfc")
        let later = Date(timeIntervalSince1970: 4_200_000_000)  // 2103, after every certificate's notAfter
        Self.expectError(.attestationUntrusted, containing: "does not verify to a configured root") {
            try Self.verify(fixture, validationTime: later)
        }
    }

    @Test func aLeafThatIsAConfiguredRootIsTrusted() throws {
        let fixture = try AttestationFixtures.registration("fido2_net_lib-packed-atkey")
        let leaf = try Self.x5c(fixture)[0]
        let anchors = try TrustAnchors(der: [leaf], for: .packed)
        let result = try Self.verify(fixture, anchors: anchors)
        guard case .trusted = result.trust else {
            Issue.record("expected trusted, got \(result.trust)")
            return
        }
    }

    @Test func aSelfSignedCertificateInX5CIsNotATrustAnchor() throws {
        // The YubiKey's real root appended to x5c, while the configured root is an unrelated one: the path must not
        // end at the certificate the authenticator supplied.
        let fixture = try AttestationFixtures.registration("yubico-packed-yubikey-5-nfc")
        let yubicoRoot = try TrustAnchors(pem: try AttestationFixtures.text("roots/yubico-u2f-root-ca-457200631.pem"), for: .packed)
        let rootDER = try #require(yubicoRoot.roots(for: .packed).first.map { cert -> [UInt8] in
            var serializer = DERSerializerBox()
            return try serializer.serialize(cert)
        })
        let chain = try Self.x5c(fixture) + [rootDER]
        let unrelated = try TrustAnchors(pem: try AttestationFixtures.text("roots/apple-webauthn-root-ca.pem"), for: .packed)
        Self.expectError(.attestationUntrusted, containing: "configured root") {
            try Self.verify(fixture, replacing: "x5c", with: .array(chain.map(CBORValue.bytes)), anchors: unrelated)
        }
        // With the right root configured, the same statement is trusted.
        let result = try Self.verify(fixture, replacing: "x5c", with: .array(chain.map(CBORValue.bytes)), anchors: yubicoRoot)
        #expect(result.trust != .noTrustAnchors)
    }

    @Test func chromeVirtualAuthenticatorCertificateNeedsTheLenientBasicConstraintsReader() throws {
        let fixture = try AttestationFixtures.registration("simplewebauthn-packed-chrome-virtual-authenticator")
        let leaf = try Certificate(derEncoded: try Self.x5c(fixture)[0])
        // swift-certificates' strict DER reader refuses the explicit `cA FALSE`...
        #expect(throws: (any Error).self) { _ = try leaf.extensions.basicConstraints }
        // ...and the packed procedure still accepts the certificate.
        let result = try Self.verify(fixture)
        #expect(result.type == .basic)
    }

    @Test func aNegativeSerialNumberIsReadLenientlyAndItsKeyStillVerifiesTheLeaf() throws {
        // The FIDO conformance TPM intermediate has a negative serial number, which swift-certificates refuses.
        let fixture = try AttestationFixtures.registration("simplewebauthn-tpm-sha1-rs1")
        let x5c = try Self.x5c(fixture)
        #expect(throws: (any Error).self) { _ = try Certificate(derEncoded: x5c[1]) }
        let chain = try AttestationCertificate.chain(x5c, format: .tpm)
        #expect(chain[0].isIssued(by: chain[1].certificate))
        #expect(chain[1].der == x5c[1])
    }

    @Test func aSHA1SignedLinkVerifies() throws {
        // A root that signs the attestation certificate with sha1WithRSAEncryption, as U2F-era CAs did.
        let notBefore = Date(timeIntervalSince1970: 1_600_000_000)
        let notAfter = Date(timeIntervalSince1970: 1_900_000_000)
        let rootKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let rootName = try DistinguishedName { CommonName("Test SHA-1 Attestation Root") }
        let root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey), notValidBefore: notBefore,
            notValidAfter: notAfter, issuer: rootName, subject: rootName, signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                KeyUsage(keyCertSign: true)
            }, issuerPrivateKey: .init(rootKey))
        let leafKey = P256.Signing.PrivateKey()
        let leafName = try DistinguishedName {
            CountryName("US")
            OrganizationName("Test Vendor")
            OrganizationalUnitName("Authenticator Attestation")
            CommonName("Test SHA-1 Attestation")
        }
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey), notValidBefore: notBefore,
            notValidAfter: notAfter, issuer: rootName, subject: leafName, signatureAlgorithm: .sha1WithRSAEncryption,
            extensions: try Certificate.Extensions { Critical(BasicConstraints.notCertificateAuthority) },
            issuerPrivateKey: .init(rootKey))
        var serializer = DERSerializerBox()
        let leafDER = try serializer.serialize(leaf)

        let fixture = try AttestationFixtures.registration("simplewebauthn-packed-self-es256")
        let input = try fixture.input(validationTime: Date(timeIntervalSince1970: 1_700_000_000))
        let sig = Array(try leafKey.signature(for: input.signedData).derRepresentation)
        let statement: CBORValue = .map([
            .text("alg"): .int(-7), .text("sig"): .bytes(sig), .text("x5c"): .array([.bytes(leafDER)]),
        ])
        let packed = AttestationVerificationInput(
            format: .packed, statement: statement, authenticatorData: input.authenticatorData, credential: input.credential,
            clientDataHash: input.clientDataHash, validationTime: input.validationTime)
        let anchors = TrustAnchors(roots: [.packed: [root]])
        let result = try PackedAttestation(trustAnchors: anchors).verify(packed)
        #expect(result.trust == .trusted(root: rootName.description))

        // The same statement, with the root configured for another format only, is unevaluated for packed.
        let elsewhere = TrustAnchors(roots: [.fidoU2F: [root]])
        #expect(try PackedAttestation(trustAnchors: elsewhere).verify(packed).trust == .noTrustAnchors)
    }

    /// A packed attestation made for the purpose: a root, optionally an intermediate, and a leaf whose validity,
    /// basic constraints and extensions a test chooses, signing the packed-self fixture's data.
    struct PackedChain {
        static let validationTime = TestCertificateAuthority.validationTime
        static let from = TestCertificateAuthority.from
        static let until = TestCertificateAuthority.until
        let root: Certificate
        let input: AttestationVerificationInput

        init(
            leafValidity: (Date, Date) = (from, until), leafIsCA: Bool = false, leafAAGUID: [UInt8]? = nil,
            intermediateValidity: (Date, Date)? = nil
        ) throws {
            let rootAuthority = try TestCertificateAuthority("Test Packed Root")
            root = rootAuthority.certificate
            var issuer = rootAuthority
            var intermediates: [[UInt8]] = []
            if let intermediateValidity {
                issuer = try TestCertificateAuthority("Test Packed Intermediate", issuer: rootAuthority, validity: intermediateValidity)
                intermediates.append(try issuer.der())
            }
            let leafKey = P256.Signing.PrivateKey()
            let leafName = try DistinguishedName {
                CountryName("US")
                OrganizationName("Test Vendor")
                OrganizationalUnitName("Authenticator Attestation")
                CommonName("Test Packed Attestation")
            }
            var leafExtensions = try Certificate.Extensions {
                Critical(leafIsCA ? BasicConstraints.isCertificateAuthority(maxPathLength: nil) : BasicConstraints.notCertificateAuthority)
            }
            if let leafAAGUID {
                // id-fido-gen-ce-aaguid: an OCTET STRING of the 16 bytes.
                try leafExtensions.append(
                    Certificate.Extension(oid: [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4], critical: false, value: [0x04, 0x10] + leafAAGUID[...]))
            }
            let leaf = try issuer.issue(subject: leafName, key: leafKey.publicKey, extensions: leafExtensions, validity: leafValidity)
            let x5c = [leaf] + intermediates
            let fixture = try AttestationFixtures.registration("simplewebauthn-packed-self-es256")
            let base = try fixture.input(validationTime: Self.validationTime)
            let sig = Array(try leafKey.signature(for: base.signedData).derRepresentation)
            input = AttestationVerificationInput(
                format: .packed, statement: .map([.text("alg"): .int(-7), .text("sig"): .bytes(sig), .text("x5c"): .array(x5c.map(CBORValue.bytes))]),
                authenticatorData: base.authenticatorData, credential: base.credential, clientDataHash: base.clientDataHash,
                validationTime: Self.validationTime)
        }

        func verify() throws -> VerifiedAttestation {
            try PackedAttestation(trustAnchors: TrustAnchors(roots: [.packed: [root]])).verify(input)
        }
    }

    @Test func packedChainBuiltForTheTestIsTrusted() throws {
        #expect(try PackedChain().verify().trust == .trusted(root: try DistinguishedName { CommonName("Test Packed Root") }.description))
        let through = try PackedChain(intermediateValidity: (PackedChain.from, PackedChain.until))
        guard case .trusted = try through.verify().trust else {
            Issue.record("a chain through a valid intermediate is not trusted")
            return
        }
    }

    @Test func packedRejectsALeafThatIsACA() throws {
        Self.expectError(.attestationInvalid, containing: "must not be a CA") { try PackedChain(leafIsCA: true).verify() }
    }

    @Test func packedRejectsALeafNotYetValid() throws {
        let later = PackedChain.validationTime.addingTimeInterval(86_400)
        Self.expectError(.attestationUntrusted, containing: "does not verify to a configured root") {
            try PackedChain(leafValidity: (later, PackedChain.until)).verify()
        }
    }

    @Test func packedRejectsAnIntermediateExpiredOnItsOwn() throws {
        let earlier = PackedChain.validationTime.addingTimeInterval(-86_400)
        Self.expectError(.attestationUntrusted, containing: "does not verify to a configured root") {
            try PackedChain(intermediateValidity: (PackedChain.from, earlier)).verify()
        }
    }

    @Test func packedRejectsAnAAGUIDExtensionThatDiffersFromAuthenticatorData() throws {
        let chain = try PackedChain(leafAAGUID: [UInt8](repeating: 0x5a, count: 16))
        #expect(chain.input.credential.aaguid.bytes != [UInt8](repeating: 0x5a, count: 16))
        Self.expectError(.attestationInvalid, containing: "AAGUID extension does not match") { try chain.verify() }
        let matching = try PackedChain(leafAAGUID: chain.input.credential.aaguid.bytes)
        guard case .trusted = try matching.verify().trust else {
            Issue.record("a matching AAGUID extension is refused")
            return
        }
    }

    // MARK: - fido-u2f

    @Test func fidoU2FRejectsAFlippedSignatureByte() throws {
        let fixture = try AttestationFixtures.registration("yubico-fido-u2f-yubikey-neo")
        let sig = try Self.bytes(fixture, "sig")
        Self.expectError(.attestationInvalid, containing: "signature does not verify") {
            try Self.verify(fixture, replacing: "sig", with: .bytes(Self.flippingLastByte(sig)))
        }
    }

    @Test func fidoU2FRejectsMoreThanOneCertificate() throws {
        let fixture = try AttestationFixtures.registration("yubico-fido-u2f-yubikey-neo")
        let chain = try Self.x5c(fixture)
        Self.expectError(.attestationInvalid, containing: "exactly one certificate") {
            try Self.verify(fixture, replacing: "x5c", with: .array((chain + chain).map(CBORValue.bytes)))
        }
    }

    @Test func fidoU2FRejectsANonZeroAAGUID() throws {
        let fixture = try AttestationFixtures.registration("yubico-fido-u2f-yubikey-neo")
        let valid = try fixture.input()
        #expect(valid.credential.aaguid.isZero)
        #expect(try AttestationVerifiers.standard(trustAnchors: fixture.trustAnchors).verify(valid).format == .fidoU2F)
        // One byte of the AAGUID (authenticator data: rpIdHash 32, flags 1, signCount 4, then the AAGUID) set: the U2F
        // signature does not cover it, so only the AAGUID check can refuse this.
        var bytes = valid.authenticatorData.bytes
        bytes[37] = 0x01
        let changed = try AuthenticatorData(bytes: bytes)
        let credential = try #require(changed.attestedCredentialData)
        let input = AttestationVerificationInput(
            format: valid.format, statement: valid.statement, authenticatorData: changed, credential: credential,
            clientDataHash: valid.clientDataHash, validationTime: valid.validationTime)
        Self.expectError(.attestationInvalid, containing: "all-zero AAGUID") {
            try AttestationVerifiers.standard(trustAnchors: fixture.trustAnchors).verify(input)
        }
    }

    // MARK: - apple

    /// `fixture`'s input with another P-256 credential public key in the credential alone: the authenticator data (and
    /// so everything signed over it, the Apple nonce included) stays as it was, so only the check that the attestation
    /// certificate's key is the credential's can notice.
    static func inputWithAnotherCredentialKey(_ fixture: AttestationFixture) throws -> AttestationVerificationInput {
        let input = try fixture.input()
        let original = input.credential.credentialPublicKeyBytes
        let other = P256.Signing.PrivateKey().publicKey.x963Representation.dropFirst()
        let replacement = COSEKey(keyType: .ec2, algorithm: .es256, parameters: .ec2(curve: .p256, x: Array(other.prefix(32)), y: Array(other.suffix(32)))).encoded
        let bytes = try #require(Self.replacing(original, with: replacement, in: input.authenticatorData.bytes), "the key is not P-256 of the same length")
        let credential = try #require(try AuthenticatorData(bytes: bytes).attestedCredentialData)
        return AttestationVerificationInput(
            format: input.format, statement: input.statement, authenticatorData: input.authenticatorData, credential: credential,
            clientDataHash: input.clientDataHash, validationTime: input.validationTime)
    }

    @Test func appleRejectsACertificateKeyThatIsNotTheCredentials() throws {
        let fixture = try AttestationFixtures.registration("yubico-apple-ios")
        let input = try Self.inputWithAnotherCredentialKey(fixture)
        Self.expectError(.attestationInvalid, containing: "key is not the credential public key") {
            try AttestationVerifiers.standard(trustAnchors: .empty).verify(input)
        }
    }

    @Test func androidKeyRejectsACertificateKeyThatIsNotTheCredentials() throws {
        let fixture = try AttestationFixtures.registration("simplewebauthn-android-key-galaxy-s9")
        let input = try Self.inputWithAnotherCredentialKey(fixture)
        Self.expectError(.attestationInvalid, containing: "key is not the credential public key") {
            try AttestationVerifiers.standard(trustAnchors: .empty).verify(input)
        }
    }

    @Test func appleRejectsAChangedNonceExtension() throws {
        let fixture = try AttestationFixtures.registration("yubico-apple-ios")
        var chain = try Self.x5c(fixture)
        let input = try fixture.input()
        let nonce = Array(SHA256.hash(data: input.signedData))
        chain[0] = try #require(Self.replacing(nonce, with: Self.flippingLastByte(nonce), in: chain[0]))
        Self.expectError(.attestationInvalid, containing: "nonce") {
            try Self.verify(fixture, replacing: "x5c", with: .array(chain.map(CBORValue.bytes)), anchors: .empty)
        }
    }

    @Test func appleRejectsTheWrongCertificateOrder() throws {
        let fixture = try AttestationFixtures.registration("py_webauthn-apple-passkey-2021")
        let chain = try Self.x5c(fixture)
        Self.expectError(.attestationInvalid, containing: "nonce") {
            try Self.verify(fixture, replacing: "x5c", with: .array(chain.reversed().map(CBORValue.bytes)))
        }
    }

    // MARK: - android-key

    @Test func androidKeyRejectsAChangedAttestationChallenge() throws {
        let fixture = try AttestationFixtures.registration("simplewebauthn-android-key-galaxy-s9")
        var chain = try Self.x5c(fixture)
        let challenge = fixture.clientDataHash
        chain[0] = try #require(Self.replacing(challenge, with: Self.flippingLastByte(challenge), in: chain[0]))
        Self.expectError(.attestationInvalid, containing: "attestationChallenge") {
            try Self.verify(fixture, replacing: "x5c", with: .array(chain.map(CBORValue.bytes)), anchors: .empty)
        }
    }

    @Test func androidKeyRejectsAFlippedSignatureByte() throws {
        let fixture = try AttestationFixtures.registration("py_webauthn-android-key-pixel-8a")
        let sig = try Self.bytes(fixture, "sig")
        Self.expectError(.attestationInvalid, containing: "signature does not verify") {
            try Self.verify(fixture, replacing: "sig", with: .bytes(Self.flippingLastByte(sig)))
        }
    }

    @Test func androidKeyAcceptsTEEOnlyPolicyForHardwareKeys() throws {
        for id in ["py_webauthn-android-key-pixel-8a", "simplewebauthn-android-key-galaxy-s9"] {
            let fixture = try AttestationFixtures.registration(id)
            let result = try Self.verify(fixture, androidKey: .init(requireTrustedExecutionEnvironment: true))
            #expect(result.type == .basic)
        }
    }

    // MARK: - android-safetynet

    @Test func safetyNetCTSProfileCanBeWaived() throws {
        let fixture = try AttestationFixtures.registration("simplewebauthn-android-safetynet-cts-profile-false")
        let result = try Self.verify(fixture, safetyNet: .init(requireCTSProfileMatch: false))
        #expect(result.details["ctsProfileMatch"] == "false")
    }

    @Test func safetyNetRejectsAChangedJWSSignature() throws {
        let fixture = try AttestationFixtures.registration("simplewebauthn-android-safetynet-cts-profile-false")
        var response = try Self.bytes(fixture, "response")
        // Change one base64url character in the middle of the signature part.
        let lastDot = try #require(response.lastIndex(of: UInt8(ascii: ".")))
        let index = lastDot + (response.count - lastDot) / 2
        response[index] = response[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        Self.expectError(.attestationInvalid, containing: "signature") {
            try Self.verify(fixture, replacing: "response", with: .bytes(response), safetyNet: .init(requireCTSProfileMatch: false))
        }
    }

    @Test func safetyNetRejectsAStaleVerdict() throws {
        let fixture = try AttestationFixtures.registration("py_webauthn-android-safetynet-2021")
        let timestamp = try #require(fixture.safetyNetTimestamp)
        // Two hours after the verdict: outside the default one-hour window, inside the certificates' validity.
        Self.expectError(.attestationInvalid, containing: "older") {
            try Self.verify(fixture, validationTime: timestamp.addingTimeInterval(7200))
        }
    }

    @Test func safetyNetRejectsAVerdictFromTheFuture() throws {
        let fixture = try AttestationFixtures.registration("py_webauthn-android-safetynet-2021")
        // The fixture's pinned time is two days before the verdict.
        Self.expectError(.attestationInvalid, containing: "future") { try Self.verify(fixture) }
    }

    @Test("SafetyNet passes the default timestamp window at the verdict's time", arguments: Array(safetyNetFixturesWithoutTimestampCheck))
    func safetyNetDefaultWindowAtVerdictTime(_ id: String) throws {
        let fixture = try AttestationFixtures.registration(id)
        let timestamp = try #require(fixture.safetyNetTimestamp)
        let result = try Self.verify(fixture, validationTime: timestamp)
        guard case .trusted = result.trust else {
            Issue.record("\(id): expected trusted, got \(result.trust)")
            return
        }
    }

    // MARK: - tpm

    static let tpmFixture = "yubico-tpm-windows-hello"

    @Test func tpmRejectsAChangedMagic() throws {
        let fixture = try AttestationFixtures.registration(Self.tpmFixture)
        var certInfo = try Self.bytes(fixture, "certInfo")
        certInfo[0] ^= 0x01
        Self.expectError(.attestationInvalid, containing: "magic") {
            try Self.verify(fixture, replacing: "certInfo", with: .bytes(certInfo))
        }
    }

    @Test func tpmRejectsAChangedAttestationType() throws {
        let fixture = try AttestationFixtures.registration(Self.tpmFixture)
        var certInfo = try Self.bytes(fixture, "certInfo")
        certInfo[5] ^= 0x01  // low byte of type, after the 4-byte magic
        Self.expectError(.attestationInvalid, containing: "TPM_ST_ATTEST_CERTIFY") {
            try Self.verify(fixture, replacing: "certInfo", with: .bytes(certInfo))
        }
    }

    @Test func tpmRejectsADifferentClientDataHash() throws {
        let fixture = try AttestationFixtures.registration(Self.tpmFixture)
        Self.expectError(.attestationInvalid, containing: "extraData") {
            try Self.verify(fixture, clientDataHash: Self.flippingLastByte(fixture.clientDataHash))
        }
    }

    @Test func tpmRejectsAPubAreaForAnotherKey() throws {
        let fixture = try AttestationFixtures.registration(Self.tpmFixture)
        let pubArea = try Self.bytes(fixture, "pubArea")
        Self.expectError(.attestationInvalid, containing: "pubArea key is not the credential public key") {
            try Self.verify(fixture, replacing: "pubArea", with: .bytes(Self.flippingLastByte(pubArea)))
        }
    }

    @Test func tpmRejectsATruncatedPubArea() throws {
        let fixture = try AttestationFixtures.registration(Self.tpmFixture)
        let pubArea = try Self.bytes(fixture, "pubArea")
        Self.expectError(.attestationInvalid, containing: "truncated") {
            try Self.verify(fixture, replacing: "pubArea", with: .bytes(Array(pubArea.dropLast())))
        }
    }

    @Test func tpmRejectsAFlippedSignatureByte() throws {
        let fixture = try AttestationFixtures.registration(Self.tpmFixture)
        let sig = try Self.bytes(fixture, "sig")
        Self.expectError(.attestationInvalid, containing: "signature does not verify") {
            try Self.verify(fixture, replacing: "sig", with: .bytes(Self.flippingLastByte(sig)))
        }
    }

    @Test func tpmRejectsAnotherVersion() throws {
        let fixture = try AttestationFixtures.registration(Self.tpmFixture)
        Self.expectError(.attestationInvalid, containing: "2.0") {
            try Self.verify(fixture, replacing: "ver", with: .text("2.1"))
        }
    }

    @Test func tpmRejectsTheWrongCertificateOrder() throws {
        let fixture = try AttestationFixtures.registration(Self.tpmFixture)
        let chain = try Self.x5c(fixture)
        Self.expectError(.attestationInvalid, containing: "signature does not verify") {
            try Self.verify(fixture, replacing: "x5c", with: .array(chain.reversed().map(CBORValue.bytes)))
        }
    }

    @Test func tpmReportsTheDeviceFromBothSubjectAltNameLayouts() throws {
        for id in ["simplewebauthn-tpm-non-spec-san", "simplewebauthn-tpm-spec-compliant-san"] {
            let result = try Self.verify(try AttestationFixtures.registration(id))
            #expect(result.details["tpmManufacturer"]?.hasPrefix("id:") == true, "\(id)")
            #expect(result.details["tpmModel"]?.isEmpty == false, "\(id)")
        }
    }

    // MARK: - compound

    @Test func compoundVerifiesEachComponent() throws {
        let fixture = try AttestationFixtures.registration("yubico-packed-yubikey-5-nfc")
        let component: CBORValue = .map([.text("fmt"): .text("packed"), .text("attStmt"): fixture.attestationObject.statement])
        let input = try fixture.input()
        let compound = AttestationVerificationInput(
            format: .compound, statement: .array([component, component]), authenticatorData: input.authenticatorData,
            credential: input.credential, clientDataHash: input.clientDataHash, validationTime: input.validationTime)
        let result = try AttestationVerifiers.standard(trustAnchors: try fixture.trustAnchors).verify(compound)
        #expect(result.components.count == 2)
    }

    @Test func compoundRejectsOneStatementNestingAndAFailingComponent() throws {
        let fixture = try AttestationFixtures.registration("yubico-packed-yubikey-5-nfc")
        let input = try fixture.input()
        let verifiers = AttestationVerifiers.standard(trustAnchors: try fixture.trustAnchors)
        func compound(_ statement: CBORValue) -> AttestationVerificationInput {
            AttestationVerificationInput(
                format: .compound, statement: statement, authenticatorData: input.authenticatorData, credential: input.credential,
                clientDataHash: input.clientDataHash, validationTime: input.validationTime)
        }
        let good: CBORValue = .map([.text("fmt"): .text("packed"), .text("attStmt"): fixture.attestationObject.statement])
        Self.expectError(.attestationInvalid, containing: "at least two statements") { try verifiers.verify(compound(.array([good]))) }
        let nested: CBORValue = .map([.text("fmt"): .text("compound"), .text("attStmt"): .array([good, good])])
        Self.expectError(.attestationInvalid, containing: "must not nest") { try verifiers.verify(compound(.array([good, nested]))) }
        // The second statement alone is broken (its signature's last byte flipped): the whole attestation fails.
        var map = try fixture.statementMap
        map[.text("sig")] = .bytes(Self.flippingLastByte(try Self.bytes(fixture, "sig")))
        let broken: CBORValue = .map([.text("fmt"): .text("packed"), .text("attStmt"): .map(map)])
        Self.expectError(.attestationInvalid, containing: "signature does not verify") { try verifiers.verify(compound(.array([good, broken]))) }
    }
}

/// Serializes a certificate to DER (swift-certificates keeps no copy of the original bytes).
struct DERSerializerBox {
    mutating func serialize(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}
