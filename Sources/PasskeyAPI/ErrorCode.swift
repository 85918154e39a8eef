/// A stable error code of the HTTP API: the `error` member of every refusal, `{"error": "<code>", "message": "…"}`.
///
/// One type for the server that answers with it, the relying-party library that refuses with it, and the SDK and CLI
/// that read it back, so neither side spells a code as a string. The set is open (an older client reads a newer
/// server's code as an unknown value, not a failure), but codes are not made from string literals: this module's
/// catalog (``ErrorCode/catalog``) names each one with its HTTP status and meaning, and `docs/error-codes.md` is checked
/// against it.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// A code as it came over the wire (an answer's `error`), or a lower layer's own code carried up unchanged (the
    /// verifier's, the wire reader's).
    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The HTTP status `passkey-server` answers this code with; 400 for a code the catalog does not list (a refusal of
    /// what the client sent).
    public var status: Int { Self.definitions[self]?.answerStatus ?? 400 }

    /// What the code means, in one line, when the catalog lists it.
    public var summary: String? { Self.definitions[self]?.summary }

    /// One code of the catalog: its status and meaning.
    public struct Definition: Sendable {
        public let code: ErrorCode
        /// The HTTP status of an answer with this code; nil for a code that is never an answer of the server (a
        /// webhook receiver's refusal, an event's code).
        public let answerStatus: Int?
        public let summary: String
    }

    static let definitions: [ErrorCode: Definition] = Dictionary(catalog.map { ($0.code, $0) }, uniquingKeysWith: { first, _ in first })
}

extension ErrorCode {
    /// A client's name for an error answer without this API's error object (a proxy's page, a wrong address):
    /// `http_502`. Never sent by the server.
    public static func httpStatus(_ status: Int) -> ErrorCode { ErrorCode(rawValue: "http_\(status)") }
}
