public import PasskeyWire
import Crypto
import _CryptoExtras

/// A public key ready to verify WebAuthn signatures with one COSE algorithm.
///
/// Made from a credential's ``COSEKey`` (``COSEKey/makeVerifier(allowLegacyAlgorithms:)``) or, in the attestation
/// formats, from a certificate's key. ECDSA signatures are ASN.1 DER (WebAuthn L3 §6.5.5); RSA and EdDSA signatures are raw.
public struct SignatureVerifier: Sendable {
    enum Backing: Sendable {
        case p256(P256.Signing.PublicKey)
        case p384(P384.Signing.PublicKey)
        case p521(P521.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey, RSAHash, _RSA.Signing.Padding)
        /// ML-DSA-65 or -87: the raw public key, checked when the verifier is made. Kept as bytes because on Apple
        /// platforms `Crypto` is CryptoKit, whose ML-DSA types need OS 26 while this package supports iOS 16.
        case mlDSA(COSEAlgorithmIdentifier, [UInt8])
    }

    enum RSAHash: Sendable { case sha1, sha256, sha384, sha512 }

    let backing: Backing
    public let algorithm: COSEAlgorithmIdentifier

    /// Algorithms that need ``COSEKey/makeVerifier(allowLegacyAlgorithms:)`` with `allowLegacyAlgorithms: true`.
    public static let legacyAlgorithms: Set<COSEAlgorithmIdentifier> = [.rs1]

    /// Algorithms this library verifies. ML-DSA-44 (-48) is absent: swift-crypto does not implement it.
    public static let supportedAlgorithms: Set<COSEAlgorithmIdentifier> = [
        .es256, .esp256, .es384, .es512, .edDSA, .ed25519, .rs256, .rs384, .rs512, .ps256, .ps384, .ps512, .rs1,
        .mlDSA65, .mlDSA87,
    ]

    /// The smallest RSA modulus accepted, checked explicitly (NIST SP 800-131A).
    public static let minimumRSAModulusBits = 2048

