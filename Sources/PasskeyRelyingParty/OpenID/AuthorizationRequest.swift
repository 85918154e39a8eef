import Foundation
public import PasskeyStorage
import PasskeyAPI
import PasskeyWire

/// How the authorization response reaches the client (OAuth 2.0 Multiple Response Types §2.1, Form Post Response Mode).
public struct ResponseMode: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Parameters in the redirect URI's query: the code flow's default.
    public static let query = ResponseMode(rawValue: "query")
    /// Parameters posted by the browser in an HTML form.
    public static let formPost = ResponseMode(rawValue: "form_post")
}

/// An authorization request (OpenID Connect Core §3.1.2.1) read and checked against its client: what the sign-in page
/// carries, sealed, until the passkey is verified.
public struct AuthorizationRequest: Sendable, Hashable {
    public var clientID: String
    public var redirectURI: String
    /// The scopes asked for that the client may have; `openid` among them.
    public var scopes: [String]
    public var state: String?
    public var nonce: String?
    /// PKCE (RFC 7636) with S256 only.
    public var codeChallenge: String?
    public var responseMode: ResponseMode
    /// `none`, `login`, `consent`, `select_account`.
    public var prompt: Set<String>
    /// Seconds since the last passkey sign-in the client accepts.
    public var maxAge: Int?
    /// The username the client suggests: the page asks for that account's passkey.
    public var loginHint: String?

