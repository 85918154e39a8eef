/// Why a CBOR item could not be decoded. Codes are stable; `reason` is for developers.
public struct CBORError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The input ended inside an item.
        public static let truncated = Code(rawValue: "cbor_truncated")
        /// Bytes follow the top-level item.
        public static let trailingBytes = Code(rawValue: "cbor_trailing_bytes")
        /// Nesting deeper than the decoder's limit.
        public static let depthExceeded = Code(rawValue: "cbor_depth_exceeded")
        /// A declared length or item count larger than the input or the decoder's limits.
        public static let lengthExceeded = Code(rawValue: "cbor_length_exceeded")
        /// Indefinite-length items are not allowed in WebAuthn structures (CTAP2 canonical form).
        public static let indefiniteLength = Code(rawValue: "cbor_indefinite_length")
        /// A map holds the same key twice.
        public static let duplicateKey = Code(rawValue: "cbor_duplicate_key")
        /// A text string is not valid UTF-8.
        public static let invalidUTF8 = Code(rawValue: "cbor_invalid_utf8")
        /// A reserved additional-information value or simple value encoding.
        public static let malformed = Code(rawValue: "cbor_malformed")
    }

    public let code: Code
    /// What was found, with the byte offset where it was found.
    public let reason: String
    /// Byte offset in the input where decoding failed.
    public let offset: Int

    public init(_ code: Code, _ reason: String, offset: Int) {
        self.code = code
        self.reason = reason
        self.offset = offset
    }

    public var description: String { "\(code.rawValue) at byte \(offset): \(reason)" }

    public static func == (lhs: CBORError, rhs: CBORError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
