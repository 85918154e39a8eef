public import Foundation

/// A Sign in with Apple credential (Apple's `ASAuthorizationAppleIDCredential`), with the tokens as the strings Apple's
/// data holds. The app's backend verifies `identityToken` (a JWT signed by Apple; check its `nonce` against the
/// request's) and may redeem `authorizationCode` with Apple. Its descriptions and mirror show neither, nor the email address
/// or the name.
public struct AppleIDCredential: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Apple's stable identifier of the person for this app's team.
    public var user: String
    /// The identity token (a compact JWT), when Apple gave one.
    public var identityToken: String?
    /// A short-lived code the backend redeems with Apple for tokens, when Apple gave one.
    public var authorizationCode: String?
    /// The email address (or a private relay address), at the first sign-in only, when asked for.
    public var email: String?
    /// The name, at the first sign-in only, when asked for.
    public var fullName: PersonNameComponents?
    /// The request's `state`, handed back.
    public var state: String?
    public var authorizedScopes: [AppleIDScope]
    /// Apple's guess whether a real person signed in.
    public var realUserStatus: RealUserStatus

    /// Apple's `ASUserDetectionStatus`.
    public enum RealUserStatus: String, Sendable, Hashable {
        /// Not given on this platform: ignore it.
        case unsupported
        /// Apple could not tell; new Apple accounts get this too, so treat it as any new user.
        case unknown
        case likelyReal
    }

    public init(
        user: String, identityToken: String? = nil, authorizationCode: String? = nil, email: String? = nil,
        fullName: PersonNameComponents? = nil, state: String? = nil, authorizedScopes: [AppleIDScope] = [],
        realUserStatus: RealUserStatus = .unknown
    ) {
        self.user = user
        self.identityToken = identityToken
        self.authorizationCode = authorizationCode
        self.email = email
        self.fullName = fullName
        self.state = state
        self.authorizedScopes = authorizedScopes
        self.realUserStatus = realUserStatus
    }

    public var description: String {
        "AppleIDCredential(user: \"\(user)\", identityToken: \(identityToken == nil ? "nil" : "redacted"), "
            + "authorizationCode: \(authorizationCode == nil ? "nil" : "redacted"), email: \(email == nil ? "nil" : "redacted"), "
            + "scopes: \(authorizedScopes.map(\.rawValue)), realUserStatus: \(realUserStatus.rawValue))"
    }
    public var debugDescription: String { description }

    public var customMirror: Mirror {
        func shown(_ value: String?) -> String { value == nil ? "nil" : "redacted" }
        return Mirror(
            self,
            children: [
                "user": user, "identityToken": shown(identityToken), "authorizationCode": shown(authorizationCode), "email": shown(email),
                "fullName": fullName == nil ? "nil" : "redacted", "state": state as Any, "authorizedScopes": authorizedScopes.map(\.rawValue),
                "realUserStatus": realUserStatus.rawValue,
            ])
    }
}
