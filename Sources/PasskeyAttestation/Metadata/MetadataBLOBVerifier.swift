public import Foundation
import PasskeyCore
import PasskeyWire
public import X509

/// Verifies a FIDO Metadata Service BLOB (FIDO Metadata Service 3.0 §3.2, "Metadata BLOB object processing rules")
/// against the FIDO root, at a time the caller passes in, and refuses one that would roll back the BLOB in force.
///
/// Pure: no downloads and no clock. Revocation (the CRLs the chain names) is the caller's to fetch and is not checked
/// here yet.
public struct MetadataBLOBVerifier: Sendable {
    /// Larger than any real BLOB by far (about 4 MB at the end of 2024, growing some 10 % a year), small enough that a
    /// hostile download cannot make the server hold hundreds of megabytes.
    public static let maximumSize = 32 * 1024 * 1024

    /// The roots the BLOB's `x5c` chain must reach: the FIDO Alliance's (``fidoRootPEM``) unless replaced by a setting.
    public let roots: [Certificate]
    /// The host names the signing certificate must be issued to, when the root is a public CA's: GlobalSign Root CA -
    /// R3 issues TLS certificates to anyone, so with it only the FIDO Alliance's metadata host may sign. nil: any
    /// certificate under ``roots`` (a metadata service's own CA).
    public let signerNames: Set<String>?

    public init(roots: [Certificate], signerNames: Set<String>? = nil) {
        self.roots = roots
        self.signerNames = signerNames
    }

    /// The roots in `pem` (one or more certificates).
    public init(rootPEM pem: String) throws(MetadataError) {
        do { roots = try TrustAnchors.certificates(pem: pem) } catch {
            throw MetadataError(.malformed, "the metadata root is not a PEM certificate: \(error.reason)")
        }
        guard !roots.isEmpty else { throw MetadataError(.malformed, "the metadata root PEM holds no certificate") }
        signerNames = nil
    }

    /// The verifier for the BLOB FIDO publishes at https://mds3.fidoalliance.org/, with the root that signs it.
    public static func fido() throws(MetadataError) -> MetadataBLOBVerifier {
        MetadataBLOBVerifier(roots: try MetadataBLOBVerifier(rootPEM: fidoRootPEM).roots, signerNames: fidoSignerNames)
    }

    /// The hosts the FIDO Alliance's BLOB signing certificate is issued to (the BLOB of December 2024: CN and
    /// subjectAltName mds.fidoalliance.org).
    public static let fidoSignerNames: Set<String> = ["mds.fidoalliance.org", "mds3.fidoalliance.org"]

    /// Verifies `bytes` (the BLOB as downloaded: a compact JWS) as of `time`.
    /// - Parameter currentNumber: the serial number `no` of the BLOB in force, if any: a BLOB must have a higher one.
    public func verify(_ bytes: [UInt8], at time: Date, replacing currentNumber: Int? = nil) throws(MetadataError) -> MetadataBLOB {
        guard bytes.count <= Self.maximumSize else {
            throw MetadataError(
                .tooLarge, "the metadata BLOB is larger than this server reads", expected: "at most \(Self.maximumSize) bytes",
                received: "\(bytes.count) bytes")
        }
        let subject = "metadata BLOB"
        // FIDO MDS 3.0 §3.2 steps 4–5: a JWS whose header carries x5c (x5u is not followed: nothing is fetched here).
        let jws: X5CJWS
        do { jws = try X5CJWS(bytes, subject: subject) } catch { throw MetadataError(.malformed, error.reason) }
        let chain: [AttestationCertificate]
        do { chain = try AttestationCertificate.chain(jws.certificates, of: subject) } catch {
            throw MetadataError(.malformed, error.reason)
        }
        guard let leaf = chain.first else { throw MetadataError(.malformed, "the metadata BLOB's x5c is empty") }
        // §3.2 step 4: the chain leads to the FIDO root, every certificate valid at `time`.
        let path = CertificateChainVerifier(roots: roots, validationTime: time).verify(leaf: leaf, intermediates: Array(chain.dropFirst()))
        var certificatePath: [Certificate] = []
        switch path {
        case .success(let certificates): certificatePath = certificates
        case .failure(let failure):
            throw MetadataError(
                .untrusted, "the metadata BLOB's certificate chain does not lead to the metadata root at \(time)",
                expected: roots.map { $0.subject.description }.joined(separator: " | "),
                received: failure.reasons.isEmpty ? "no certificate path to the root" : failure.reasons.joined(separator: "; "))
        }
        // Under a public CA's root, only the metadata host's certificate may sign.
        if let signerNames {
            let hostnames = leaf.certificate.hostnames ?? []
            guard hostnames.contains(where: signerNames.contains) else {
                throw MetadataError(
                    .untrusted, "the metadata BLOB's signing certificate is not issued to the metadata service",
                    expected: signerNames.sorted().joined(separator: " or "), received: hostnames.joined(separator: ", "))
            }
        }
        // §3.2 step 6: the signature verifies with the leaf's key, with the header's algorithm.
        let algorithm: COSEAlgorithmIdentifier
        let signature: [UInt8]
        do { (algorithm, signature) = try jws.coseSignature() } catch {
            guard error.code == .unsupportedAlgorithm else { throw MetadataError(.signatureInvalid, error.reason) }
            throw MetadataError(.algorithmUnsupported, error.reason, expected: "RS256, ES256", received: jws.algorithm)
        }
        let verifier: SignatureVerifier
        do { verifier = try CertificateKey.verifier(for: leaf.certificate, algorithm: algorithm, role: "metadata signing certificate") } catch {
            throw MetadataError(.signatureInvalid, error.reason)
        }
        guard verifier.isValidSignature(signature, for: jws.signingInput) else {
            throw MetadataError(.signatureInvalid, "the metadata BLOB's signature (\(jws.algorithm)) does not verify with its x5c leaf key")
        }
        let payload: JSONObject
        do { payload = try jws.payload() } catch { throw MetadataError(.malformed, error.reason) }
        var blob = try MetadataBLOB(payload: payload)
        blob.certificatePath = certificatePath
        // §3.2 step 7: a BLOB whose `no` is not higher than the one in force is ignored; refused here, so a replayed old
        // BLOB cannot hide a compromise reported since.
        if let currentNumber, blob.number <= currentNumber {
            throw MetadataError(
                .rolledBack, "the metadata BLOB is not newer than the one in force", expected: "no > \(currentNumber)",
                received: "no = \(blob.number)")
        }
        return blob
    }
}
