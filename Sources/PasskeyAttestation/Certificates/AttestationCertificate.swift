import PasskeyCore
import PasskeyWire
import X509
import SwiftASN1

/// One certificate of an attestation trust path: the parsed certificate plus the exact bytes it came in.
///
/// The original bytes are kept for two reasons: the trust path is reported as DER, and a certificate read through the
/// lenient path (below) must still have its signature checked over the `tbsCertificate` bytes its issuer signed, not
/// over a re-encoding.
struct AttestationCertificate: Sendable {
    /// The certificate as received.
    let der: [UInt8]
    let certificate: Certificate
    /// The original `tbsCertificate` encoding: what the issuer signed.
    let toBeSigned: [UInt8]
    /// The original `signatureValue` bits.
    let signature: [UInt8]

    /// Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue } (RFC 5280 §4.1).
    static let certificateMemberCount = 3

    /// Parses one certificate of `x5c` (or of a SafetyNet JWS header).
    ///
    /// Strict DER first. Real attestation certificates are not always DER, so two lenient readings follow, each
    /// touching only what the strict reader refuses:
    /// 1. BER node parsing, for alternative encodings of the outer structure.
    /// 2. A negative serial number (RFC 5280 §4.1.2.2: "Non-conforming CAs may issue certificates with serial numbers
    ///    that are negative or zero. Certificate users SHOULD be prepared to gracefully handle such certificates.";
    ///    the FIDO conformance TPM intermediate has one) is read as a positive one of the same length. The serial is
    ///    not used by attestation, and the signature is still checked over the original bytes.
    /// Explicitly encoded DEFAULT values inside extensions (the Chrome virtual authenticator's `cA FALSE`) need no
    /// fallback here: extension values stay opaque until a reader such as `attestationBasicConstraints()` decodes them.
    init(der: [UInt8], what: String) throws(WebAuthnError) {
        self.der = der
        let invalid = WebAuthnError(.attestationInvalid, "\(what) is not a valid X.509 certificate")
        guard let parts = Self.signedParts(der) else { throw invalid }
        toBeSigned = parts.toBeSigned
        signature = parts.signature
        if let strict = try? Certificate(derEncoded: der) {
            certificate = strict
        } else if let node = try? BER.parse(der), let lenient = try? Certificate(derEncoded: node) {
            certificate = lenient
        } else if let repaired = Self.withPositiveSerialNumber(der), let lenient = try? Certificate(derEncoded: repaired) {
            certificate = lenient
        } else {
            throw invalid
        }
    }

    /// The original tbsCertificate bytes and signature bits, read from the outer structure alone.
    static func signedParts(_ der: [UInt8]) -> (toBeSigned: [UInt8], signature: [UInt8])? {
        guard let root = try? BER.parse(der), root.identifier == .sequence, case .constructed(let children) = root.content else {
            return nil
        }
        let members = Array(children)
        guard members.count == certificateMemberCount, let tbs = members.first, let signatureNode = members.last,
            tbs.identifier == .sequence, let bits = try? ASN1BitString(derEncoded: signatureNode)
        else { return nil }
        return (Array(tbs.encodedBytes), Array(bits.bytes))
    }

    /// A copy of `der` whose negative serial number is made positive in place (first content byte set to 0x7F, which
    /// keeps the length and the minimal INTEGER encoding); `nil` when the serial is not negative.
    static func withPositiveSerialNumber(_ der: [UInt8]) -> [UInt8]? {
        let signBit: UInt8 = 0x80
        let largestPositiveLeadingByte: UInt8 = 0x7F
        guard let root = try? BER.parse(der), case .constructed(let members) = root.content,
            let tbs = Array(members).first, case .constructed(let fields) = tbs.content
        else { return nil }
        // tbsCertificate: [0] version (optional), then serialNumber INTEGER.
        guard let serial = fields.first(where: { $0.identifier == .integer }), case .primitive(let content) = serial.content,
            let first = content.first, first & signBit != 0, der.indices.contains(content.startIndex)
        else { return nil }
        var repaired = der
        repaired[content.startIndex] = largestPositiveLeadingByte
        return repaired
    }

    /// Parses every certificate of an x5c array, leaf first.
    static func chain(_ certificates: [[UInt8]], format: AttestationFormat) throws(WebAuthnError) -> [AttestationCertificate] {
        try chain(certificates, of: "\(format)")
    }

    /// Parses every certificate of an x5c array, leaf first; `subject` names its owner in messages.
    static func chain(_ certificates: [[UInt8]], of subject: String) throws(WebAuthnError) -> [AttestationCertificate] {
        var parsed: [AttestationCertificate] = []
        for (index, der) in certificates.enumerated() {
            parsed.append(try AttestationCertificate(der: der, what: "\(subject) x5c[\(index)]"))
        }
        return parsed
    }

    /// Whether `issuer` names this certificate's issuer and its key verifies this certificate's original signature.
    func isIssued(by issuer: Certificate) -> Bool {
        guard issuer.subject == certificate.issuer else { return false }
        return issuer.publicKey.isValidSignature(signature, for: toBeSigned, signatureAlgorithm: certificate.signatureAlgorithm)
    }

    /// Subject equals issuer and the certificate's own key verifies it.
    var isSelfIssued: Bool { isIssued(by: certificate) }
}
