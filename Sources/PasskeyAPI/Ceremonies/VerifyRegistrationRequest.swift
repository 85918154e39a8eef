public import PasskeyWire

/// `POST /verify-registration`: the authenticator's response to registration options.
public struct VerifyRegistrationRequest: JSONRepresentable, Hashable {
    /// The username the options were made for (checked against them); none for an anonymous account. For options made
    /// with `contact`, the contact the person picked in the system's sign-up sheet.
    public var username: String?
    /// The options' `challengeKey`. Without it the challenge is found from the signed client data.
    public var challengeKey: String?
    public var cred: RegistrationResponseJSON
    /// A new display name for the account (the sign-up sheet's), when the person changed it.
    public var displayName: String?

    public init(cred: RegistrationResponseJSON, challengeKey: String?, username: String? = nil, displayName: String? = nil) {
        self.cred = cred
        self.challengeKey = challengeKey
        self.username = username
        self.displayName = displayName
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        username = try reader.optionalString("username")
        challengeKey = try reader.optionalString("challengeKey")
        cred = try reader.credential("cred", as: RegistrationResponseJSON.self)
        displayName = try reader.optionalString("displayName")
    }

    /// The challenge key, for endpoints whose options always give one (`/links/verify`, the dashboard's ceremonies):
    /// missing is `field_missing`.
    public func requiredChallengeKey() throws(WireError) -> String { try required(challengeKey, "challengeKey") }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("username", username)
        builder.set("challengeKey", challengeKey)
        builder.set("cred", cred)
        builder.set("displayName", displayName)
        return builder.value
    }
}
