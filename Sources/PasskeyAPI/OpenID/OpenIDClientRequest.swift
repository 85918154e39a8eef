public import PasskeyWire

/// `POST /oidc/clients` (a new client) and `PATCH /oidc/clients/{id}` (each member optional: nil leaves it).
public struct OpenIDClientRequest: JSONRepresentable, Hashable {
    /// Required when creating.
    public var name: String?
    /// Required when creating: at least one.
    public var redirectURIs: [String]?
    public var postLogoutRedirectURIs: [String]?
    /// Default `openid profile email offline_access`.
    public var scopes: [String]?
    /// Only when creating: a public client (PKCE, no secret). Default false.
    public var isPublic: Bool?
    /// `RS256` (default) or `ES256`.
    public var idTokenAlgorithm: String?
    public var thirdParty: Bool?
    public var accessTokenLifetime: Int?
    public var refreshTokenLifetime: Int?
    /// Only when changing a client.
    public var enabled: Bool?

    public init(
        name: String? = nil, redirectURIs: [String]? = nil, postLogoutRedirectURIs: [String]? = nil, scopes: [String]? = nil, isPublic: Bool? = nil,
        idTokenAlgorithm: String? = nil, thirdParty: Bool? = nil, accessTokenLifetime: Int? = nil, refreshTokenLifetime: Int? = nil, enabled: Bool? = nil
    ) {
        self.name = name
        self.redirectURIs = redirectURIs
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.scopes = scopes
        self.isPublic = isPublic
        self.idTokenAlgorithm = idTokenAlgorithm
        self.thirdParty = thirdParty
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.enabled = enabled
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        func strings(_ name: String) throws(WireError) -> [String]? { reader.value(name) == nil ? nil : try reader.strings(name) }
        name = try reader.optionalString("name")
        redirectURIs = try strings("redirectUris")
        postLogoutRedirectURIs = try strings("postLogoutRedirectUris")
        scopes = try strings("scopes")
        isPublic = try reader.optionalBool("public")
        idTokenAlgorithm = try reader.optionalString("idTokenAlgorithm")
        thirdParty = try reader.optionalBool("thirdParty")
        accessTokenLifetime = try reader.optionalInt("accessTokenLifetime")
        refreshTokenLifetime = try reader.optionalInt("refreshTokenLifetime")
        enabled = try reader.optionalBool("enabled")
    }

    public var json: JSONValue {
        func strings(_ values: [String]?) -> JSONValue? { values.map { .array($0.map(JSONValue.string)) } }
        var builder = JSONObjectBuilder()
        builder.set("name", name)
        builder.set("redirectUris", strings(redirectURIs))
        builder.set("postLogoutRedirectUris", strings(postLogoutRedirectURIs))
        builder.set("scopes", strings(scopes))
        builder.set("public", isPublic)
        builder.set("idTokenAlgorithm", idTokenAlgorithm)
        builder.set("thirdParty", thirdParty)
        builder.set("accessTokenLifetime", accessTokenLifetime)
        builder.set("refreshTokenLifetime", refreshTokenLifetime)
        builder.set("enabled", enabled)
        return builder.value
    }
}