    public init(
        clientID: String, redirectURI: String, scopes: [String], state: String?, nonce: String?, codeChallenge: String?,
        responseMode: ResponseMode = .query, prompt: Set<String> = [], maxAge: Int? = nil, loginHint: String? = nil
    ) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.state = state
        self.nonce = nonce
        self.codeChallenge = codeChallenge
        self.responseMode = responseMode
        self.prompt = prompt
        self.maxAge = maxAge
        self.loginHint = loginHint
    }

    /// The scopes this provider knows. Others are ignored (OpenID Connect Core §5.4: scope values not understood are
    /// ignored), so a client asking for `groups` still signs in.
    public static let knownScopes = ["openid", "profile", "email", "offline_access"]

    /// Longest accepted value of any parameter, and of `state`, `nonce` and `login_hint`.
    static let maximumParameterLength = 2048

    /// Reads the parameters of `GET` or `POST /authorize`. `client` finds a client by id (nil: unknown).
    ///
    /// The client and the redirect URI are checked first: until both are known good, a refusal goes to an error page.
    public static func read(
        _ parameters: [(name: String, value: String)], client: (String) async throws(RelyingPartyError) -> OpenIDClientRecord?
    ) async throws -> (AuthorizationRequest, OpenIDClientRecord) {
        var values: [String: String] = [:]
        var repeated: String?
        for (name, value) in parameters {
            if values[name] != nil, repeated == nil { repeated = name }
            values[name] = value
        }
        // RFC 6749 §3.1: a parameter sent twice is invalid; empty ones count as absent.
        func value(_ name: String) -> String? { values[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let clientID = value("client_id"), clientID.utf8.count <= 128 else {
            throw AuthorizationRefusal(.oidcClientUnknown, "The request names no client (client_id).", redirect: nil)
        }
        guard let found = try await client(clientID), found.disabledAt == nil else {
            throw AuthorizationRefusal(.oidcClientUnknown, "No client here has this client_id, or it was disabled.", redirect: nil)
        }
        guard let redirectURI = value("redirect_uri") else {
            throw AuthorizationRefusal(.redirectURIUnregistered, "The request has no redirect_uri.", redirect: nil)
        }
        // RFC 9700 §2.1: exact string comparison, no patterns, no added paths.
        guard found.redirectURIs.contains(redirectURI) else {
            throw AuthorizationRefusal(.redirectURIUnregistered, "The redirect_uri is not one the client registered.", redirect: nil)
        }
        let mode = value("response_mode").map(ResponseMode.init(rawValue:)) ?? .query
        var request = AuthorizationRequest(
            clientID: clientID, redirectURI: redirectURI, scopes: [], state: values["state"], nonce: value("nonce"), codeChallenge: nil,
            responseMode: [ResponseMode.query, .formPost].contains(mode) ? mode : .query)
        func refuse(_ code: ErrorCode, _ description: String) -> AuthorizationRefusal { AuthorizationRefusal(code, description, redirect: request) }

        if let repeated { throw refuse(.invalidRequest, "The parameter \(repeated) was sent more than once.") }
        if let long = values.first(where: { $0.value.utf8.count > maximumParameterLength }) {
            throw refuse(.invalidRequest, "The parameter \(long.key) is longer than \(maximumParameterLength) bytes.")
        }
        guard request.responseMode == mode else { throw refuse(.invalidRequest, "response_mode must be query or form_post.") }
        if values["request"] != nil { throw refuse(.requestNotSupported, "Request objects (request) are not supported.") }
        if values["request_uri"] != nil { throw refuse(.requestURINotSupported, "request_uri is not supported.") }
        guard let responseType = value("response_type") else { throw refuse(.invalidRequest, "The request has no response_type.") }
        guard responseType == "code" else {
            throw refuse(.unsupportedResponseType, "Only the authorization code flow is offered: response_type must be code.")
        }
        let asked = (value("scope") ?? "").split(separator: " ").map(String.init)
        guard asked.contains("openid") else { throw refuse(.invalidScope, "The scope must include openid.") }
        request.scopes = knownScopes.filter { asked.contains($0) && found.scopes.contains($0) }

        // PKCE (RFC 7636 §4.3, RFC 9700 §2.1.1): S256 only; a public client must use it.
        let method = value("code_challenge_method")
        if let challenge = value("code_challenge") {
            guard method == "S256" else { throw refuse(.invalidRequest, "code_challenge_method must be S256: plain is refused.") }
            guard (43...128).contains(challenge.utf8.count), challenge.utf8.allSatisfy(Self.isUnreserved) else {
                throw refuse(.invalidRequest, "code_challenge must be 43 to 128 characters of A-Z, a-z, 0-9, -, ., _ or ~.")
            }
            request.codeChallenge = challenge
        } else if method != nil {
            throw refuse(.invalidRequest, "code_challenge_method without code_challenge.")
        } else if found.isPublic {
            throw refuse(.invalidRequest, "A public client must use PKCE: code_challenge with code_challenge_method S256.")
        }

        let prompt = Set((value("prompt") ?? "").split(separator: " ").map(String.init))
        guard prompt.isSubset(of: ["none", "login", "consent", "select_account"]) else {
            throw refuse(.invalidRequest, "prompt may be none, login, consent or select_account.")
        }
        guard !prompt.contains("none") || prompt.count == 1 else { throw refuse(.invalidRequest, "prompt=none cannot be combined with another value.") }
        request.prompt = prompt
        if let text = value("max_age") {
            guard let maxAge = Int(text), maxAge >= 0, text.utf8.allSatisfy({ (48...57).contains($0) }) else {
                throw refuse(.invalidRequest, "max_age must be a whole number of seconds.")
            }
            request.maxAge = maxAge
        }
        request.loginHint = value("login_hint")
        return (request, found)
    }

    /// RFC 3986 unreserved characters, the PKCE alphabet.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte) || byte == 45 || byte == 46 || byte == 95 || byte == 126
    }

    /// The request as the sealed page parameter carries it.
    var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("client_id", clientID)
        builder.set("redirect_uri", redirectURI)
        builder.set("scope", scopes.joined(separator: " "))
        builder.set("state", state)
        builder.set("nonce", nonce)
        builder.set("code_challenge", codeChallenge)
        builder.set("response_mode", responseMode.rawValue)
        builder.set("prompt", prompt.isEmpty ? nil : prompt.sorted().joined(separator: " "))
        builder.set("max_age", maxAge)
        builder.set("login_hint", loginHint)
        return builder.value
    }

    init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        clientID = try reader.string("client_id")
        redirectURI = try reader.string("redirect_uri")
        scopes = try reader.string("scope").split(separator: " ").map(String.init)
        state = try reader.optionalString("state")
        nonce = try reader.optionalString("nonce")
        codeChallenge = try reader.optionalString("code_challenge")
        responseMode = ResponseMode(rawValue: try reader.string("response_mode"))
        prompt = Set((try reader.optionalString("prompt") ?? "").split(separator: " ").map(String.init))
        maxAge = try reader.optionalInt("max_age")
        loginHint = try reader.optionalString("login_hint")
    }
}
