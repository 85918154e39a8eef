import PasskeyCore
import PasskeyCBOR
import PasskeyWire

/// Reads the members of an attestation statement map, failing with `attestation_invalid` that names the member.
///
/// WebAuthn L3 §8 (each format's "Verification procedure" step 1): "Verify that attStmt is valid CBOR conforming to
/// the syntax defined above and perform CBOR decoding on it to extract the contained fields."
struct StatementReader {
    let map: CBORMap
    let format: AttestationFormat

    init(_ input: AttestationVerificationInput) throws(WebAuthnError) {
        map = try input.statementMap()
        format = input.format
    }

    func has(_ name: String) -> Bool { map[text: name] != nil }

    func bytes(_ name: String) throws(WebAuthnError) -> [UInt8] {
        guard let value = map[text: name] else {
            throw WebAuthnError(.attestationInvalid, "\(format) attStmt has no \"\(name)\"")
        }
        guard case .bytes(let bytes) = value else {
            throw WebAuthnError(.attestationInvalid, "\(format) attStmt \"\(name)\" must be a byte string", received: value.kindName)
        }
        return bytes
    }

    func text(_ name: String) throws(WebAuthnError) -> String {
        guard let value = map[text: name] else {
            throw WebAuthnError(.attestationInvalid, "\(format) attStmt has no \"\(name)\"")
        }
        guard case .text(let text) = value else {
            throw WebAuthnError(.attestationInvalid, "\(format) attStmt \"\(name)\" must be a text string", received: value.kindName)
        }
        return text
    }

    /// `alg`: a COSEAlgorithmIdentifier (an integer).
    func algorithm() throws(WebAuthnError) -> COSEAlgorithmIdentifier {
        guard let value = map[text: "alg"] else {
            throw WebAuthnError(.attestationInvalid, "\(format) attStmt has no \"alg\"")
        }
        guard let integer = value.intValue, let alg = Int(exactly: integer) else {
            throw WebAuthnError(.attestationInvalid, "\(format) attStmt \"alg\" must be an integer", received: value.kindName)
        }
        return COSEAlgorithmIdentifier(rawValue: alg)
    }

    /// `x5c`: a non-empty array of DER certificates, leaf first; `nil` when absent.
    func certificateChain() throws(WebAuthnError) -> [AttestationCertificate]? {
        guard let value = map[text: "x5c"] else { return nil }
        guard case .array(let items) = value else {
            throw WebAuthnError(.attestationInvalid, "\(format) attStmt \"x5c\" must be an array", received: value.kindName)
        }
        guard !items.isEmpty else {
            throw WebAuthnError(.attestationInvalid, "\(format) attStmt \"x5c\" must hold at least one certificate")
        }
        var ders: [[UInt8]] = []
        for (index, item) in items.enumerated() {
            guard case .bytes(let der) = item else {
                throw WebAuthnError(
                    .attestationInvalid, "\(format) attStmt x5c[\(index)] must be a byte string", received: item.kindName)
            }
            ders.append(der)
        }
        return try AttestationCertificate.chain(ders, format: format)
    }

    /// `x5c`, required: the leaf (the attestation certificate) and the whole chain.
    func requiredCertificateChain() throws(WebAuthnError) -> (leaf: AttestationCertificate, chain: [AttestationCertificate]) {
        guard let chain = try certificateChain(), let leaf = chain.first else {
            throw WebAuthnError(.attestationInvalid, "\(format) attStmt has no \"x5c\"")
        }
        return (leaf, chain)
    }
}

extension Array where Element == AttestationCertificate {
    /// The trust path as reported: DER, leaf first.
    var trustPath: [[UInt8]] { map(\.der) }
}
