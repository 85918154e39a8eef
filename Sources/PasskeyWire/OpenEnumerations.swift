/// A spec enumeration that stays open: unknown values decode and round-trip instead of failing
/// (WebAuthn L3 §2.1.1: DOMString enumerations are not validated by clients, so servers see new values).
public protocol OpenStringEnumeration: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible where RawValue == String
{
    init(rawValue: String)
}

extension OpenStringEnumeration {
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    public var description: String { rawValue }
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

/// WebAuthn L3 §5.8.4 `AuthenticatorTransport`.
public struct AuthenticatorTransport: OpenStringEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let usb: Self = "usb"
    public static let nfc: Self = "nfc"
    public static let ble: Self = "ble"
    public static let smartCard: Self = "smart-card"
    public static let hybrid: Self = "hybrid"
    public static let `internal`: Self = "internal"

    /// Most transports a stored credential keeps (``storable(_:)``): the spec defines six.
    public static let maximumStored = 8

    /// What of a client's `getTransports()` a relying party stores (WebAuthn L3 §7.1 step 27) and sends back in
    /// `allowCredentials` and `excludeCredentials`: the values in their order, each once, those that can be transport
    /// names (1 to 32 lower-case letters, digits and hyphens, so a later one such as `smart-card` is kept), at most
    /// ``maximumStored``. The list is the client's word and unchecked: without a bound, any client could store 50 KB of
    /// text with a passkey, sent back in every sign-in's options for its account.
    public static func storable(_ transports: [AuthenticatorTransport]) -> [AuthenticatorTransport] {
        var kept: [AuthenticatorTransport] = []
        for transport in transports where !kept.contains(transport) && isWellFormed(transport.rawValue) {
            kept.append(transport)
            if kept.count == maximumStored { break }
        }
        return kept
    }

    static func isWellFormed(_ name: String) -> Bool {
        (1...32).contains(name.utf8.count) && name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }
}

/// WebAuthn L3 §5.4.5 `AuthenticatorAttachment`.
public struct AuthenticatorAttachment: OpenStringEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let platform: Self = "platform"
    public static let crossPlatform: Self = "cross-platform"
}

/// WebAuthn L3 §5.8.6 `UserVerificationRequirement`.
public struct UserVerificationRequirement: OpenStringEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let required: Self = "required"
    public static let preferred: Self = "preferred"
    public static let discouraged: Self = "discouraged"
}

/// WebAuthn L3 §5.4.6 `ResidentKeyRequirement`.
public struct ResidentKeyRequirement: OpenStringEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let discouraged: Self = "discouraged"
    public static let preferred: Self = "preferred"
    public static let required: Self = "required"
}

/// WebAuthn L3 §5.4.7 `AttestationConveyancePreference`.
public struct AttestationConveyancePreference: OpenStringEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let none: Self = "none"
    public static let indirect: Self = "indirect"
    public static let direct: Self = "direct"
    public static let enterprise: Self = "enterprise"
}

/// WebAuthn L3 §5.8.7 `PublicKeyCredentialHint`.
public struct PublicKeyCredentialHint: OpenStringEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let securityKey: Self = "security-key"
    public static let clientDevice: Self = "client-device"
    public static let hybrid: Self = "hybrid"
}

/// WebAuthn L3 §5.8.2 `PublicKeyCredentialType`.
public struct PublicKeyCredentialType: OpenStringEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let publicKey: Self = "public-key"
}

/// Attestation statement format identifiers (WebAuthn L3 §8, IANA "WebAuthn Attestation Statement Format Identifiers").
/// Compared case-sensitively (§7.1 step 21).
public struct AttestationFormat: OpenStringEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let packed: Self = "packed"
    public static let tpm: Self = "tpm"
    public static let androidKey: Self = "android-key"
    public static let androidSafetyNet: Self = "android-safetynet"
    public static let fidoU2F: Self = "fido-u2f"
    public static let apple: Self = "apple"
    public static let none: Self = "none"
    public static let compound: Self = "compound"
}

/// COSE algorithm identifiers (IANA "COSE Algorithms"). An open set: any integer decodes.
public struct COSEAlgorithmIdentifier: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public init(integerLiteral value: Int) { rawValue = value }

    /// ECDSA with SHA-256 (P-256 in WebAuthn).
    public static let es256: Self = -7
    /// ECDSA with SHA-384 (P-384 in WebAuthn).
    public static let es384: Self = -35
    /// ECDSA with SHA-512 (P-521 in WebAuthn).
    public static let es512: Self = -36
    /// EdDSA (Ed25519 in WebAuthn).
    public static let edDSA: Self = -8
    /// Ed25519 (fully specified).
    public static let ed25519: Self = -19
    /// ECDSA P-256 with SHA-256 (fully specified).
    public static let esp256: Self = -9
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    public static let rs256: Self = -257
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    public static let rs384: Self = -258
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    public static let rs512: Self = -259
    /// RSASSA-PKCS1-v1_5 with SHA-1 (legacy; off unless a policy allows it).
    public static let rs1: Self = -65535
    /// RSASSA-PSS with SHA-256.
    public static let ps256: Self = -37
    /// RSASSA-PSS with SHA-384.
    public static let ps384: Self = -38
    /// RSASSA-PSS with SHA-512.
    public static let ps512: Self = -39
    /// ML-DSA-44 (FIPS 204).
    public static let mlDSA44: Self = -48
    /// ML-DSA-65 (FIPS 204).
    public static let mlDSA65: Self = -49
    /// ML-DSA-87 (FIPS 204).
    public static let mlDSA87: Self = -50

    public var name: String? {
        switch self {
        case .es256: "ES256"
        case .es384: "ES384"
        case .es512: "ES512"
        case .edDSA: "EdDSA"
        case .ed25519: "Ed25519"
        case .esp256: "ESP256"
        case .rs256: "RS256"
        case .rs384: "RS384"
        case .rs512: "RS512"
        case .rs1: "RS1"
        case .ps256: "PS256"
        case .ps384: "PS384"
        case .ps512: "PS512"
        case .mlDSA44: "ML-DSA-44"
        case .mlDSA65: "ML-DSA-65"
        case .mlDSA87: "ML-DSA-87"
        default: nil
        }
    }

    public var description: String { name.map { "\($0) (\(rawValue))" } ?? "\(rawValue)" }

    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(Int.self) }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}
