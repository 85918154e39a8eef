public import PasskeyCore
public import PasskeyWire
import X509

/// The `tpm` attestation statement format (WebAuthn L3 §8.3): Windows Hello and other TPM 2.0 authenticators.
///
/// The TPM certifies the credential key (pubArea) with an attestation identity key; the signed TPMS_ATTEST binds the
/// ceremony through extraData, and the AIK certificate chains to the TPM vendor's CA (attestation type AttCA).
public struct TPMAttestation: AttestationStatementVerifier {
    public let trustAnchors: TrustAnchors

    public init(trustAnchors: TrustAnchors = .empty) { self.trustAnchors = trustAnchors }
    public var format: AttestationFormat { .tpm }

    /// The only TPM version WebAuthn defines (§8.3: "ver: The version of the TPM specification ... 2.0").
    static let supportedVersion = "2.0"

    public func verify(_ input: AttestationVerificationInput) throws(WebAuthnError) -> VerifiedAttestation {
        // WebAuthn L3 §8.3 step 1: attStmt is {ver, alg, x5c, sig, certInfo, pubArea}; decode the fields.
        let statement = try StatementReader(input)
        let ver = try statement.text("ver")
        guard ver == Self.supportedVersion else {
            throw WebAuthnError(.attestationInvalid, "tpm attStmt ver must be \"2.0\"", expected: Self.supportedVersion, received: ver)
        }
        let alg = try statement.algorithm()
        let sig = try statement.bytes("sig")
        let certInfoBytes = try statement.bytes("certInfo")
        let pubAreaBytes = try statement.bytes("pubArea")
        // ECDAA was removed in WebAuthn L3; a statement still using it cannot be verified.
        guard !statement.has("ecdaaKeyId") else {
            throw WebAuthnError(.attestationInvalid, "tpm attStmt uses ECDAA (ecdaaKeyId), which WebAuthn L3 removed")
        }
        // WebAuthn L3 §8.3 step 1 + "Verify that x5c is present".
        let (aik, chain) = try statement.requiredCertificateChain()
        guard let attToBeSignedHash = TPMAlgorithm.hash(forStatementAlgorithm: alg, input.signedData) else {
            throw WebAuthnError(
                .unsupportedAlgorithm, "tpm attestation algorithm \(alg) has no hash this library knows", received: "\(alg.rawValue)")
        }

        // WebAuthn L3 §8.3 step 2: the public key in pubArea (parameters and unique) is the credentialPublicKey.
        let pubArea = try TPMPublicArea(bytes: pubAreaBytes)
        guard pubArea.matches(input.credential.credentialPublicKey) else {
            throw WebAuthnError(.attestationInvalid, "tpm pubArea key is not the credential public key")
        }

        // WebAuthn L3 §8.3 step 3: attToBeSigned = authenticatorData ‖ clientDataHash (hashed below).
        // WebAuthn L3 §8.3 step 4: validate certInfo.
        let certInfo = try TPMAttestationInfo(bytes: certInfoBytes)
        try Self.check(certInfo, attToBeSignedHash: attToBeSignedHash, alg: alg, pubArea: pubArea, pubAreaBytes: pubAreaBytes)

        // §8.3 step 4: "Verify the sig is a valid signature over certInfo using the attestation public key in aikCert
        // with the algorithm specified in alg." RS1 is accepted here: Windows Hello TPMs sign certInfo with it, and
        // this is the AIK's signature, not a credential algorithm the relying party chose.
        let verifier = try CertificateKey.verifier(for: aik.certificate, algorithm: alg, role: "tpm AIK certificate")
        try CertificateKey.verify(sig, over: certInfoBytes, with: verifier, format: format, role: "AIK certificate")

        // §8.3 step 4: "Verify that aikCert meets the requirements in § 8.3.1."
        let device = try AIKCertificateRequirements.check(aik.certificate)
        // §8.3 step 4: id-fido-gen-ce-aaguid, when present, matches the aaguid in authenticatorData.
        try aik.certificate.checkFIDOAAGUIDExtension(matches: input.credential.aaguid, format: "tpm")

        // §8.3 step 4: attestation type AttCA, trust path x5c.
        let trust = try CertificateChainVerifier(roots: trustAnchors.roots(for: format, aaguid: input.credential.aaguid, leaf: aik.certificate), validationTime: input.validationTime)
            .evaluate(chain, format: format)
        return VerifiedAttestation(
            format: format, type: .attCA, trustPath: chain.trustPath, trust: trust, statementAlgorithm: alg,
            details: ["tpmManufacturer": device.manufacturer, "tpmModel": device.model, "tpmVersion": device.version])
    }

    /// WebAuthn L3 §8.3 step 4: certInfo is a TPM_ST_ATTEST_CERTIFY structure the TPM generated, over this ceremony,
    /// naming pubArea. Its qualifiedSigner, clockInfo and firmwareVersion are ignored.
    static func check(
        _ certInfo: TPMAttestationInfo, attToBeSignedHash: [UInt8], alg: COSEAlgorithmIdentifier, pubArea: TPMPublicArea,
        pubAreaBytes: [UInt8]
    ) throws(WebAuthnError) {
            // §8.3 step 4: "Verify that magic is set to TPM_GENERATED_VALUE."
            guard certInfo.magic == TPMAttestationInfo.generatedMagic else {
                throw WebAuthnError(
                    .attestationInvalid, "tpm certInfo magic is not TPM_GENERATED_VALUE", expected: "0xff544347",
                    received: "0x" + String(certInfo.magic, radix: 16))
            }
            // §8.3 step 4: "Verify that type is set to TPM_ST_ATTEST_CERTIFY."
            guard certInfo.type == TPMAttestationInfo.attestCertifyType else {
                throw WebAuthnError(
                    .attestationInvalid, "tpm certInfo type is not TPM_ST_ATTEST_CERTIFY", expected: "0x8017",
                    received: "0x" + String(certInfo.type, radix: 16))
            }
            // §8.3 step 4: "Verify that extraData is set to the hash of attToBeSigned using the hash algorithm employed in alg."
            guard constantTimeEqual(certInfo.extraData, attToBeSignedHash) else {
                throw WebAuthnError(
                    .attestationInvalid, "tpm certInfo extraData is not the \(alg) hash of authenticatorData ‖ clientDataHash",
                    expected: attToBeSignedHash.hexString, received: certInfo.extraData.hexString)
            }
            // §8.3 step 4: attested.name is a valid Name for pubArea: nameAlg ‖ H_nameAlg(pubArea) (TPM 2.0 Part 1 §16).
            guard let pubAreaDigest = TPMAlgorithm.hash(pubArea.nameAlgorithm, pubAreaBytes) else {
                throw WebAuthnError(
                    .attestationInvalid, "tpm pubArea nameAlg is not a hash algorithm this library knows",
                    received: "0x" + String(pubArea.nameAlgorithm, radix: 16))
            }
            let expectedName = [UInt8(pubArea.nameAlgorithm >> 8), UInt8(pubArea.nameAlgorithm & 0xff)] + pubAreaDigest
            guard constantTimeEqual(certInfo.attestedName, expectedName) else {
                throw WebAuthnError(
                    .attestationInvalid, "tpm certInfo attested name is not the Name of pubArea",
                    expected: expectedName.hexString, received: certInfo.attestedName.hexString)
            }
    }
}
