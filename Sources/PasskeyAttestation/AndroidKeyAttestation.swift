public import PasskeyCore
public import PasskeyWire
import X509

/// The `android-key` attestation statement format (WebAuthn L3 §8.4): keys generated in Android Keystore, attested by
/// the device's key attestation chain (Google Hardware Attestation roots).
public struct AndroidKeyAttestation: AttestationStatementVerifier {
    /// Relying-party policy for the authorization lists.
    public struct Options: Sendable, Hashable {
        /// Read origin and purpose from the TEE-enforced list only (keys from a trusted execution environment or
        /// StrongBox). Off by default: §8.4 then uses the union of the TEE- and software-enforced lists.
        public var requireTrustedExecutionEnvironment: Bool

        public init(requireTrustedExecutionEnvironment: Bool = false) {
            self.requireTrustedExecutionEnvironment = requireTrustedExecutionEnvironment
        }
    }

    public let trustAnchors: TrustAnchors
    public let options: Options

    public init(trustAnchors: TrustAnchors = .empty, options: Options = .init()) {
        self.trustAnchors = trustAnchors
        self.options = options
    }

    public var format: AttestationFormat { .androidKey }

    /// KM_ORIGIN_GENERATED: the key was generated inside Keystore.
    static let originGenerated = 0
    /// KM_PURPOSE_SIGN.
    static let purposeSign = 2

    public func verify(_ input: AttestationVerificationInput) throws(WebAuthnError) -> VerifiedAttestation {
        // WebAuthn L3 §8.4 step 1: attStmt is {alg, sig, x5c}; decode the fields.
        let statement = try StatementReader(input)
        let alg = try statement.algorithm()
        let sig = try statement.bytes("sig")
        let (leaf, chain) = try statement.requiredCertificateChain()

        // WebAuthn L3 §8.4 step 2: sig verifies over authenticatorData ‖ clientDataHash with the first certificate's key and alg.
        let verifier = try CertificateKey.verifier(for: leaf.certificate, algorithm: alg, role: "android-key attestation certificate")
        try CertificateKey.verify(sig, over: input.signedData, with: verifier, format: format, role: "attestation certificate")

        // WebAuthn L3 §8.4 step 3: the first certificate's public key matches the credential public key.
        guard CertificateKey.matches(leaf.certificate, credential: input.credential.credentialPublicKey) else {
            throw WebAuthnError(.attestationInvalid, "android-key attestation certificate key is not the credential public key")
        }

        guard let ext = leaf.certificate.extensions[oid: AttestationOID.androidKeyDescription] else {
            throw WebAuthnError(.attestationInvalid, "android-key attestation certificate has no key description extension (1.3.6.1.4.1.11129.2.1.17)")
        }
        let description = try KeyDescription(extensionValue: ext.value)
        // WebAuthn L3 §8.4 step 4: attestationChallenge is identical to clientDataHash.
        guard constantTimeEqual(description.attestationChallenge, input.clientDataHash) else {
            throw WebAuthnError(
                .attestationInvalid, "android-key attestationChallenge is not the clientDataHash",
                expected: input.clientDataHash.hexString, received: description.attestationChallenge.hexString)
        }
        // WebAuthn L3 §8.4 step 5: allApplications is absent from both lists (the credential must be scoped to the RP ID).
        guard !description.softwareEnforced.allApplications, !description.teeEnforced.allApplications else {
            throw WebAuthnError(.attestationInvalid, "android-key key is usable by all applications (allApplications present)")
        }
        // WebAuthn L3 §8.4 step 5: teeEnforced only if the RP accepts only TEE keys, otherwise the union of both lists.
        let lists = options.requireTrustedExecutionEnvironment
            ? [description.teeEnforced] : [description.teeEnforced, description.softwareEnforced]
        let origins = lists.compactMap(\.origin)
        // WebAuthn L3 §8.4 step 5: origin is KM_ORIGIN_GENERATED.
        guard !origins.isEmpty, origins.allSatisfy({ $0 == Self.originGenerated }) else {
            throw WebAuthnError(
                .attestationInvalid, "android-key key origin is not KM_ORIGIN_GENERATED",
                expected: "\(Self.originGenerated)", received: origins.isEmpty ? "absent" : origins.map(String.init).joined(separator: ", "))
        }
        // WebAuthn L3 §8.4 step 5: purpose is KM_PURPOSE_SIGN (every purpose listed, and at least one).
        let purposes = lists.flatMap(\.purposes)
        guard !purposes.isEmpty, purposes.allSatisfy({ $0 == Self.purposeSign }) else {
            throw WebAuthnError(
                .attestationInvalid, "android-key key purpose is not KM_PURPOSE_SIGN only",
                expected: "\(Self.purposeSign)", received: purposes.isEmpty ? "absent" : purposes.map(String.init).joined(separator: ", "))
        }

        // WebAuthn L3 §8.4 step 6: attestation type Basic, trust path x5c.
        let trust = try CertificateChainVerifier(roots: trustAnchors.roots(for: format, aaguid: input.credential.aaguid, leaf: leaf.certificate), validationTime: input.validationTime)
            .evaluate(chain, format: format)
        return VerifiedAttestation(
            format: format, type: .basic, trustPath: chain.trustPath, trust: trust, statementAlgorithm: alg,
            details: ["attestationVersion": "\(description.attestationVersion)"])
    }
}
