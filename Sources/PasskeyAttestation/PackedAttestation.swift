public import PasskeyCore
public import PasskeyWire
import X509
import SwiftASN1

/// The `packed` attestation statement format (WebAuthn L3 §8.2): the format of most FIDO2 security keys.
///
/// With `x5c` the statement is signed by a batch attestation key whose certificate must meet §8.2.1 (type Basic; a
/// relying party cannot tell Basic from AttCA without metadata, so Basic is reported). Without `x5c` it is self
/// attestation, signed by the credential key itself.
public struct PackedAttestation: AttestationStatementVerifier {
    public let trustAnchors: TrustAnchors

    public init(trustAnchors: TrustAnchors = .empty) { self.trustAnchors = trustAnchors }
    public var format: AttestationFormat { .packed }

    /// §8.2.1: the literal Subject-OU of a packed attestation certificate.
    static let attestationOrganizationalUnit = "Authenticator Attestation"
    /// ISO 3166-1 alpha-2 country codes have two letters.
    static let countryCodeLength = 2

    public func verify(_ input: AttestationVerificationInput) throws(WebAuthnError) -> VerifiedAttestation {
        // WebAuthn L3 §8.2 step 1: attStmt is {alg, sig, x5c?}; decode the fields.
        let statement = try StatementReader(input)
        let alg = try statement.algorithm()
        let sig = try statement.bytes("sig")
        guard let chain = try statement.certificateChain(), let leaf = chain.first else {
            return try verifySelf(input, alg: alg, sig: sig)
        }

        // WebAuthn L3 §8.2 step 2: sig is a valid signature over authenticatorData ‖ clientDataHash with the
        // attestation certificate's public key and alg.
        let verifier = try CertificateKey.verifier(for: leaf.certificate, algorithm: alg, role: "packed attestation certificate")
        try CertificateKey.verify(sig, over: input.signedData, with: verifier, format: format, role: "attestation certificate")

        // WebAuthn L3 §8.2 step 2: attestnCert meets the requirements of §8.2.1.
        try Self.checkCertificateRequirements(leaf.certificate)

        // WebAuthn L3 §8.2 step 2: if attestnCert has id-fido-gen-ce-aaguid, its value matches the aaguid in authData
        // (and §8.2.1: the extension is not critical).
        try leaf.certificate.checkFIDOAAGUIDExtension(matches: input.credential.aaguid, format: "packed")

        // WebAuthn L3 §8.2 step 2: trust path x5c, evaluated against the roots configured for packed (§7.1 step 23).
        let trust = try CertificateChainVerifier(roots: trustAnchors.roots(for: format, aaguid: input.credential.aaguid, leaf: leaf.certificate), validationTime: input.validationTime)
            .evaluate(chain, format: format)
        return VerifiedAttestation(
            format: format, type: .basic, trustPath: chain.trustPath, trust: trust, statementAlgorithm: alg,
            details: ["subject": leaf.certificate.subject.description])
    }

    /// WebAuthn L3 §8.2 step 3: self attestation.
    func verifySelf(_ input: AttestationVerificationInput, alg: COSEAlgorithmIdentifier, sig: [UInt8]) throws(WebAuthnError)
        -> VerifiedAttestation
    {
        let key = input.credential.credentialPublicKey
        // WebAuthn L3 §8.2 step 3: alg matches the algorithm of the credentialPublicKey in authenticatorData.
        guard alg == key.algorithm else {
            throw WebAuthnError(
                .attestationInvalid, "packed self attestation alg differs from the credential public key algorithm",
                expected: "\(key.algorithm.rawValue)", received: "\(alg.rawValue)")
        }
        // Whether the credential algorithm is acceptable is the ceremony's decision (allowed algorithms, legacy
        // switch); here the key only has to verify its own signature.
        let verifier = try key.makeVerifier(allowLegacyAlgorithms: true)
        // WebAuthn L3 §8.2 step 3: sig is a valid signature over authenticatorData ‖ clientDataHash with the credential key.
        guard verifier.isValidSignature(sig, for: input.signedData) else {
            throw WebAuthnError(
                .attestationInvalid, "packed self attestation signature does not verify with the credential public key (\(alg))")
        }
        return VerifiedAttestation(format: format, type: .self, trust: .notApplicable, statementAlgorithm: alg)
    }

    /// WebAuthn L3 §8.2.1 Certificate Requirements for Packed Attestation Statements.
    static func checkCertificateRequirements(_ certificate: Certificate) throws(WebAuthnError) {
        // §8.2.1: "Version MUST be set to 3".
        guard certificate.version == .v3 else {
            throw WebAuthnError(
                .attestationInvalid, "packed attestation certificate must be X.509 version 3", expected: "v3",
                received: "\(certificate.version)")
        }
        let subject = certificate.subject
        // §8.2.1: Subject-C is an ISO 3166 country code.
        let countries = Certificate.strings(.RDNAttributeType.countryName, in: subject)
        guard countries.count == 1, let country = countries.first, country.count == countryCodeLength,
            country.allSatisfy({ $0.isASCII && $0.isLetter })
        else {
            throw WebAuthnError(
                .attestationInvalid, "packed attestation certificate subject must have one C (ISO 3166 country code)",
                received: subject.description)
        }
        // §8.2.1: Subject-O is the legal name of the vendor.
        guard let organization = Certificate.strings(.RDNAttributeType.organizationName, in: subject).first,
            !organization.isEmpty
        else {
            throw WebAuthnError(.attestationInvalid, "packed attestation certificate subject must have an O", received: subject.description)
        }
        // §8.2.1: Subject-OU is the literal "Authenticator Attestation".
        let units = Certificate.strings(.RDNAttributeType.organizationalUnitName, in: subject)
        guard units == [attestationOrganizationalUnit] else {
            throw WebAuthnError(
                .attestationInvalid, "packed attestation certificate subject OU must be \"\(attestationOrganizationalUnit)\"",
                expected: attestationOrganizationalUnit, received: units.joined(separator: ", "))
        }
        // §8.2.1: Subject-CN is a string of the vendor's choosing (present).
        guard let commonName = Certificate.strings(.RDNAttributeType.commonName, in: subject).first, !commonName.isEmpty else {
            throw WebAuthnError(.attestationInvalid, "packed attestation certificate subject must have a CN", received: subject.description)
        }
        // §8.2.1: "The Basic Constraints extension MUST have the CA component set to false." An absent extension
        // means cA FALSE (RFC 5280 §4.2.1.9), which is what the requirement protects.
        if let constraints = try certificate.attestationBasicConstraints(), constraints.isCA {
            throw WebAuthnError(.attestationInvalid, "packed attestation certificate must not be a CA", expected: "CA=FALSE", received: "CA=TRUE")
        }
    }
}
