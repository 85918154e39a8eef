public import PasskeyWire

/// A minted connect token: the bearer secret (shown once), when it expires, and the passkey account it names.
public struct ConnectTokenAnswer: JSONRepresentable, Hashable {
    public var token: String
    /// ISO 8601.
    public var expiresAt: String
    public var userId: String

    public init(token: String, expiresAt: String, userId: String) {
        self.token = token
        self.expiresAt = expiresAt
        self.userId = userId
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        token = try reader.string("token")
        expiresAt = try reader.string("expiresAt")
        userId = try reader.string("userId")
    }

    public var json: JSONValue { ["token": .string(token), "expiresAt": .string(expiresAt), "userId": .string(userId)] }
}
