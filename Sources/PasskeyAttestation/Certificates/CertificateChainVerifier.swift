import Foundation
import PasskeyCore
import PasskeyWire
import X509
import SwiftASN1

/// Verifies an attestation trust path (x5c, leaf first) to the roots configured for a format, at a given time.
///
/// Why not swift-certificates' `Verifier`: its `validate` is `async`, while attestation verification is synchronous
/// (`AttestationStatementVerifier.verify` is called from the synchronous registration ceremony). Bridging with a
/// semaphore can deadlock the cooperative thread pool, so this type builds the path itself — a small depth-first
/// search over the x5c certificates, preferring a configured root at every step as `Verifier` does — and uses
/// swift-certificates for parsing and for every signature check (which covers sha1WithRSAEncryption, the TPM/U2F-era
/// algorithm). Each link is checked over the certificate's original `tbsCertificate` bytes, so certificates read
/// through the lenient path of ``AttestationCertificate`` are held to their real signatures.
///
/// The policy suits attestation certificates rather than TLS (see ``AttestationChainPolicy``): validity at
/// `validationTime`, signatures, CA basic constraints and path length; no extended key usage requirement; the critical
/// extensions attestation certificates carry are tolerated.
struct CertificateChainVerifier: Sendable {
    /// Longest path considered, root included: attestation paths are short (TPM: AIK, intermediate, root).
    static let maximumPathLength = 8
    /// Most signature checks one search makes. Real chains need a handful; certificates made to issue each other in a
    /// circle (A and B under one name, each signed by the other's key) would otherwise make the search exponential in
    /// x5c's length, on input anyone who can start a registration sends.
    static let maximumSignatureChecks = 64

    let roots: [Certificate]
    let policy: AttestationChainPolicy

    init(roots: [Certificate], validationTime: Date) {
        self.roots = roots
        policy = AttestationChainPolicy(validationTime: validationTime)
    }

    /// Verifies `chain` (leaf first) and returns the trust outcome for a format.
    ///
    /// - Returns: `.noTrustAnchors` when no roots are configured (the chain is not evaluated), `.trusted(root:)` otherwise.
    /// - Throws: `attestation_untrusted` when roots are configured and no path from the leaf reaches one of them.
    func evaluate(_ chain: [AttestationCertificate], format: AttestationFormat) throws(WebAuthnError) -> AttestationTrust {
        guard !roots.isEmpty else { return .noTrustAnchors }
        guard let leaf = chain.first else {
            throw WebAuthnError(.attestationInvalid, "\(format) attestation has an empty certificate chain")
        }
        switch verify(leaf: leaf, intermediates: Array(chain.dropFirst())) {
        case .success(let path):
            guard let root = path.last else { return .noTrustAnchors }
            return .trusted(root: root.subject.description)
        case .failure(let failure):
            let reasons = failure.reasons
            throw WebAuthnError(
                .attestationUntrusted,
                "\(format) attestation certificate chain does not verify to a configured root at the validation time",
                expected: roots.map { $0.subject.description }.joined(separator: " | "),
                received: reasons.isEmpty ? "no certificate path to a configured root" : reasons.joined(separator: "; "))
        }
    }

    /// Why no path was found: one reason per rejected candidate path.
    struct Failure: Error {
        var reasons: [String]
    }

    /// Builds and checks a path from `leaf` through `intermediates` to a root.
    func verify(leaf: AttestationCertificate, intermediates: [AttestationCertificate]) -> Result<[Certificate], Failure> {
        var reasons: [String] = []
        // A leaf that is itself a configured root is trusted directly (still subject to the policy: validity at the time).
        if roots.contains(leaf.certificate) {
            switch policy.evaluate([leaf.certificate]) {
            case .success: return .success([leaf.certificate])
            case .failure(let reason): reasons.append(reason.message)
            }
        }
        // A self-signed certificate inside x5c is never a trust anchor, and never needed as a link: the configured root
        // with the same subject is found first. Leaving them out keeps an attacker's self-made "root" out of every path.
        let links = intermediates.filter { !$0.isSelfIssued }
        var signatureChecks = 0
        // Whether `issuer` issued `tip`: names first (free), then the signature, counted against the budget.
        func issued(_ tip: AttestationCertificate, by issuer: Certificate) -> Bool {
            guard issuer.subject == tip.certificate.issuer, signatureChecks < Self.maximumSignatureChecks else { return false }
            signatureChecks += 1
            return tip.isIssued(by: issuer)
        }
        var partialPaths: [[AttestationCertificate]] = [[leaf]]
        while let path = partialPaths.popLast() {
            guard let tip = path.last else { continue }
            let certificates = path.map(\.certificate)
            for root in roots where !certificates.contains(root) && issued(tip, by: root) {
                let candidate = certificates + [root]
                switch policy.evaluate(candidate) {
                case .success: return .success(candidate)
                case .failure(let reason): reasons.append(reason.message)
                }
            }
            guard path.count + 1 < Self.maximumPathLength else { continue }
            for link in links.reversed() where !path.contains(where: { $0.der == link.der }) && issued(tip, by: link.certificate) {
                partialPaths.append(path + [link])
            }
        }
        if signatureChecks >= Self.maximumSignatureChecks {
            reasons.append("the search for a path stopped after \(Self.maximumSignatureChecks) signature checks")
        }
        return .failure(Failure(reasons: reasons))
    }
}
