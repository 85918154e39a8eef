import Testing
import Foundation
import PasskeyCore
@testable import PasskeyAttestation
import PasskeyCBOR
import Crypto
import X509
import SwiftASN1

/// The `tpm` AIK certificate requirements (WebAuthn L3 §8.3.1) and the `android-key` key description checks (§8.4
/// step 5) on statements made for the purpose: a real authenticator's certificates cannot be changed without breaking
/// their signatures, so each test builds a certificate that differs from a valid one in exactly one way and signs the
/// statement with its key. Everything else (the credential, the TPM's certInfo and pubArea, the client data hash)
/// comes from a real fixture.
@Suite struct BuiltAttestationTests {
    static let validationTime = TestCertificateAuthority.validationTime

    static func expectError(
        _ code: WebAuthnError.Code, containing text: String, _ body: () throws -> VerifiedAttestation,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        AttestationFormatTests.expectError(code, containing: text, body, sourceLocation: sourceLocation)
    }

    // MARK: - tpm

    /// The directoryName of an AIK certificate's subjectAltName (TCG EK Credential Profile §3.2.9), one attribute per RDN.
    static func tpmDevice(model: String? = "Test TPM") -> DistinguishedName {
        var names = [RelativeDistinguishedName(RelativeDistinguishedName.Attribute(type: AttestationOID.tcgTPMManufacturer, utf8String: "id:FFFFF1D0"))]
        if let model {
            names.append(RelativeDistinguishedName(RelativeDistinguishedName.Attribute(type: AttestationOID.tcgTPMModel, utf8String: model)))
        }
        names.append(RelativeDistinguishedName(RelativeDistinguishedName.Attribute(type: AttestationOID.tcgTPMVersion, utf8String: "id:00020000")))
        return DistinguishedName(names)
    }

    /// A `tpm` statement over a real Windows Hello TPM's certInfo and pubArea, signed again by an AIK made here, whose
    /// certificate a test shapes. The defaults give a certificate that meets every requirement of §8.3.1.
    struct TPMStatement {
        let root: TestCertificateAuthority
        let input: AttestationVerificationInput

        init(
            version: Certificate.Version = .v3, subject: DistinguishedName = DistinguishedName(),
            subjectAltName: DistinguishedName? = tpmDevice(), extendedKeyUsage: [ASN1ObjectIdentifier]? = [AttestationOID.tcgAIKCertificate],
            basicConstraints: BasicConstraints? = .notCertificateAuthority, aaguid: [UInt8]? = nil
        ) throws {
            root = try TestCertificateAuthority("Test TPM Root")
            let aikKey = P256.Signing.PrivateKey()
            var extensions = Certificate.Extensions()
            if let subjectAltName {
                try extensions.append(Critical(SubjectAlternativeNames([.directoryName(subjectAltName)])).makeCertificateExtension())
            }
            if let extendedKeyUsage {
                try extensions.append(ExtendedKeyUsage(extendedKeyUsage.map(ExtendedKeyUsage.Usage.init(oid:))).makeCertificateExtension())
            }
            if let basicConstraints { try extensions.append(Critical(basicConstraints).makeCertificateExtension()) }
            if let aaguid {
                // id-fido-gen-ce-aaguid: an OCTET STRING of the 16 bytes.
                try extensions.append(
                    Certificate.Extension(oid: [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4], critical: false, value: [0x04, 0x10] + aaguid[...]))
            }
            let aik = try root.issue(version: version, subject: subject, key: aikKey.publicKey, extensions: extensions)
            let fixture = try AttestationFixtures.registration("simplewebauthn-tpm-spec-compliant-san")
            let base = try fixture.input(validationTime: BuiltAttestationTests.validationTime)
            // The real TPM signed with RS1, so its certInfo.extraData is a SHA-1 hash; the AIK here signs with ES256,
            // whose hash is SHA-256. TPMS_ATTEST (TPM 2.0 Part 2 §10.12.12): magic (4), type (2), qualifiedSigner
            // (TPM2B: size, bytes), extraData (TPM2B), then clockInfo, firmwareVersion and the attested name, kept.
            let original = try AttestationFormatTests.bytes(fixture, "certInfo")
            let signerSize = Int(original[6]) << 8 | Int(original[7])
            let extraDataAt = 8 + signerSize
            let extraDataSize = Int(original[extraDataAt]) << 8 | Int(original[extraDataAt + 1])
            let certInfo =
                Array(original[..<extraDataAt]) + [0x00, 0x20] + Array(SHA256.hash(data: base.signedData))
                + Array(original[(extraDataAt + 2 + extraDataSize)...])
            let sig = Array(try aikKey.signature(for: certInfo).derRepresentation)
            let statement: CBORValue = .map([
                .text("ver"): .text("2.0"), .text("alg"): .int(-7), .text("sig"): .bytes(sig), .text("x5c"): .array([.bytes(aik)]),
                .text("certInfo"): .bytes(certInfo), .text("pubArea"): .bytes(try AttestationFormatTests.bytes(fixture, "pubArea")),
            ])
            input = AttestationVerificationInput(
                format: .tpm, statement: statement, authenticatorData: base.authenticatorData, credential: base.credential,
                clientDataHash: base.clientDataHash, validationTime: BuiltAttestationTests.validationTime)
        }

