public import PasskeyWire

/// What minting a link answers: the token (shown once), the page that redeems it, and its terms.
public struct AccountLinkAnswer: JSONRepresentable, Hashable {
    /// `pal_…`: the link's secret, stored hashed.
    public var token: String
    /// The server's page with the token (`…/#link=pal_…`).
    public var url: String
    public var userId: String
    /// ISO 8601.
    public var expiresAt: String
    public var replacesPasskeys: Bool

    public init(token: String, url: String, userId: String, expiresAt: String, replacesPasskeys: Bool) {
        self.token = token
        self.url = url
        self.userId = userId
        self.expiresAt = expiresAt
        self.replacesPasskeys = replacesPasskeys
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        token = try reader.string("token")
        url = try reader.string("url")
        userId = try reader.string("userId")
        expiresAt = try reader.string("expiresAt")
        replacesPasskeys = try reader.bool("replacesPasskeys")
    }

    public var json: JSONValue {
        [
            "token": .string(token), "url": .string(url), "userId": .string(userId), "expiresAt": .string(expiresAt),
            "replacesPasskeys": .bool(replacesPasskeys),
        ]
    }
}