    /// Verifies `signature` over `data`; `false` for any malformed signature.
    public func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        switch backing {
        case .p256(let key):
            guard let sig = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: data)
        case .p384(let key):
            guard let sig = try? P384.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: data)
        case .p521(let key):
            guard let sig = try? P521.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: data)
        case .ed25519(let key):
            return key.isValidSignature(signature, for: data)
        case .rsa(let key, let hash, let padding):
            let sig = _RSA.Signing.RSASignature(rawRepresentation: signature)
            switch hash {
            case .sha1: return key.isValidSignature(sig, for: Insecure.SHA1.hash(data: data), padding: padding)
            case .sha256: return key.isValidSignature(sig, for: SHA256.hash(data: data), padding: padding)
            case .sha384: return key.isValidSignature(sig, for: SHA384.hash(data: data), padding: padding)
            case .sha512: return key.isValidSignature(sig, for: SHA512.hash(data: data), padding: padding)
            }
        case .mlDSA(let algorithm, let raw):
            return Self.verifyMLDSA(algorithm, publicKey: raw, signature: signature, data: data) ?? false
        }
    }

    /// ML-DSA verification with an empty context (draft-ietf-cose-dilithium); `nil` where the platform lacks ML-DSA
    /// or the key does not parse.
    static func verifyMLDSA(_ algorithm: COSEAlgorithmIdentifier, publicKey raw: [UInt8], signature: [UInt8]?, data: [UInt8]) -> Bool? {
        guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) else { return nil }
        switch algorithm {
        case .mlDSA65:
            guard let key = try? MLDSA65.PublicKey(rawRepresentation: raw) else { return nil }
            return signature.map { key.isValidSignature($0, for: data) } ?? true
        case .mlDSA87:
            guard let key = try? MLDSA87.PublicKey(rawRepresentation: raw) else { return nil }
            return signature.map { key.isValidSignature($0, for: data) } ?? true
        default:
            return nil
        }
    }

    /// Verifies and throws `signature_invalid` naming `what` was signed.
    public func verify(_ signature: [UInt8], over data: [UInt8], what: String = "signature") throws(WebAuthnError) {
        guard isValidSignature(signature, for: data) else {
            throw WebAuthnError(.signatureInvalid, "\(what) does not verify with the \(algorithm) public key")
        }
    }

    /// An ECDSA or EdDSA key from raw encodings (used for certificate keys by the attestation formats).
    public init(algorithm: COSEAlgorithmIdentifier, ec2Curve curve: COSEEllipticCurve, x963 point: [UInt8]) throws(WebAuthnError) {
        self.algorithm = algorithm
        do {
            switch (algorithm, curve) {
            case (.es256, .p256), (.esp256, .p256): backing = .p256(try P256.Signing.PublicKey(x963Representation: point))
            case (.es384, .p384): backing = .p384(try P384.Signing.PublicKey(x963Representation: point))
            case (.es512, .p521): backing = .p521(try P521.Signing.PublicKey(x963Representation: point))
            default:
                throw WebAuthnError(
                    .publicKeyMalformed, "algorithm \(algorithm) cannot be used with curve \(curve)")
            }
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw WebAuthnError(.publicKeyMalformed, "the \(curve) point is not valid (not on the curve or wrong length)")
        }
    }

    /// An RSA key from its modulus and public exponent, checked for size.
    public init(algorithm: COSEAlgorithmIdentifier, rsaModulus n: [UInt8], exponent e: [UInt8]) throws(WebAuthnError) {
        self.algorithm = algorithm
        let hash: RSAHash
        let padding: _RSA.Signing.Padding
        switch algorithm {
        case .rs256: (hash, padding) = (.sha256, .insecurePKCS1v1_5)
        case .rs384: (hash, padding) = (.sha384, .insecurePKCS1v1_5)
        case .rs512: (hash, padding) = (.sha512, .insecurePKCS1v1_5)
        case .rs1: (hash, padding) = (.sha1, .insecurePKCS1v1_5)
        case .ps256: (hash, padding) = (.sha256, .PSS)
        case .ps384: (hash, padding) = (.sha384, .PSS)
        case .ps512: (hash, padding) = (.sha512, .PSS)
        default:
            throw WebAuthnError(.publicKeyMalformed, "algorithm \(algorithm) cannot be used with an RSA key")
        }
        let modulus = n.drop { $0 == 0 }
        let bits = modulus.first.map { modulus.count * 8 - $0.leadingZeroBitCount } ?? 0
        guard bits >= Self.minimumRSAModulusBits else {
            throw WebAuthnError(
                .publicKeyWeak, "RSA modulus is too small", expected: "≥ \(Self.minimumRSAModulusBits) bits",
                received: "\(bits) bits")
        }
        guard !e.isEmpty, e.count <= 8 else {
            throw WebAuthnError(.publicKeyMalformed, "RSA public exponent has an impossible length", received: "\(e.count) bytes")
        }
        do {
            backing = .rsa(try _RSA.Signing.PublicKey(n: Array(modulus), e: e), hash, padding)
        } catch {
            throw WebAuthnError(.publicKeyMalformed, "RSA public key is not valid")
        }
    }

    /// An Ed25519 key from its 32-byte encoding (used for certificate keys by the attestation formats, which cannot
    /// reach the internal backing).
    public init(algorithm: COSEAlgorithmIdentifier, ed25519PublicKey raw: [UInt8]) throws(WebAuthnError) {
        guard algorithm == .edDSA || algorithm == .ed25519 else {
            throw WebAuthnError(.publicKeyMalformed, "algorithm \(algorithm) cannot be used with an Ed25519 key")
        }
        self.algorithm = algorithm
        do {
            backing = .ed25519(try Curve25519.Signing.PublicKey(rawRepresentation: raw))
        } catch {
            throw WebAuthnError(.publicKeyMalformed, "Ed25519 public key is not valid", received: "\(raw.count) bytes")
        }
    }

    init(algorithm: COSEAlgorithmIdentifier, backing: Backing) {
        self.algorithm = algorithm
        self.backing = backing
    }
}

