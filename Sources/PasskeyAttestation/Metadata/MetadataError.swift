/// Why a FIDO Metadata Service BLOB was refused. The previous BLOB stays in force whenever one is refused.
///
/// `code` is stable and meant for programs and operators' scripts; `reason` says what was checked.
public struct MetadataError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, documented error code. An open set: new codes are not a breaking change.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Not a compact JWS with an `x5c` chain, or a payload that is not a metadata BLOB. (`metadata_malformed`)
        public static let malformed = Code(rawValue: "metadata_malformed")
        /// Larger than ``MetadataBLOBVerifier/maximumSize``. (`metadata_too_large`)
        public static let tooLarge = Code(rawValue: "metadata_too_large")
        /// The JWS `alg` is not one the BLOB may be signed with. (`metadata_algorithm_unsupported`)
        public static let algorithmUnsupported = Code(rawValue: "metadata_algorithm_unsupported")
        /// The signature does not verify with the `x5c` leaf's key. (`metadata_signature_invalid`)
        public static let signatureInvalid = Code(rawValue: "metadata_signature_invalid")
        /// The `x5c` chain does not lead to the FIDO root at the validation time (wrong root, expired or not yet valid
        /// certificate, broken link). (`metadata_untrusted`)
        public static let untrusted = Code(rawValue: "metadata_untrusted")
        /// The BLOB's serial number `no` is not higher than the one in force: a replayed or rolled-back BLOB, which
        /// could hide a compromise reported since. (`metadata_rolled_back`)
        public static let rolledBack = Code(rawValue: "metadata_rolled_back")
        /// A certificate of the `x5c` chain is on its issuer's revocation list. (`metadata_revoked`)
        public static let revoked = Code(rawValue: "metadata_revoked")
    }

    public let code: Code
    public let reason: String
    public let expected: String?
    public let received: String?

    public init(_ code: Code, _ reason: String, expected: String? = nil, received: String? = nil) {
        self.code = code
        self.reason = reason
        self.expected = expected
        self.received = received
    }

    public var description: String {
        var text = "\(code): \(reason)"
        if let expected { text += " (expected \(expected)" + (received.map { ", received \($0))" } ?? ")") }
        else if let received { text += " (received \(received))" }
        return text
    }

    /// Two errors are equal when their codes are, as ``PasskeyCore/WebAuthnError`` compares.
    public static func == (lhs: MetadataError, rhs: MetadataError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
