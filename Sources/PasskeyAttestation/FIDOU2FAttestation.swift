public import PasskeyCore
public import PasskeyWire
import X509
import Crypto

/// The `fido-u2f` attestation statement format (WebAuthn L3 §8.6): U2F security keys used through WebAuthn.
///
/// The signed data is the U2F registration layout, rebuilt from authenticator data; the key is always P-256.
public struct FIDOU2FAttestation: AttestationStatementVerifier {
    public let trustAnchors: TrustAnchors

    public init(trustAnchors: TrustAnchors = .empty) { self.trustAnchors = trustAnchors }
    public var format: AttestationFormat { .fidoU2F }

    /// The reserved byte that starts U2F verification data (FIDO U2F Raw Message Formats §4.3).
    static let reservedByte: UInt8 = 0x00
    /// The uncompressed-point marker of the ANSI X9.62 encoding (SEC 1 §2.3.3).
    static let uncompressedPoint: UInt8 = 0x04

    public func verify(_ input: AttestationVerificationInput) throws(WebAuthnError) -> VerifiedAttestation {
        // WebAuthn L3 §8.6 step 1: attStmt is {x5c, sig}; decode the fields.
        let statement = try StatementReader(input)
        let sig = try statement.bytes("sig")
        let (leaf, chain) = try statement.requiredCertificateChain()
        // WebAuthn L3 §8.6 step 2: "Check that x5c has exactly one element".
        guard chain.count == 1 else {
            throw WebAuthnError(
                .attestationInvalid, "fido-u2f x5c must hold exactly one certificate", expected: "1", received: "\(chain.count)")
        }
        // WebAuthn L3 §8.6 step 2: the certificate public key must be an EC public key over the P-256 curve.
        guard P256.Signing.PublicKey(leaf.certificate.publicKey) != nil else {
            throw WebAuthnError(
                .attestationInvalid, "fido-u2f attestation certificate key must be an EC P-256 key",
                received: "\(leaf.certificate.publicKey)")
        }
        // WebAuthn L3 §8.6 steps 3-4: rpIdHash and credentialId come from authenticator data; the credential public
        // key must be EC2 P-256 and is converted to the raw ANSI X9.62 form.
        guard case .ec2(let curve, let x, let y) = input.credential.credentialPublicKey.parameters, curve == .p256 else {
            throw WebAuthnError(
                .attestationInvalid, "fido-u2f requires an EC2 P-256 credential public key",
                received: "\(input.credential.credentialPublicKey.keyType)")
        }
        let publicKeyU2F = [Self.uncompressedPoint] + x + y
        // A U2F key has no AAGUID: the client that turns its U2F registration into authenticator data writes 16 zero
        // bytes (the WebAuthn working group's decision in w3c/webauthn#506; CTAP2's mapping of a CTAP1/U2F registration
        // does the same). The AAGUID is outside the U2F signature, so nothing else would notice one put there; FIDO's
        // conformance tests refuse it.
        guard input.credential.aaguid.isZero else {
            throw WebAuthnError(
                .attestationInvalid, "fido-u2f authenticator data must carry an all-zero AAGUID",
                expected: AAGUID.zero.description, received: input.credential.aaguid.description)
        }
        // WebAuthn L3 §8.6 step 5: verificationData = 0x00 ‖ rpIdHash ‖ clientDataHash ‖ credentialId ‖ publicKeyU2F.
        let verificationData = [Self.reservedByte] + input.authenticatorData.rpIDHash + input.clientDataHash
            + input.credential.credentialID + publicKeyU2F
        // WebAuthn L3 §8.6 step 6: sig verifies over verificationData with the certificate key (ECDSA P-256 SHA-256).
        let verifier = try CertificateKey.verifier(for: leaf.certificate, algorithm: .es256, role: "fido-u2f attestation certificate")
        try CertificateKey.verify(sig, over: verificationData, with: verifier, format: format, role: "attestation certificate")

        // WebAuthn L3 §8.6 steps 7-8: attestation type Basic or AttCA (indistinguishable here; Basic is reported),
        // trust path x5c, evaluated against the roots configured for fido-u2f.
        let trust = try CertificateChainVerifier(roots: trustAnchors.roots(for: format, aaguid: input.credential.aaguid, leaf: leaf.certificate), validationTime: input.validationTime)
            .evaluate(chain, format: format)
        return VerifiedAttestation(
            format: format, type: .basic, trustPath: chain.trustPath, trust: trust, statementAlgorithm: .es256,
            details: ["subject": leaf.certificate.subject.description])
    }
}
