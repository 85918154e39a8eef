import Foundation
import PasskeyCore
import X509
import SwiftASN1

/// The checks applied to a candidate attestation certificate path (leaf first, root last), RFC 5280 §6.1 reduced to
/// what attestation needs.
///
/// Checked: every certificate is valid at `validationTime`; every issuer is a CA by its basic constraints, within its
/// path length; no certificate carries a critical extension outside ``toleratedCriticalExtensions``. Signatures are
/// checked while the path is built. Not checked: extended key usage (attestation certificates are not TLS
/// certificates; each format checks the usages its spec requires on the leaf), key usage (as in swift-certificates'
/// RFC 5280 policy: CAs mark it inconsistently and CA=TRUE already says the key certifies), revocation.
struct AttestationChainPolicy: Sendable {
    let validationTime: Date

    /// Critical extensions a path may carry.
    ///
    /// basicConstraints is enforced here; keyUsage as explained above; extendedKeyUsage and subjectAltName are read by
    /// the formats that define them (TPM AIK certificates have an empty subject and therefore a critical SAN);
    /// certificatePolicies is tolerated because Windows Hello AIK certificates mark it critical and attestation does
    /// not depend on policy qualifiers.
    static let toleratedCriticalExtensions: Set<ASN1ObjectIdentifier> = [
        .X509ExtensionID.basicConstraints,
        .X509ExtensionID.keyUsage,
        .X509ExtensionID.extendedKeyUsage,
        .X509ExtensionID.subjectAlternativeName,
        AttestationOID.certificatePolicies,
    ]

    struct Rejection: Error {
        let message: String
    }

    /// Checks a complete candidate path.
    func evaluate(_ path: [Certificate]) -> Result<Void, Rejection> {
        for (index, certificate) in path.enumerated() {
            let name = index == 0 ? "leaf" : (index == path.count - 1 ? "root" : "intermediate \(index)")
            // RFC 5280 §6.1.3 (a)(2): the certificate validity period includes the validation time.
            guard certificate.notValidBefore <= validationTime, validationTime <= certificate.notValidAfter else {
                return .failure(Rejection(message:
                    "\(name) \(certificate.subject) is not valid at \(validationTime) (valid \(certificate.notValidBefore) – \(certificate.notValidAfter))"))
            }
            // RFC 5280 §4.2: a certificate with a critical extension the verifier does not process must be rejected.
            for ext in certificate.extensions where ext.critical && !Self.toleratedCriticalExtensions.contains(ext.oid) {
                return .failure(Rejection(message: "\(name) \(certificate.subject) has an unhandled critical extension \(ext.oid)"))
            }
            guard index > 0 else { continue }
            // RFC 5280 §6.1.4 (k): an issuing certificate must be a CA. A v1 trust anchor without extensions is
            // accepted as configured (§6.1.1 (d): trust anchor information is trusted as given).
            let constraints: AttestationBasicConstraints?
            do { constraints = try certificate.attestationBasicConstraints() } catch {
                return .failure(Rejection(message: "\(name) \(certificate.subject) has malformed basic constraints"))
            }
            let isTrustAnchorWithoutExtensions = index == path.count - 1 && certificate.version == .v1
            guard let constraints, constraints.isCA else {
                if isTrustAnchorWithoutExtensions && constraints == nil { continue }
                return .failure(Rejection(message: "\(name) \(certificate.subject) issues certificates but is not a CA"))
            }
            // RFC 5280 §6.1.4 (m): pathLenConstraint bounds the number of non-self-issued intermediates below this CA.
            let intermediatesBelow = index - 1
            if let maximum = constraints.pathLength, intermediatesBelow > maximum {
                return .failure(Rejection(message:
                    "\(name) \(certificate.subject) allows \(maximum) intermediate certificates below it, the path has \(intermediatesBelow)"))
            }
        }
        return .success(())
    }
}