        func verify(trusting roots: [Certificate]? = nil) throws -> VerifiedAttestation {
            try TPMAttestation(trustAnchors: TrustAnchors(roots: [.tpm: roots ?? [root.certificate]])).verify(input)
        }
    }

    @Test func tpmStatementBuiltForTheTestIsTrusted() throws {
        let statement = try TPMStatement()
        let result = try statement.verify()
        #expect(result.trust == .trusted(root: statement.root.name.description))
        #expect(result.type == .attCA)
        #expect(result.details["tpmManufacturer"] == "id:FFFFF1D0")
        #expect(result.details["tpmModel"] == "Test TPM")
        #expect(result.details["tpmVersion"] == "id:00020000")
    }

    @Test func tpmRejectsAnAIKCertificateThatIsNotVersion3() throws {
        Self.expectError(.attestationInvalid, containing: "version 3") { try TPMStatement(version: .v1).verify() }
    }

    @Test func tpmRejectsAnAIKCertificateWithASubject() throws {
        let subject = try DistinguishedName { CommonName("Test AIK") }
        Self.expectError(.attestationInvalid, containing: "subject must be empty") { try TPMStatement(subject: subject).verify() }
    }

    @Test func tpmRejectsAnAIKCertificateWithoutSubjectAltName() throws {
        Self.expectError(.attestationInvalid, containing: "no subjectAltName") { try TPMStatement(subjectAltName: nil).verify() }
    }

    @Test func tpmRejectsASubjectAltNameWithoutTheModel() throws {
        Self.expectError(.attestationInvalid, containing: "TPM model") {
            try TPMStatement(subjectAltName: BuiltAttestationTests.tpmDevice(model: nil)).verify()
        }
    }

    @Test func tpmRejectsAnAIKCertificateWithoutTheAIKExtendedKeyUsage() throws {
        Self.expectError(.attestationInvalid, containing: "tcg-kp-AIKCertificate") { try TPMStatement(extendedKeyUsage: nil).verify() }
        // id-kp-serverAuth instead of tcg-kp-AIKCertificate.
        Self.expectError(.attestationInvalid, containing: "tcg-kp-AIKCertificate") {
            try TPMStatement(extendedKeyUsage: [[1, 3, 6, 1, 5, 5, 7, 3, 1]]).verify()
        }
    }

    @Test func tpmRejectsAnAIKCertificateThatIsACA() throws {
        Self.expectError(.attestationInvalid, containing: "CA=FALSE") {
            try TPMStatement(basicConstraints: .isCertificateAuthority(maxPathLength: nil)).verify()
        }
    }

    @Test func tpmRejectsAnAIKCertificateWithoutBasicConstraints() throws {
        Self.expectError(.attestationInvalid, containing: "CA=FALSE") { try TPMStatement(basicConstraints: nil).verify() }
    }

