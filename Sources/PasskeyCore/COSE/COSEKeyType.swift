/// COSE key types (IANA "COSE Key Types"). An open set.
public struct COSEKeyType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    /// Octet key pair (Ed25519).
    public static let okp = COSEKeyType(rawValue: 1)
    /// Elliptic curve with x and y (P-256, P-384, P-521).
    public static let ec2 = COSEKeyType(rawValue: 2)
    /// RSA.
    public static let rsa = COSEKeyType(rawValue: 3)
    /// Algorithm key pair (ML-DSA).
    public static let akp = COSEKeyType(rawValue: 7)

    public var description: String {
        switch self {
        case .okp: "OKP (1)"
        case .ec2: "EC2 (2)"
        case .rsa: "RSA (3)"
        case .akp: "AKP (7)"
        default: "\(rawValue)"
        }
    }
}

/// COSE elliptic curves (IANA "COSE Elliptic Curves"). An open set.
public struct COSEEllipticCurve: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    public static let p256 = COSEEllipticCurve(rawValue: 1)
    public static let p384 = COSEEllipticCurve(rawValue: 2)
    public static let p521 = COSEEllipticCurve(rawValue: 3)
    public static let x25519 = COSEEllipticCurve(rawValue: 4)
    public static let ed25519 = COSEEllipticCurve(rawValue: 6)
    public static let ed448 = COSEEllipticCurve(rawValue: 7)

    public var description: String {
        switch self {
        case .p256: "P-256 (1)"
        case .p384: "P-384 (2)"
        case .p521: "P-521 (3)"
        case .x25519: "X25519 (4)"
        case .ed25519: "Ed25519 (6)"
        case .ed448: "Ed448 (7)"
        default: "\(rawValue)"
        }
    }

    /// Byte length of one coordinate.
    var coordinateLength: Int? {
        switch self {
        case .p256: 32
        case .p384: 48
        case .p521: 66
        case .ed25519: 32
        default: nil
        }
    }
}
