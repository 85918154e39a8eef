import PasskeyCore
import PasskeyWire
import Crypto

/// TPM algorithm and curve identifiers (TPM 2.0 Part 2 §6.3 TPM_ALG_ID, §6.4 TPM_ECC_CURVE) used by WebAuthn.
enum TPMAlgorithm {
    static let rsa: UInt16 = 0x0001
    static let sha1: UInt16 = 0x0004
    static let sha256: UInt16 = 0x000B
    static let sha384: UInt16 = 0x000C
    static let sha512: UInt16 = 0x000D
    static let null: UInt16 = 0x0010
    static let ecdaa: UInt16 = 0x001A
    static let ecc: UInt16 = 0x0023

    static let curveP256: UInt16 = 0x0003
    static let curveP384: UInt16 = 0x0004
    static let curveP521: UInt16 = 0x0005

    /// The RSA public exponent a TPM means by 0 (TPM 2.0 Part 2 §12.2.3.5: "the default exponent of 2^16 + 1").
    static let defaultRSAExponent: [UInt8] = [0x01, 0x00, 0x01]

    /// The COSE curve for a TPM curve ID; `nil` for curves WebAuthn does not use.
    static func coseCurve(_ curveID: UInt16) -> COSEEllipticCurve? {
        switch curveID {
        case curveP256: .p256
        case curveP384: .p384
        case curveP521: .p521
        default: nil
        }
    }

    /// Hashes with a TPM hash algorithm (for Names, TPM 2.0 Part 1 §16); `nil` for an unknown one.
    static func hash(_ algorithm: UInt16, _ data: [UInt8]) -> [UInt8]? {
        switch algorithm {
        case sha1: Array(Insecure.SHA1.hash(data: data))
        case sha256: Array(SHA256.hash(data: data))
        case sha384: Array(SHA384.hash(data: data))
        case sha512: Array(SHA512.hash(data: data))
        default: nil
        }
    }

    /// Hashes with the hash of a COSE signature algorithm ("the hash algorithm employed in alg", WebAuthn L3 §8.3);
    /// `nil` when the algorithm has no fixed hash.
    static func hash(forStatementAlgorithm alg: COSEAlgorithmIdentifier, _ data: [UInt8]) -> [UInt8]? {
        switch alg {
        case .rs1: hash(sha1, data)
        case .rs256, .ps256, .es256, .esp256: hash(sha256, data)
        case .rs384, .ps384, .es384: hash(sha384, data)
        case .rs512, .ps512, .es512: hash(sha512, data)
        default: nil
        }
    }
}
