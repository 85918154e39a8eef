public import PasskeyCBOR
public import PasskeyWire

/// A credential public key in COSE_Key form (RFC 9052 §7, WebAuthn L3 §6.5.1.1), as found in attested credential data.
///
/// Parsing checks the structure (labels present with the right types, coordinate lengths matching the curve, the algorithm
/// matching the key type). It does not decide whether the algorithm is allowed or supported: ``makeVerifier(policy:)`` does,
/// so that an unknown algorithm still decodes and fails with a clear `unsupported_algorithm`.
///
/// Store ``AttestedCredentialData/credentialPublicKeyBytes`` (the exact bytes) and parse them again at sign-in.
public struct COSEKey: Sendable, Hashable {
    /// The key material for each key type.
    public enum Parameters: Sendable, Hashable {
        case ec2(curve: COSEEllipticCurve, x: [UInt8], y: [UInt8])
        case okp(curve: COSEEllipticCurve, x: [UInt8])
        case rsa(n: [UInt8], e: [UInt8])
        /// ML-DSA public key (draft-ietf-cose-dilithium, kty AKP, label -1 `pub`).
        case akp(publicKey: [UInt8])
        /// A key type this library does not know; kept so the error can name it.
        case unknown
    }

    // COSE_Key labels (RFC 9052 §7.1, RFC 9053 §7, RFC 8230 §4).
    static let labelKeyType: Int64 = 1
    static let labelAlgorithm: Int64 = 3
    static let labelCurve: Int64 = -1
    static let labelX: Int64 = -2
    static let labelY: Int64 = -3
    static let labelRSAModulus: Int64 = -1
    static let labelRSAExponent: Int64 = -2
    static let labelAKPPublic: Int64 = -1
    /// Labels of private key material: `d` of EC2 and OKP keys (RFC 9053 §7.1.1, §7.2), RSA's private members `d`
    /// through `t_i` (RFC 8230 §4), AKP's `priv` (draft-ietf-cose-dilithium).
    static let privateLabels: [COSEKeyType: ClosedRange<Int64>] = [.ec2: -4 ... -4, .okp: -4 ... -4, .rsa: -12 ... -3, .akp: -2 ... -2]

    public let keyType: COSEKeyType
    public let algorithm: COSEAlgorithmIdentifier
    public let parameters: Parameters

    public init(keyType: COSEKeyType, algorithm: COSEAlgorithmIdentifier, parameters: Parameters) {
        self.keyType = keyType
        self.algorithm = algorithm
        self.parameters = parameters
    }

    /// Parses COSE_Key bytes (for a stored credential public key). Trailing bytes are rejected.
    public init(bytes: [UInt8]) throws(WebAuthnError) {
        let value: CBORValue
        do { value = try CBORDecoder().decode(bytes) } catch { throw WebAuthnError(error, decoding: "credential public key") }
        try self.init(cbor: value)
    }

    /// Parses a decoded COSE_Key map.
    public init(cbor: CBORValue) throws(WebAuthnError) {
        guard case .map(let map) = cbor else {
            throw WebAuthnError(.publicKeyMalformed, "COSE key must be a CBOR map", received: cbor.kindName)
        }
        guard let kty = map[int: Self.labelKeyType]?.intValue else {
            throw WebAuthnError(.publicKeyMalformed, "COSE key has no integer kty (label 1)")
        }
        // WebAuthn L3 §5.8.5: the credential public key MUST contain the alg parameter.
        guard let algValue = map[int: Self.labelAlgorithm]?.intValue, let alg = Int(exactly: algValue) else {
            throw WebAuthnError(.publicKeyMalformed, "COSE key has no integer alg (label 3)")
        }
        let keyType = COSEKeyType(rawValue: kty)
        self.keyType = keyType
        algorithm = COSEAlgorithmIdentifier(rawValue: alg)
        parameters = try Self.parseParameters(map, keyType: keyType)
    }

