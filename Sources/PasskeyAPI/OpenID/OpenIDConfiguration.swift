public import PasskeyWire

/// `GET /.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §3): what a client reads to find the
/// endpoints, the keys and what this provider supports.
public struct OpenIDConfiguration: JSONRepresentable, Hashable {
    public var issuer: String
    public var authorizationEndpoint: String
    public var tokenEndpoint: String
    public var userinfoEndpoint: String
    public var jwksURI: String
    public var endSessionEndpoint: String
    public var scopesSupported: [String]
    public var idTokenSigningAlgValuesSupported: [String]

    public init(
        issuer: String, authorizationEndpoint: String, tokenEndpoint: String, userinfoEndpoint: String, jwksURI: String,
        endSessionEndpoint: String, scopesSupported: [String], idTokenSigningAlgValuesSupported: [String]
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.userinfoEndpoint = userinfoEndpoint
        self.jwksURI = jwksURI
        self.endSessionEndpoint = endSessionEndpoint
        self.scopesSupported = scopesSupported
        self.idTokenSigningAlgValuesSupported = idTokenSigningAlgValuesSupported
    }

    /// The fixed parts: only the code flow, PKCE with S256, pairwise identifiers not offered.
    public static let responseTypes = ["code"]
    public static let responseModes = ["query", "form_post"]
    public static let grantTypes = ["authorization_code", "refresh_token"]
    public static let subjectTypes = ["public"]
    public static let tokenEndpointAuthMethods = ["client_secret_basic", "client_secret_post", "none"]
    public static let codeChallengeMethods = ["S256"]
    public static let claims = ["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "amr", "acr", "azp", "sid", "name", "preferred_username", "email", "email_verified"]
    public static let prompts = ["none", "login", "consent"]

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        issuer = try reader.string("issuer")
        authorizationEndpoint = try reader.string("authorization_endpoint")
        tokenEndpoint = try reader.string("token_endpoint")
        userinfoEndpoint = try reader.string("userinfo_endpoint")
        jwksURI = try reader.string("jwks_uri")
        endSessionEndpoint = try reader.string("end_session_endpoint")
        scopesSupported = try reader.strings("scopes_supported")
        idTokenSigningAlgValuesSupported = try reader.strings("id_token_signing_alg_values_supported")
    }

    public var json: JSONValue {
        func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        return .object([
            "issuer": .string(issuer), "authorization_endpoint": .string(authorizationEndpoint), "token_endpoint": .string(tokenEndpoint),
            "userinfo_endpoint": .string(userinfoEndpoint), "jwks_uri": .string(jwksURI), "end_session_endpoint": .string(endSessionEndpoint),
            "scopes_supported": strings(scopesSupported), "response_types_supported": strings(Self.responseTypes),
            "response_modes_supported": strings(Self.responseModes), "grant_types_supported": strings(Self.grantTypes),
            "subject_types_supported": strings(Self.subjectTypes), "id_token_signing_alg_values_supported": strings(idTokenSigningAlgValuesSupported),
            "token_endpoint_auth_methods_supported": strings(Self.tokenEndpointAuthMethods),
            "code_challenge_methods_supported": strings(Self.codeChallengeMethods), "claims_supported": strings(Self.claims),
            "prompt_values_supported": strings(Self.prompts), "authorization_response_iss_parameter_supported": .bool(true),
            "claims_parameter_supported": .bool(false), "request_parameter_supported": .bool(false),
            "request_uri_parameter_supported": .bool(false),
        ])
    }
}
