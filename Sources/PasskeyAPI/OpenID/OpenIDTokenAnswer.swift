public import PasskeyWire

/// `POST /token`'s answer (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3).
public struct OpenIDTokenAnswer: JSONRepresentable, Hashable {
    public var accessToken: String
    /// Seconds the access token lives.
    public var expiresIn: Int
    public var idToken: String
    /// Only with the `offline_access` scope; each use answers a new one.
    public var refreshToken: String?
    /// The scopes granted, space-separated.
    public var scope: String

    public init(accessToken: String, expiresIn: Int, idToken: String, refreshToken: String?, scope: String) {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.scope = scope
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        accessToken = try reader.string("access_token")
        expiresIn = try reader.int("expires_in")
        idToken = try reader.string("id_token")
        refreshToken = try reader.optionalString("refresh_token")
        scope = try reader.string("scope")
    }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("access_token", accessToken)
        builder.set("token_type", "Bearer")
        builder.set("expires_in", expiresIn)
        builder.set("id_token", idToken)
        builder.set("refresh_token", refreshToken)
        builder.set("scope", scope)
        return builder.value
    }
}

/// `GET /userinfo`'s answer (OpenID Connect Core §5.3.2): the claims the access token's scopes allow.
public struct OpenIDUserInfoAnswer: JSONRepresentable, Hashable {
    public var sub: String
    /// `profile`: the account's username and display name.
    public var preferredUsername: String?
    public var name: String?
    /// `email`: the account's email contact, when it has one.
    public var email: String?
    public var emailVerified: Bool?

    public init(sub: String, preferredUsername: String? = nil, name: String? = nil, email: String? = nil, emailVerified: Bool? = nil) {
        self.sub = sub
        self.preferredUsername = preferredUsername
        self.name = name
        self.email = email
        self.emailVerified = emailVerified
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        sub = try reader.string("sub")
        preferredUsername = try reader.optionalString("preferred_username")
        name = try reader.optionalString("name")
        email = try reader.optionalString("email")
        emailVerified = try reader.optionalBool("email_verified")
    }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("sub", sub)
        builder.set("preferred_username", preferredUsername)
        builder.set("name", name)
        builder.set("email", email)
        builder.set("email_verified", emailVerified)
        return builder.value
    }
}
