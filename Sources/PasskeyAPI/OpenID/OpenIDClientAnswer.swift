public import PasskeyWire

/// An OpenID client as the API answers it. Its secret is only in the answers that made it (creation, rotation).
public struct OpenIDClientAnswer: JSONRepresentable, Hashable {
    public var clientId: String
    public var name: String
    public var redirectURIs: [String]
    public var postLogoutRedirectURIs: [String]
    public var scopes: [String]
    public var isPublic: Bool
    public var idTokenAlgorithm: String
    public var thirdParty: Bool
    public var accessTokenLifetime: Int
    public var refreshTokenLifetime: Int
    public var enabled: Bool
    /// ISO 8601.
    public var createdAt: String
    /// Only in the answer that made it, for a confidential client.
    public var clientSecret: String?

    public init(
        clientId: String, name: String, redirectURIs: [String], postLogoutRedirectURIs: [String], scopes: [String], isPublic: Bool,
        idTokenAlgorithm: String, thirdParty: Bool, accessTokenLifetime: Int, refreshTokenLifetime: Int, enabled: Bool, createdAt: String,
        clientSecret: String? = nil
    ) {
        self.clientId = clientId
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
        self.createdAt = createdAt
        self.clientSecret = clientSecret
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        clientId = try reader.string("clientId")
        name = try reader.string("name")
        redirectURIs = try reader.strings("redirectUris")
        postLogoutRedirectURIs = try reader.strings("postLogoutRedirectUris")
        scopes = try reader.strings("scopes")
        isPublic = try reader.bool("public")
        idTokenAlgorithm = try reader.string("idTokenAlgorithm")
        thirdParty = try reader.bool("thirdParty")
        accessTokenLifetime = try reader.int("accessTokenLifetime")
        refreshTokenLifetime = try reader.int("refreshTokenLifetime")
        enabled = try reader.bool("enabled")
        createdAt = try reader.string("createdAt")
        clientSecret = try reader.optionalString("clientSecret")
    }

    public var json: JSONValue {
        func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        var object: JSONObject = [
            "clientId": .string(clientId), "name": .string(name), "redirectUris": strings(redirectURIs),
            "postLogoutRedirectUris": strings(postLogoutRedirectURIs), "scopes": strings(scopes), "public": .bool(isPublic),
            "idTokenAlgorithm": .string(idTokenAlgorithm), "thirdParty": .bool(thirdParty),
            "accessTokenLifetime": .number(Double(accessTokenLifetime)), "refreshTokenLifetime": .number(Double(refreshTokenLifetime)),
            "enabled": .bool(enabled), "createdAt": .string(createdAt),
        ]
        if let clientSecret { object["clientSecret"] = .string(clientSecret) }
        return .object(object)
    }
}

/// `GET /oidc/clients`.
public struct OpenIDClientListAnswer: JSONRepresentable, Hashable {
    public var clients: [OpenIDClientAnswer]

    public init(clients: [OpenIDClientAnswer]) { self.clients = clients }

    public init(json: JSONValue) throws(WireError) { clients = try JSONObjectReader(json).array("clients", of: OpenIDClientAnswer.self) }

    public var json: JSONValue { ["clients": .array(clients.map(\.json))] }
}
