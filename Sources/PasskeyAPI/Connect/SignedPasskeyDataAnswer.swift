public import PasskeyWire

/// What `POST /connect/verify` says a `signedPasskeyData` proves.
public struct SignedPasskeyDataAnswer: JSONRepresentable, Hashable {
    public var success: Bool
    /// This server's account id (the token's `sub`).
    public var userId: String
    /// The app's own id of the user, when the account is linked to one.
    public var externalUserId: String?
    public var username: String?
    public var credentialId: String
    /// `registration` or `authentication`.
    public var ceremony: String
    /// RFC 8176 methods: `hwk`, and `user` when the user was verified.
    public var amr: [String]
    public var counterRegressed: Bool

    public init(
        userId: String, externalUserId: String?, username: String?, credentialId: String, ceremony: String, amr: [String],
        counterRegressed: Bool
    ) {
        success = true
        self.userId = userId
        self.externalUserId = externalUserId
        self.username = username
        self.credentialId = credentialId
        self.ceremony = ceremony
        self.amr = amr
        self.counterRegressed = counterRegressed
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        success = try reader.bool("success")
        userId = try reader.string("userId")
        externalUserId = try reader.optionalString("externalUserId")
        username = try reader.optionalString("username")
        credentialId = try reader.string("credentialId")
        ceremony = try reader.string("ceremony")
        amr = try reader.strings("amr")
        counterRegressed = try reader.optionalBool("counterRegressed") ?? false
    }

    public var json: JSONValue {
        [
            "success": .bool(success), "userId": .string(userId), "externalUserId": externalUserId.map(JSONValue.string) ?? .null,
            "username": username.map(JSONValue.string) ?? .null, "credentialId": .string(credentialId), "ceremony": .string(ceremony),
            "amr": .array(amr.map(JSONValue.string)), "counterRegressed": .bool(counterRegressed),
        ]
    }
}