    @Test func tpmRejectsAnAAGUIDExtensionThatDiffersFromAuthenticatorData() throws {
        let other = [UInt8](repeating: 0x5a, count: 16)
        let statement = try TPMStatement(aaguid: other)
        #expect(statement.input.credential.aaguid.bytes != other)
        Self.expectError(.attestationInvalid, containing: "AAGUID extension does not match") { try statement.verify() }
        let matching = try TPMStatement(aaguid: statement.input.credential.aaguid.bytes)
        #expect(try matching.verify().type == .attCA)
    }

    @Test func tpmRejectsAChainToAnotherRoot() throws {
        let other = try TestCertificateAuthority("Another TPM Root")
        Self.expectError(.attestationUntrusted, containing: "does not verify to a configured root") {
            try TPMStatement().verify(trusting: [other.certificate])
        }
    }

    // MARK: - android-key

    /// DER for the Android Keystore key description (the parts this test shapes).
    enum DERBytes {
        static func tlv(_ tag: [UInt8], _ content: [UInt8]) -> [UInt8] {
            let length: [UInt8] =
                content.count < 0x80 ? [UInt8(content.count)]
                : content.count < 0x100 ? [0x81, UInt8(content.count)] : [0x82, UInt8(content.count >> 8), UInt8(content.count & 0xff)]
            return tag + length + content
        }
        static func integer(_ value: UInt8) -> [UInt8] { tlv([0x02], [value]) }
        static func sequence(_ members: [[UInt8]]) -> [UInt8] { tlv([0x30], members.flatMap { $0 }) }

        /// purpose [1] EXPLICIT SET OF INTEGER.
        static func purposes(_ values: [UInt8]) -> [UInt8] { tlv([0xa1], tlv([0x31], values.flatMap(integer))) }
        /// allApplications [600] EXPLICIT NULL (high tag number form: 600 = 4·128 + 88).
        static let allApplications = tlv([0xbf, 0x84, 0x58], [0x05, 0x00])
        /// origin [702] EXPLICIT INTEGER (702 = 5·128 + 62).
        static func origin(_ value: UInt8) -> [UInt8] { tlv([0xbf, 0x85, 0x3e], integer(value)) }

        /// A key generated in Keystore for signing: what a passkey's list holds.
        static let generatedSigningKey = [purposes([2]), origin(0)]

        static func keyDescription(challenge: [UInt8], softwareEnforced: [[UInt8]], teeEnforced: [[UInt8]]) -> [UInt8] {
            sequence([
                integer(3), tlv([0x0a], [1]), integer(4), tlv([0x0a], [1]),  // versions and security levels (TEE)
                tlv([0x04], challenge), tlv([0x04], []),  // attestationChallenge, uniqueId
                sequence(softwareEnforced), sequence(teeEnforced),
            ])
        }
    }

    /// An `android-key` statement for a credential key made here (put into a real Galaxy S9 registration's
    /// authenticator data), with a leaf certificate for that key whose key description a test shapes. The defaults
    /// describe a key generated in the TEE for signing, bound to this ceremony.
    struct AndroidKeyStatement {
        let root: TestCertificateAuthority
        let input: AttestationVerificationInput

        init(
            softwareEnforced: [[UInt8]] = [], teeEnforced: [[UInt8]] = DERBytes.generatedSigningKey, challenge: [UInt8]? = nil
        ) throws {
            root = try TestCertificateAuthority("Test Android Root")
            let fixture = try AttestationFixtures.registration("simplewebauthn-android-key-galaxy-s9")
            let base = try fixture.input(validationTime: BuiltAttestationTests.validationTime)
            let credentialKey = P256.Signing.PrivateKey()
            let point = credentialKey.publicKey.x963Representation.dropFirst()
            let cose = COSEKey(
                keyType: .ec2, algorithm: .es256, parameters: .ec2(curve: .p256, x: Array(point.prefix(32)), y: Array(point.suffix(32)))).encoded
            let bytes = try #require(
                AttestationFormatTests.replacing(base.credential.credentialPublicKeyBytes, with: cose, in: base.authenticatorData.bytes))
            let authenticatorData = try AuthenticatorData(bytes: bytes)
            let credential = try #require(authenticatorData.attestedCredentialData)