extension COSEKey {
    static func checkMLDSAKey(_ algorithm: COSEAlgorithmIdentifier, _ raw: [UInt8]) -> Bool {
        SignatureVerifier.verifyMLDSA(algorithm, publicKey: raw, signature: nil, data: []) == true
    }

    /// Makes a verifier for this key's algorithm, checking that the key fits the algorithm.
    ///
    /// - Parameter allowLegacyAlgorithms: allow RS1 (RSASSA-PKCS1-v1_5 with SHA-1). Off by default; some old
    ///   Windows Hello TPM credentials need it.
    /// - Throws: `unsupported_algorithm` for algorithms this library cannot verify (including ML-DSA-44, which
    ///   swift-crypto lacks), `algorithm_not_allowed` for RS1 without the switch, `public_key_malformed` or
    ///   `public_key_weak` for keys that do not fit.
    public func makeVerifier(allowLegacyAlgorithms: Bool = false) throws(WebAuthnError) -> SignatureVerifier {
        guard SignatureVerifier.supportedAlgorithms.contains(algorithm) else {
            throw WebAuthnError(
                .unsupportedAlgorithm, "credential public key algorithm \(algorithm) is not supported",
                expected: "one of " + SignatureVerifier.supportedAlgorithms.map(\.rawValue).sorted().map(String.init).joined(separator: ", "),
                received: "\(algorithm.rawValue)")
        }
        if SignatureVerifier.legacyAlgorithms.contains(algorithm), !allowLegacyAlgorithms {
            throw WebAuthnError(
                .algorithmNotAllowed, "\(algorithm) is a legacy algorithm; it is accepted only when legacy algorithms are allowed",
                received: "\(algorithm.rawValue)")
        }
        switch parameters {
        case .ec2(let curve, let x, let y):
            var point: [UInt8] = []
            point.reserveCapacity(1 + x.count + y.count)
            point.append(0x04)  // uncompressed point (SEC 1 §2.3.3)
            point.append(contentsOf: x)
            point.append(contentsOf: y)
            return try SignatureVerifier(algorithm: algorithm, ec2Curve: curve, x963: point)
        case .okp(let curve, let x):
            guard algorithm == .edDSA || algorithm == .ed25519 else {
                throw WebAuthnError(.publicKeyMalformed, "algorithm \(algorithm) cannot be used with an OKP key")
            }
            guard curve == .ed25519 else {
                throw WebAuthnError(
                    .unsupportedAlgorithm, "EdDSA is supported with Ed25519 only", expected: "\(COSEEllipticCurve.ed25519)",
                    received: "\(curve)")
            }
            do {
                return SignatureVerifier(algorithm: algorithm, backing: .ed25519(try Curve25519.Signing.PublicKey(rawRepresentation: x)))
            } catch {
                throw WebAuthnError(.publicKeyMalformed, "Ed25519 public key is not valid")
            }
        case .rsa(let n, let e):
            return try SignatureVerifier(algorithm: algorithm, rsaModulus: n, exponent: e)
        case .akp(let pub):
            guard algorithm == .mlDSA65 || algorithm == .mlDSA87 else {
                throw WebAuthnError(.publicKeyMalformed, "algorithm \(algorithm) cannot be used with an AKP key")
            }
            guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) else {
                throw WebAuthnError(.unsupportedAlgorithm, "\(algorithm) needs ML-DSA support from the operating system (Apple platforms 26 or later)")
            }
            // Parse once now, so a key that cannot verify is refused at registration.
            guard Self.checkMLDSAKey(algorithm, pub) else {
                throw WebAuthnError(.publicKeyMalformed, "\(algorithm) public key is not valid", received: "\(pub.count) bytes")
            }
            return SignatureVerifier(algorithm: algorithm, backing: .mlDSA(algorithm, pub))
        case .unknown:
            throw WebAuthnError(.unsupportedAlgorithm, "COSE key type \(keyType) is not supported", received: "\(keyType.rawValue)")
        }
    }
}
