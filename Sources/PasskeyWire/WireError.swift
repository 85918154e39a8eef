/// Why a WebAuthn JSON document could not be read. One error type for this module; codes are stable.
public struct WireError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The document is not JSON.
        public static let jsonMalformed = Code(rawValue: "json_malformed")
        /// A required member is absent.
        public static let fieldMissing = Code(rawValue: "field_missing")
        /// A member has the wrong JSON type or an impossible value.
        public static let fieldInvalid = Code(rawValue: "field_invalid")
    }

    public let code: Code
    /// The member's path, such as `response.clientDataJSON`.
    public let field: String?
    /// What was wrong, with what was found and what was expected.
    public let reason: String

    public init(_ code: Code, field: String?, _ reason: String) {
        self.code = code
        self.field = field
        self.reason = reason
    }

    /// The same error for a document found at `path` inside a larger one: `response.clientDataJSON` in the member
    /// `cred` becomes `cred.response.clientDataJSON`.
    public func within(_ path: String) -> WireError {
        WireError(code, field: field.map { "\(path).\($0)" } ?? path, reason)
    }

    public var description: String {
        if let field { return "\(code.rawValue) (\(field)): \(reason)" }
        return "\(code.rawValue): \(reason)"
    }

    public static func == (lhs: WireError, rhs: WireError) -> Bool { lhs.code == rhs.code && lhs.field == rhs.field }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(field)
    }
}
