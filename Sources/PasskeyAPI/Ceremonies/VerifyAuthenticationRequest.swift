public import PasskeyWire

/// `POST /verify-authentication`: the authenticator's assertion for sign-in options.
public struct VerifyAuthenticationRequest: JSONRepresentable, Hashable {
    /// The options' `challengeKey`. Without it (the seed guide's `{cred}`) the challenge is found from the signed
    /// client data.
    public var challengeKey: String?
    public var cred: AuthenticationResponseJSON

    public init(cred: AuthenticationResponseJSON, challengeKey: String? = nil) {
        self.cred = cred
        self.challengeKey = challengeKey
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        challengeKey = try reader.optionalString("challengeKey")
        cred = try reader.credential("cred", as: AuthenticationResponseJSON.self)
    }

    /// The challenge key, for endpoints whose options always give one (the dashboard's ceremonies): missing is
    /// `field_missing`.
    public func requiredChallengeKey() throws(WireError) -> String { try required(challengeKey, "challengeKey") }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("challengeKey", challengeKey)
        builder.set("cred", cred)
        return builder.value
    }
}
