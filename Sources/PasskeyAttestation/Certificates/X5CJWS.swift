import Crypto
import PasskeyCore
import PasskeyWire

/// A JWS in compact serialization (RFC 7515 §7.1) whose header carries its signing certificate chain (`x5c`,
/// RFC 7515 §4.1.6): a SafetyNet attestation response, and the FIDO Metadata Service's BLOB.
struct X5CJWS: Sendable {
    /// `BASE64URL(header) '.' BASE64URL(payload) '.' BASE64URL(signature)`.
    static let partCount = 3

    /// What the JWS is, for messages (`android-safetynet`, `metadata BLOB`).
    let subject: String
    let algorithm: String
    /// DER certificates from the header, leaf first (standard base64 in the header, RFC 7515 §4.1.6).
    let certificates: [[UInt8]]
    /// The payload part as received (base64url), read by ``payload()`` once the signature verified: nothing
    /// an unsigned sender wrote is parsed beyond the header.
    let payloadPart: ArraySlice<UInt8>
    /// The ASCII bytes the signature covers: `header '.' payload` exactly as received.
    let signingInput: [UInt8]
    let signature: [UInt8]

    /// - Parameter subject: what the JWS is, for messages (`android-safetynet`, `metadata BLOB`).
    init(_ bytes: [UInt8], subject: String) throws(WebAuthnError) {
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        var iterator = parts.makeIterator()
        guard parts.count == Self.partCount, let headerPart = iterator.next(), let payloadPart = iterator.next(),
            let signaturePart = iterator.next()
        else {
            throw WebAuthnError(
                .attestationInvalid, "\(subject) is not a compact JWS", expected: "3 dot-separated parts", received: "\(parts.count) parts")
        }
        let header = try Self.object(headerPart, "header", subject)
        guard let algorithm = header["alg"]?.stringValue else {
            throw WebAuthnError(.attestationInvalid, "\(subject) JWS header has no \"alg\"")
        }
        guard let x5c = header["x5c"]?.arrayValue, !x5c.isEmpty else {
            throw WebAuthnError(.attestationInvalid, "\(subject) JWS header has no \"x5c\" certificate chain")
        }
        var certificates: [[UInt8]] = []
        for (index, entry) in x5c.enumerated() {
            guard let text = entry.stringValue, let der = Base64URL.decodeStandard(text) else {
                throw WebAuthnError(.attestationInvalid, "\(subject) JWS x5c[\(index)] is not a base64 certificate")
            }
            certificates.append(der)
        }
        self.subject = subject
        self.algorithm = algorithm
        self.certificates = certificates
        self.payloadPart = payloadPart
        guard let signature = Base64URL.decode(String(decoding: signaturePart, as: UTF8.self)) else {
            throw WebAuthnError(.attestationInvalid, "\(subject) JWS signature is not base64url")
        }
        self.signature = signature
        signingInput = Array(headerPart) + [UInt8(ascii: ".")] + Array(payloadPart)
    }

    /// The payload as a JSON object: to be read after the signature verified.
    func payload() throws(WebAuthnError) -> JSONObject { try Self.object(payloadPart, "payload", subject) }

    /// Decodes one base64url part as a JSON object.
    static func object(_ part: ArraySlice<UInt8>, _ name: String, _ subject: String) throws(WebAuthnError) -> JSONObject {
        guard let bytes = Base64URL.decode(String(decoding: part, as: UTF8.self)) else {
            throw WebAuthnError(.attestationInvalid, "\(subject) JWS \(name) is not base64url")
        }
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch {
            throw WebAuthnError(.attestationInvalid, "\(subject) JWS \(name) is not JSON: \(error.description)")
        }
        guard let object = value.objectValue else {
            throw WebAuthnError(.attestationInvalid, "\(subject) JWS \(name) is not a JSON object", received: value.typeName)
        }
        return object
    }

    /// The JWS algorithm as COSE, and the signature in the encoding `SignatureVerifier` takes.
    ///
    /// RS256 signatures are used as they are; ES256 JWS signatures are the raw `r ‖ s` pair (RFC 7518 §3.4) and are
    /// converted to DER, the ECDSA encoding WebAuthn uses.
    func coseSignature() throws(WebAuthnError) -> (COSEAlgorithmIdentifier, [UInt8]) {
        switch algorithm {
        case "RS256":
            return (.rs256, signature)
        case "ES256":
            guard let raw = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else {
                throw WebAuthnError(.attestationInvalid, "\(subject) ES256 JWS signature is not 64 bytes (r ‖ s)")
            }
            return (.es256, Array(raw.derRepresentation))
        default:
            throw WebAuthnError(
                .unsupportedAlgorithm, "\(subject) JWS algorithm is not supported", expected: "RS256, ES256", received: algorithm)
        }
    }
}
