import PasskeyCore
import PasskeyWire
import X509
import SwiftASN1
import Crypto
import _CryptoExtras

/// Turns a certificate's public key into the protocol core's `SignatureVerifier`, and compares it with a credential key.
///
/// Statement signatures (packed, android-key, TPM) are made with the attestation certificate's key under the
/// statement's COSE `alg`; going through `SignatureVerifier` keeps one implementation of each algorithm (DER ECDSA,
/// PKCS#1 v1.5 including RS1, PSS, EdDSA) for credential and attestation signatures alike.
enum CertificateKey {
    /// The algorithms an attestation statement may name (WebAuthn L3 §8.2, §8.3, §8.4: "alg ... COSEAlgorithmIdentifier").
    static let statementAlgorithms: Set<COSEAlgorithmIdentifier> = [
        .es256, .esp256, .es384, .es512, .rs256, .rs384, .rs512, .rs1, .ps256, .ps384, .ps512, .edDSA, .ed25519,
    ]

    /// A verifier for `algorithm` with the key of `certificate`.
    /// - Throws: `unsupported_algorithm` for an algorithm outside ``statementAlgorithms``; `attestation_invalid` when the
    ///   certificate key cannot be used with the algorithm.
    static func verifier(
        for certificate: Certificate, algorithm: COSEAlgorithmIdentifier, role: String
    ) throws(WebAuthnError) -> SignatureVerifier {
        guard statementAlgorithms.contains(algorithm) else {
            throw WebAuthnError(
                .unsupportedAlgorithm, "attestation statement algorithm \(algorithm) is not supported",
                expected: statementAlgorithms.map(\.rawValue).sorted().map(String.init).joined(separator: ", "),
                received: "\(algorithm.rawValue)")
        }
        let key = certificate.publicKey
        do {
            if let p256 = P256.Signing.PublicKey(key) {
                return try SignatureVerifier(algorithm: algorithm, ec2Curve: .p256, x963: Array(p256.x963Representation))
            }
            if let p384 = P384.Signing.PublicKey(key) {
                return try SignatureVerifier(algorithm: algorithm, ec2Curve: .p384, x963: Array(p384.x963Representation))
            }
            if let p521 = P521.Signing.PublicKey(key) {
                return try SignatureVerifier(algorithm: algorithm, ec2Curve: .p521, x963: Array(p521.x963Representation))
            }
            if let ed25519 = Curve25519.Signing.PublicKey(key) {
                return try SignatureVerifier(algorithm: algorithm, ed25519PublicKey: Array(ed25519.rawRepresentation))
            }
            if let rsa = rsaComponents(key) {
                return try SignatureVerifier(algorithm: algorithm, rsaModulus: rsa.modulus, exponent: rsa.exponent)
            }
        } catch {
            throw WebAuthnError(
                .attestationInvalid, "the \(role) key cannot verify a \(algorithm) attestation signature: \(error.reason)",
                received: "\(key)")
        }
        throw WebAuthnError(.attestationInvalid, "the \(role) has a key type this library cannot use", received: "\(key)")
    }

    /// Verifies an attestation signature, failing with `attestation_invalid` (an attestation signature is part of the
    /// statement's procedure, not a credential signature).
    static func verify(
        _ signature: [UInt8], over data: [UInt8], with verifier: SignatureVerifier, format: AttestationFormat, role: String
    ) throws(WebAuthnError) {
        guard verifier.isValidSignature(signature, for: data) else {
            throw WebAuthnError(
                .attestationInvalid, "\(format) attestation signature does not verify with the \(role) key (\(verifier.algorithm))")
        }
    }

    /// Whether the certificate's subject public key is the credential public key (same key type, curve and material).
    static func matches(_ certificate: Certificate, credential: COSEKey) -> Bool {
        let key = certificate.publicKey
        switch credential.parameters {
        case .ec2(let curve, let x, let y):
            let point = [0x04] + x + y
            switch curve {
            case .p256: return P256.Signing.PublicKey(key).map { constantTimeEqual(Array($0.x963Representation), point) } ?? false
            case .p384: return P384.Signing.PublicKey(key).map { constantTimeEqual(Array($0.x963Representation), point) } ?? false
            case .p521: return P521.Signing.PublicKey(key).map { constantTimeEqual(Array($0.x963Representation), point) } ?? false
            default: return false
            }
        case .okp(let curve, let x):
            guard curve == .ed25519, let ed25519 = Curve25519.Signing.PublicKey(key) else { return false }
            return constantTimeEqual(Array(ed25519.rawRepresentation), x)
        case .rsa(let n, let e):
            guard let rsa = rsaComponents(key) else { return false }
            return constantTimeEqual(stripLeadingZeros(rsa.modulus), stripLeadingZeros(n))
                && constantTimeEqual(stripLeadingZeros(rsa.exponent), stripLeadingZeros(e))
        case .akp, .unknown:
            return false
        }
    }

    /// Modulus and public exponent of an RSA certificate key, big-endian without sign padding; `nil` for other keys.
    ///
    /// For RSA the subjectPublicKey bit string holds `RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }`
    /// (RFC 8017 §A.1.1).
    static func rsaComponents(_ key: Certificate.PublicKey) -> (modulus: [UInt8], exponent: [UInt8])? {
        guard _RSA.Signing.PublicKey(key) != nil else { return nil }
        guard let root = try? DER.parse(Array(key.subjectPublicKeyInfoBytes)),
            root.identifier == .sequence, case .constructed(let children) = root.content
        else { return nil }
        var integers: [[UInt8]] = []
        for child in children {
            guard child.identifier == .integer, case .primitive(let bytes) = child.content else { return nil }
            integers.append(stripLeadingZeros(Array(bytes)))
        }
        guard integers.count == 2 else { return nil }
        return (integers[0], integers[1])
    }

    static func stripLeadingZeros(_ bytes: [UInt8]) -> [UInt8] {
        Array(bytes.drop { $0 == 0 })
    }
}
