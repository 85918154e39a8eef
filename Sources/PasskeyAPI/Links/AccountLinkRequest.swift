public import PasskeyWire

/// `POST /users/{id}/links`: a recovery link (`replacePasskeys`: a lost device) or an onboarding link for an account.
public struct AccountLinkRequest: JSONRepresentable, Hashable {
    /// The passkey the link adds replaces all of the account's others.
    public var replacePasskeys: Bool?
    /// Seconds the link lives (300 to 2 592 000; 86 400 by default).
    public var expiresIn: Int?

    public init(replacePasskeys: Bool? = nil, expiresIn: Int? = nil) {
        self.replacePasskeys = replacePasskeys
        self.expiresIn = expiresIn
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        replacePasskeys = try reader.optionalBool("replacePasskeys")
        expiresIn = try reader.optionalInt("expiresIn")
    }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("replacePasskeys", replacePasskeys)
        builder.set("expiresIn", expiresIn)
        return builder.value
    }
}
