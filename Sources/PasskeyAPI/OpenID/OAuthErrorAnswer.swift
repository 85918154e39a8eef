public import PasskeyWire

/// A refusal of the OpenID Provider's JSON endpoints (`/token`, `/userinfo`): OAuth 2.0's `error` and
/// `error_description` (RFC 6749 §5.2), which every OAuth client reads, and `message` with the same text, as every other
/// answer of this server has.
public struct OAuthErrorAnswer: JSONRepresentable, Hashable {
    public var error: ErrorCode
    public var errorDescription: String

    public init(error: ErrorCode, errorDescription: String) {
        self.error = error
        self.errorDescription = errorDescription
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        error = ErrorCode(rawValue: try reader.string("error"))
        let described = try reader.optionalString("error_description")
        let message = try reader.optionalString("message")
        errorDescription = described ?? message ?? ""
    }

    public var json: JSONValue {
        ["error": .string(error.rawValue), "error_description": .string(errorDescription), "message": .string(errorDescription)]
    }
}
