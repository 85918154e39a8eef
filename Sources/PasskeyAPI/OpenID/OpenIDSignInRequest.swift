public import PasskeyWire

/// `POST /oidc/sign-in`: the sign-in page's passkey assertion for a pending authorization request, or (without `cred`)
/// the person's consent to a third-party client with the browser session they have.
public struct OpenIDSignInRequest: JSONRepresentable, Hashable {
    /// The sealed authorization request the page was given.
    public var request: String
    /// The assertion, from options of `GET /generate-authentication-options`.
    public var cred: AuthenticationResponseJSON?
    public var challengeKey: String?
    /// For a third-party client: the person allowed it (false: declined, `access_denied`).
    public var consent: Bool?

    public init(request: String, cred: AuthenticationResponseJSON?, challengeKey: String? = nil, consent: Bool? = nil) {
        self.request = request
        self.cred = cred
        self.challengeKey = challengeKey
        self.consent = consent
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        request = try reader.string("request")
        cred = try reader.optional("cred", as: AuthenticationResponseJSON.self)
        challengeKey = try reader.optionalString("challengeKey")
        consent = try reader.optionalBool("consent")
    }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("request", request)
        builder.set("cred", cred?.json)
        builder.set("challengeKey", challengeKey)
        builder.set("consent", consent)
        return builder.value
    }
}

/// `POST /oidc/sign-in`'s answer: where the page sends the browser. For `response_mode=form_post`, the page posts
/// `parameters` to `redirectUri`; otherwise it navigates to `location`.
public struct OpenIDSignInAnswer: JSONRepresentable, Hashable {
    /// The redirect URI with the response in its query (`response_mode=query`).
    public var location: String?
    /// `form_post`: the redirect URI, and the parameters posted to it.
    public var formAction: String?
    public var formParameters: [String: String]?

    public init(location: String? = nil, formAction: String? = nil, formParameters: [String: String]? = nil) {
        self.location = location
        self.formAction = formAction
        self.formParameters = formParameters
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        location = try reader.optionalString("location")
        formAction = try reader.optionalString("formAction")
        formParameters = try reader.optionalObject("formParameters").map { object throws(WireError) in
            var parameters: [String: String] = [:]
            for member in object {
                guard let text = member.value.stringValue else {
                    throw WireError(.fieldInvalid, field: "formParameters.\(member.name)", "expected a string")
                }
                parameters[member.name] = text
            }
            return parameters
        }
    }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("location", location)
        builder.set("formAction", formAction)
        builder.set(
            "formParameters",
            formParameters.map { parameters in
                var object = JSONObject()
                for (name, value) in parameters.sorted(by: { $0.key < $1.key }) { object[name] = .string(value) }
                return JSONValue.object(object)
            })
        return builder.value
    }
}
