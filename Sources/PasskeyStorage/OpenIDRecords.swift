public import Foundation

/// An application that signs its users in through this server as an OpenID Provider (issue 49): an OAuth 2.0 client
/// of the authorization code flow.
public struct OpenIDClientRecord: Sendable, Hashable, Identifiable {
    /// The `client_id`: `oc_` and random characters.
    public var id: String
    /// What the operator called it, shown on the sign-in page ("Grafana").
    public var name: String
    /// SHA-256 of the `client_secret` of a confidential client; nil for a public client (PKCE only). The secret itself is
    /// shown once, when made or rotated.
    public var secretHash: [UInt8]?
    /// The redirect URIs, matched exactly (RFC 9700 §2.1).
    public var redirectURIs: [String]
    /// Where RP-initiated logout may send the browser afterwards, matched exactly.
    public var postLogoutRedirectURIs: [String]
    /// The scopes it may ask for (`openid` always among them).
    public var scopes: [String]
    /// `RS256` or `ES256`: what its ID tokens are signed with.
    public var idTokenAlgorithm: String
    /// A third-party client: the person is asked to consent before it learns who they are.
    public var thirdParty: Bool
    /// Seconds an access token (and an ID token) lives.
    public var accessTokenLifetime: Int
    /// Seconds a refresh token lives; each use replaces it with a new one.
    public var refreshTokenLifetime: Int
    public var createdAt: Date
    /// While set, the client is refused everywhere and its tokens stop working.
    public var disabledAt: Date?

    public init(
        id: String, name: String, secretHash: [UInt8]?, redirectURIs: [String], postLogoutRedirectURIs: [String] = [], scopes: [String],
        idTokenAlgorithm: String = "RS256", thirdParty: Bool = false, accessTokenLifetime: Int = 600, refreshTokenLifetime: Int = 2_592_000,
        createdAt: Date, disabledAt: Date? = nil
    ) {
        self.id = id
        self.name = name
        self.secretHash = secretHash
        self.redirectURIs = redirectURIs
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.scopes = scopes
        self.idTokenAlgorithm = idTokenAlgorithm
        self.thirdParty = thirdParty
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.createdAt = createdAt
        self.disabledAt = disabledAt
    }

    /// A public client: no secret, PKCE proves the code's holder.
    public var isPublic: Bool { secretHash == nil }
}

/// What a person allowed a client: who signed in, how, and for which scopes. Carried by the authorization code and by
/// every token issued from it (one family).
public struct OpenIDGrantRecord: Sendable, Hashable {
    /// The family: the code and every access and refresh token issued from it, revoked together.
    public var familyID: String
    public var clientID: String
    public var userID: String
    /// Space-free scope names, as granted.
    public var scopes: [String]
    /// The `nonce` of the authorization request, echoed in the ID token issued for the code.
    public var nonce: String?
    /// When the person signed in with the passkey (`auth_time`).
    public var authTime: Date
    /// The passkey's authenticator verified the person (`amr` gains `user`, `acr` is the multi-factor one).
    public var userVerified: Bool

    public init(familyID: String, clientID: String, userID: String, scopes: [String], nonce: String?, authTime: Date, userVerified: Bool) {
        self.familyID = familyID
        self.clientID = clientID
        self.userID = userID
        self.scopes = scopes
        self.nonce = nonce
        self.authTime = authTime
        self.userVerified = userVerified
    }
}

/// An authorization code, stored hashed: single use, bound to its client, redirect URI and PKCE challenge.
public struct OpenIDCodeRecord: Sendable, Hashable {
    /// SHA-256 of the code.
    public var hash: [UInt8]
    public var grant: OpenIDGrantRecord
    public var redirectURI: String
    /// The PKCE `code_challenge` (S256), when the request had one.
    public var codeChallenge: String?
    public var expiresAt: Date
    /// Set when the code was exchanged; a second exchange finds it and revokes the family.
    public var usedAt: Date?

    public init(hash: [UInt8], grant: OpenIDGrantRecord, redirectURI: String, codeChallenge: String?, expiresAt: Date, usedAt: Date? = nil) {
        self.hash = hash
        self.grant = grant
        self.redirectURI = redirectURI
        self.codeChallenge = codeChallenge
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }
}

/// What a token is for.
public struct OpenIDTokenKind: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    /// A bearer token for `/userinfo`.
    public static let access: OpenIDTokenKind = "access"
    /// Exchanged at `/token` for new tokens, once: its use replaces it.
    public static let refresh: OpenIDTokenKind = "refresh"
}

/// An access or refresh token, stored hashed.
public struct OpenIDTokenRecord: Sendable, Hashable {
    /// SHA-256 of the token.
    public var hash: [UInt8]
    public var kind: OpenIDTokenKind
    public var grant: OpenIDGrantRecord
    public var issuedAt: Date
    public var expiresAt: Date
    /// A refresh token that was exchanged: presenting it again means it leaked, and revokes the family.
    public var usedAt: Date?

    public init(hash: [UInt8], kind: OpenIDTokenKind, grant: OpenIDGrantRecord, issuedAt: Date, expiresAt: Date, usedAt: Date? = nil) {
        self.hash = hash
        self.kind = kind
        self.grant = grant
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }
}

/// A browser's sign-in at the provider (its cookie holds the secret whose hash names it): a second client signs in
/// without a second passkey ceremony until it ends.
public struct OpenIDSessionRecord: Sendable, Hashable {
    /// SHA-256 of the cookie's secret.
    public var hash: [UInt8]
    public var userID: String
    public var authTime: Date
    public var userVerified: Bool
    public var expiresAt: Date

    public init(hash: [UInt8], userID: String, authTime: Date, userVerified: Bool, expiresAt: Date) {
        self.hash = hash
        self.userID = userID
        self.authTime = authTime
        self.userVerified = userVerified
        self.expiresAt = expiresAt
    }
}

/// What exchanging an authorization code found.
public enum OpenIDCodeRedemption: Sendable, Equatable {
    /// The code was unused and unexpired; it is used now.
    case redeemed(OpenIDCodeRecord)
    /// The code was exchanged before: every token of its family was revoked in the same step (RFC 9700 §4.5).
    case reused(OpenIDCodeRecord)
    /// No such code, or it expired.
    case unknown
}

/// What exchanging a refresh token found.
public enum OpenIDRefreshRotation: Sendable, Equatable {
    /// The token was current: it is used now, and the replacements are stored.
    case rotated(OpenIDTokenRecord)
    /// The token was exchanged before: it leaked, and its whole family was revoked in the same step.
    case reused(OpenIDTokenRecord)
    /// No such token (or revoked), or it expired.
    case unknown
}