            let description = DERBytes.keyDescription(
                challenge: challenge ?? base.clientDataHash, softwareEnforced: softwareEnforced, teeEnforced: teeEnforced)
            let extensions = try Certificate.Extensions {
                Certificate.Extension(oid: AttestationOID.androidKeyDescription, critical: false, value: description[...])
            }
            let leaf = try root.issue(
                subject: try DistinguishedName { CommonName("Android Keystore Key") }, key: credentialKey.publicKey, extensions: extensions)
            let sig = Array(try credentialKey.signature(for: bytes + base.clientDataHash).derRepresentation)
            input = AttestationVerificationInput(
                format: .androidKey,
                statement: .map([.text("alg"): .int(-7), .text("sig"): .bytes(sig), .text("x5c"): .array([.bytes(leaf)])]),
                authenticatorData: authenticatorData, credential: credential, clientDataHash: base.clientDataHash,
                validationTime: BuiltAttestationTests.validationTime)
        }

        func verify(options: AndroidKeyAttestation.Options = .init(), trusting roots: [Certificate]? = nil) throws -> VerifiedAttestation {
            try AndroidKeyAttestation(trustAnchors: TrustAnchors(roots: [.androidKey: roots ?? [root.certificate]]), options: options)
                .verify(input)
        }
    }

    @Test func androidKeyStatementBuiltForTheTestIsTrusted() throws {
        let statement = try AndroidKeyStatement()
        let result = try statement.verify(options: .init(requireTrustedExecutionEnvironment: true))
        #expect(result.trust == .trusted(root: statement.root.name.description))
        #expect(result.type == .basic)
        #expect(result.details["attestationVersion"] == "3")
    }

    @Test func androidKeyRejectsAllApplicationsInEitherList() throws {
        Self.expectError(.attestationInvalid, containing: "allApplications") {
            try AndroidKeyStatement(softwareEnforced: [DERBytes.allApplications]).verify()
        }
        Self.expectError(.attestationInvalid, containing: "allApplications") {
            try AndroidKeyStatement(teeEnforced: DERBytes.generatedSigningKey + [DERBytes.allApplications]).verify()
        }
    }

    @Test func androidKeyRejectsAnImportedKey() throws {
        // KM_ORIGIN_IMPORTED (2): the key existed outside Keystore before.
        Self.expectError(.attestationInvalid, containing: "KM_ORIGIN_GENERATED") {
            try AndroidKeyStatement(teeEnforced: [DERBytes.purposes([2]), DERBytes.origin(2)]).verify()
        }
        Self.expectError(.attestationInvalid, containing: "KM_ORIGIN_GENERATED") {
            try AndroidKeyStatement(teeEnforced: [DERBytes.purposes([2])]).verify()
        }
    }

    @Test func androidKeyRejectsAPurposeBesidesSigning() throws {
        // KM_PURPOSE_ENCRYPT (0) beside KM_PURPOSE_SIGN.
        Self.expectError(.attestationInvalid, containing: "KM_PURPOSE_SIGN only") {
            try AndroidKeyStatement(teeEnforced: [DERBytes.purposes([2, 0]), DERBytes.origin(0)]).verify()
        }
        Self.expectError(.attestationInvalid, containing: "KM_PURPOSE_SIGN only") {
            try AndroidKeyStatement(teeEnforced: [DERBytes.origin(0)]).verify()
        }
    }

    @Test func androidKeyReadsTheSoftwareListOnlyWhenTheTEEIsNotRequired() throws {
        let software = try AndroidKeyStatement(softwareEnforced: DERBytes.generatedSigningKey, teeEnforced: [])
        #expect(try software.verify().type == .basic)
        Self.expectError(.attestationInvalid, containing: "KM_ORIGIN_GENERATED") {
            try software.verify(options: .init(requireTrustedExecutionEnvironment: true))
        }
    }

    @Test func androidKeyRejectsAnotherCeremonysChallenge() throws {
        Self.expectError(.attestationInvalid, containing: "attestationChallenge") {
            try AndroidKeyStatement(challenge: [UInt8](repeating: 7, count: 32)).verify()
        }
    }

    @Test func androidKeyRejectsAChainToAnotherRoot() throws {
        let other = try TestCertificateAuthority("Another Android Root")
        Self.expectError(.attestationUntrusted, containing: "does not verify to a configured root") {
            try AndroidKeyStatement().verify(trusting: [other.certificate])
        }
    }
}
