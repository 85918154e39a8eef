public import PasskeyAPI

/// A refusal at `/token` or `/userinfo`: OAuth's code (RFC 6749 §5.2, RFC 6750 §3.1), the text the client may see,
/// and for the log what only the operator may know.
public struct OpenIDTokenRefusal: Error, Sendable {
    public let code: ErrorCode
    public let description: String
    public let logDetail: String?
    /// A reused code or refresh token: every token issued from it was revoked.
    public let revokedFamily: Bool

    init(_ code: ErrorCode, _ description: String, logDetail: String? = nil, revokedFamily: Bool = false) {
        self.code = code
        self.description = description
        self.logDetail = logDetail
        self.revokedFamily = revokedFamily
    }
}
