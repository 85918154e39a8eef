public import PasskeyAPI

/// Why an authorization request was refused, and where the refusal goes (OpenID Connect Core §3.1.2.6): to the
/// client's redirect URI when the client and the URI are trusted, otherwise on an error page, never redirected
/// (RFC 6749 §4.1.2.1, an open redirector otherwise).
public struct AuthorizationRefusal: Error, Sendable, Hashable {
    public let code: ErrorCode
    /// Safe to show and to send: never a secret.
    public let description: String
    /// The request, once its client and redirect URI were found good: the refusal is sent there.
    public let redirect: AuthorizationRequest?

    public init(_ code: ErrorCode, _ description: String, redirect: AuthorizationRequest?) {
        self.code = code
        self.description = description
        self.redirect = redirect
    }
}
