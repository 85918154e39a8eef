public import PasskeyWire

/// A credential key algorithm the software authenticator can create.
public enum SigningAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// ECDSA over P-256 with SHA-256 (COSE -7): what every platform authenticator uses. DER signatures.
    case es256
    /// EdDSA over Ed25519 (COSE -8).
    case ed25519

    /// The COSE algorithm identifier written in the credential public key and offered in `pubKeyCredParams`.
    public var coseAlgorithm: COSEAlgorithmIdentifier {
        switch self {
        case .es256: .es256
        case .ed25519: .edDSA
        }
    }

    /// The algorithm a COSE identifier names, if this authenticator can create it.
    public init?(coseAlgorithm: COSEAlgorithmIdentifier) {
        switch coseAlgorithm {
        case .es256: self = .es256
        case .edDSA: self = .ed25519
        default: return nil
        }
    }
}