    static func parseParameters(_ map: CBORMap, keyType: COSEKeyType) throws(WebAuthnError) -> Parameters {
        func bytes(_ label: Int64, _ name: String) throws(WebAuthnError) -> [UInt8] {
            guard let v = map[int: label] else {
                throw WebAuthnError(.publicKeyMalformed, "COSE \(keyType) key has no \(name) (label \(label))")
            }
            guard case .bytes(let b) = v else {
                throw WebAuthnError(.publicKeyMalformed, "COSE key \(name) must be a byte string", received: v.kindName)
            }
            return b
        }
        func curve() throws(WebAuthnError) -> COSEEllipticCurve {
            guard let crv = map[int: Self.labelCurve]?.intValue else {
                throw WebAuthnError(.publicKeyMalformed, "COSE \(keyType) key has no integer crv (label -1)")
            }
            return COSEEllipticCurve(rawValue: crv)
        }

        // A credential public key that also holds its private key comes from a broken authenticator: the key is out,
        // so the passkey would protect nothing.
        if let labels = privateLabels[keyType], let label = labels.first(where: { map[int: $0] != nil }) {
            throw WebAuthnError(.publicKeyMalformed, "COSE \(keyType) key carries private key material (label \(label))")
        }
        switch keyType {
        case .ec2:
            let crv = try curve()
            let x = try bytes(Self.labelX, "x")
            // A compressed point (y as a boolean) is allowed by COSE but never sent by authenticators; WebAuthn keys carry y.
            let y = try bytes(Self.labelY, "y")
            if let length = crv.coordinateLength, x.count != length || y.count != length {
                throw WebAuthnError(
                    .publicKeyMalformed, "EC2 coordinates do not match the curve \(crv)",
                    expected: "\(length) bytes each", received: "x \(x.count), y \(y.count)")
            }
            return .ec2(curve: crv, x: x, y: y)
        case .okp:
            let crv = try curve()
            let x = try bytes(Self.labelX, "x")
            if let length = crv.coordinateLength, x.count != length {
                throw WebAuthnError(
                    .publicKeyMalformed, "OKP public key does not match the curve \(crv)",
                    expected: "\(length) bytes", received: "\(x.count) bytes")
            }
            return .okp(curve: crv, x: x)
        case .rsa:
            let n = try bytes(Self.labelRSAModulus, "n")
            let e = try bytes(Self.labelRSAExponent, "e")
            return .rsa(n: n, e: e)
        case .akp:
            return .akp(publicKey: try bytes(Self.labelAKPPublic, "pub"))
        default:
            return .unknown
        }
    }

    /// The COSE_Key encoded as canonical CBOR.
    public var cborValue: CBORValue {
        var map = CBORMap()
        map[.int(Self.labelKeyType)] = .int(keyType.rawValue)
        map[.int(Self.labelAlgorithm)] = .int(Int64(algorithm.rawValue))
        switch parameters {
        case .ec2(let crv, let x, let y):
            map[.int(Self.labelCurve)] = .int(crv.rawValue)
            map[.int(Self.labelX)] = .bytes(x)
            map[.int(Self.labelY)] = .bytes(y)
        case .okp(let crv, let x):
            map[.int(Self.labelCurve)] = .int(crv.rawValue)
            map[.int(Self.labelX)] = .bytes(x)
        case .rsa(let n, let e):
            map[.int(Self.labelRSAModulus)] = .bytes(n)
            map[.int(Self.labelRSAExponent)] = .bytes(e)
        case .akp(let pub):
            map[.int(Self.labelAKPPublic)] = .bytes(pub)
        case .unknown:
            break
        }
        return .map(map)
    }

    public var encoded: [UInt8] { CBOREncoder().encode(cborValue) }

    /// The curve, for EC2 and OKP keys.
    public var curve: COSEEllipticCurve? {
        switch parameters {
        case .ec2(let c, _, _), .okp(let c, _): c
        default: nil
        }
    }
}
