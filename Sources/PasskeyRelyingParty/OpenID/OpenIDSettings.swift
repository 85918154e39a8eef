public import Foundation

/// How the OpenID Provider behaves (issue 49): where it is, and how long what it issues lives.
public struct OpenIDSettings: Sendable, Hashable {
    /// The issuer identifier (`iss`): the HTTPS URL the provider's endpoints live under, with no query or fragment
    /// (OpenID Connect Discovery §3). The discovery document is at `<issuer>/.well-known/openid-configuration`.
    public var issuer: String
    /// Seconds an authorization code lives (RFC 9700 §4.5 asks for short-lived codes).
    public var codeLifetime: TimeInterval
    /// Seconds a browser session at the provider lives: until then a second client signs in without a ceremony.
    public var sessionLifetime: TimeInterval
    /// Seconds the sign-in page may take, from the authorization request to the passkey.
    public var requestLifetime: TimeInterval

    public init(issuer: String, codeLifetime: TimeInterval = 60, sessionLifetime: TimeInterval = 8 * 3600, requestLifetime: TimeInterval = 600) {
        self.issuer = issuer
        self.codeLifetime = codeLifetime
        self.sessionLifetime = sessionLifetime
        self.requestLifetime = requestLifetime
    }

    /// An endpoint's URL under the issuer.
    public func endpoint(_ path: String) -> String {
        (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/" + path
    }
}
