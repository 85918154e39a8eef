public import PasskeyCore
public import PasskeyWire
import X509
import SwiftASN1
import Crypto

/// The `apple` anonymous attestation statement format (WebAuthn L3 §8.8): Apple platform authenticators.
///
/// There is no signature: Apple's anonymization CA issues a fresh certificate for the credential key and binds it to
/// this ceremony with a nonce extension, so the certificate itself is the proof.
public struct AppleAttestation: AttestationStatementVerifier {
    public let trustAnchors: TrustAnchors

    public init(trustAnchors: TrustAnchors = .empty) { self.trustAnchors = trustAnchors }
    public var format: AttestationFormat { .apple }

    /// The nonce is `[1] EXPLICIT OCTET STRING` inside the extension's SEQUENCE.
    static let nonceTag = ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)

    public func verify(_ input: AttestationVerificationInput) throws(WebAuthnError) -> VerifiedAttestation {
        // WebAuthn L3 §8.8 step 1: attStmt is {x5c} (browsers also send alg); decode the fields.
        let statement = try StatementReader(input)
        let (leaf, chain) = try statement.requiredCertificateChain()
        let alg = statement.has("alg") ? try statement.algorithm() : nil

        // WebAuthn L3 §8.8 steps 2-3: nonce = SHA-256(authenticatorData ‖ clientDataHash).
        let nonce = Array(SHA256.hash(data: input.signedData))
        // WebAuthn L3 §8.8 step 4: nonce equals the value of extension 1.2.840.113635.100.8.2 in credCert.
        let certified = try Self.nonce(in: leaf.certificate)
        guard constantTimeEqual(certified, nonce) else {
            throw WebAuthnError(
                .attestationInvalid, "apple attestation certificate nonce does not match SHA-256(authenticatorData ‖ clientDataHash)",
                expected: nonce.hexString, received: certified.hexString)
        }
        // WebAuthn L3 §8.8 step 5: the credential public key equals the Subject Public Key of credCert.
        guard CertificateKey.matches(leaf.certificate, credential: input.credential.credentialPublicKey) else {
            throw WebAuthnError(.attestationInvalid, "apple attestation certificate key is not the credential public key")
        }
        // WebAuthn L3 §8.8 step 6: attestation type Anonymization CA, trust path x5c.
        let trust = try CertificateChainVerifier(roots: trustAnchors.roots(for: format, aaguid: input.credential.aaguid, leaf: leaf.certificate), validationTime: input.validationTime)
            .evaluate(chain, format: format)
        return VerifiedAttestation(format: format, type: .anonCA, trustPath: chain.trustPath, trust: trust, statementAlgorithm: alg)
    }

    /// Reads the nonce extension: `SEQUENCE { [1] EXPLICIT OCTET STRING }`.
    static func nonce(in certificate: Certificate) throws(WebAuthnError) -> [UInt8] {
        guard let ext = certificate.extensions[oid: AttestationOID.appleNonce] else {
            throw WebAuthnError(.attestationInvalid, "apple attestation certificate has no nonce extension (1.2.840.113635.100.8.2)")
        }
        let malformed = WebAuthnError(.attestationInvalid, "apple attestation nonce extension is malformed")
        do {
            let root = try DER.parse(ext.value)
            guard root.identifier == .sequence, case .constructed(let children) = root.content else { throw malformed }
            var iterator = children.makeIterator()
            guard let tagged = iterator.next(), tagged.identifier == nonceTag, iterator.next() == nil,
                case .constructed(let inner) = tagged.content
            else { throw malformed }
            var innerIterator = inner.makeIterator()
            guard let octets = innerIterator.next(), innerIterator.next() == nil else { throw malformed }
            return Array(try ASN1OctetString(derEncoded: octets).bytes)
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw malformed
        }
    }
}
