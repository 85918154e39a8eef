import Crypto
import Foundation
import PasskeyCBOR
import PasskeyClient

/// A credential private key, with what the ceremonies need from it: the COSE public key for attested credential
/// data, the SubjectPublicKeyInfo for the JSON response's `publicKey`, and signatures.
enum CredentialKey {
    case es256(P256.Signing.PrivateKey)
    case ed25519(Curve25519.Signing.PrivateKey)

    /// Private keys are exactly this long in the store: a P-256 scalar or an Ed25519 seed.
    static let rawLength = 32

    /// A new key from `random`, so tests can control key material. A P-256 scalar outside [1, n-1] is astronomically
    /// unlikely; it is retried a few times before giving up.
    static func generate(_ algorithm: SigningAlgorithm, random: RandomBytes) throws(PasskeyError) -> CredentialKey {
        for _ in 0..<4 {
            if let key = try? CredentialKey(algorithm: algorithm, rawPrivateKey: random(rawLength)) { return key }
        }
        throw PasskeyError(.internalError, stage: .authenticator, "the random source did not yield a valid \(algorithm) private key")
    }

    /// Rebuilds a stored key; throws ``PasskeyError/Code/storageCorrupted`` when the bytes are not a valid key.
    init(algorithm: SigningAlgorithm, rawPrivateKey raw: [UInt8]) throws(PasskeyError) {
        guard raw.count == Self.rawLength else {
            throw PasskeyError(
                .storageCorrupted, stage: .storage, "\(algorithm) private key is \(raw.count) bytes, expected \(Self.rawLength)")
        }
        do {
            switch algorithm {
            case .es256: self = .es256(try P256.Signing.PrivateKey(rawRepresentation: raw))
            case .ed25519: self = .ed25519(try Curve25519.Signing.PrivateKey(rawRepresentation: raw))
            }
        } catch {
            throw PasskeyError(.storageCorrupted, stage: .storage, "stored bytes are not a valid \(algorithm) private key")
        }
    }

    var algorithm: SigningAlgorithm {
        switch self {
        case .es256: .es256
        case .ed25519: .ed25519
        }
    }

    var rawPrivateKey: [UInt8] {
        switch self {
        case .es256(let key): Array(key.rawRepresentation)
        case .ed25519(let key): Array(key.rawRepresentation)
        }
    }

    /// The credential public key as a COSE_Key (RFC 9052 §7, RFC 9053), canonical CBOR.
    /// EC2 P-256: {1: 2 (kty EC2), 3: -7 (ES256), -1: 1 (crv P-256), -2: x, -3: y}.
    /// OKP Ed25519: {1: 1 (kty OKP), 3: -8 (EdDSA), -1: 6 (crv Ed25519), -2: x}.
    var cosePublicKey: [UInt8] {
        let map: CBORMap
        switch self {
        case .es256(let key):
            let xy = Array(key.publicKey.rawRepresentation)  // x ‖ y, 32 bytes each
            map = [.int(1): .int(2), .int(3): .int(-7), .int(-1): .int(1), .int(-2): .bytes(Array(xy[0..<32])), .int(-3): .bytes(Array(xy[32..<64]))]
        case .ed25519(let key):
            map = [.int(1): .int(1), .int(3): .int(-8), .int(-1): .int(6), .int(-2): .bytes(Array(key.publicKey.rawRepresentation))]
        }
        return CBOREncoder(canonical: true).encode(.map(map))
    }

    /// DER SubjectPublicKeyInfo, the `publicKey` member of `AuthenticatorAttestationResponseJSON` (WebAuthn L3 §5.2.1).
    var subjectPublicKeyInfo: [UInt8] {
        switch self {
        case .es256(let key): return Array(key.publicKey.derRepresentation)
        case .ed25519(let key):
            // RFC 8410 §4: SEQUENCE { SEQUENCE { OID 1.3.101.112 }, BIT STRING (0 unused bits) key }.
            return [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00] + Array(key.publicKey.rawRepresentation)
        }
    }

    /// Signs `message` (authenticatorData ‖ SHA-256(clientDataJSON)). ES256 signatures are ASN.1 DER, as WebAuthn
    /// requires (§6.5.5); Ed25519 signatures are the raw 64 bytes.
    func sign(_ message: [UInt8]) throws(PasskeyError) -> [UInt8] {
        do {
            switch self {
            case .es256(let key): return Array(try key.signature(for: message).derRepresentation)
            case .ed25519(let key): return Array(try key.signature(for: message))
            }
        } catch {
            throw PasskeyError(.internalError, stage: .authenticator, "signing with the \(algorithm) credential key failed: \(error)")
        }
    }
}
