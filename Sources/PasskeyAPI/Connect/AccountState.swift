public import PasskeyWire

/// `PATCH /users/{id}`: disable the account from now, or enable it again.
public struct AccountStateRequest: JSONRepresentable, Hashable {
    public var disabled: Bool

    public init(disabled: Bool) { self.disabled = disabled }

    public init(json: JSONValue) throws(WireError) { disabled = try JSONObjectReader(json).bool("disabled") }

    public var json: JSONValue { ["disabled": .bool(disabled)] }
}

/// The account's state as the server now enforces it, for the backend to store.
public struct AccountStateAnswer: JSONRepresentable, Hashable {
    public var userId: String
    public var username: String
    public var disabled: Bool
    /// ISO 8601; `null` while enabled.
    public var disabledAt: String?

    public init(userId: String, username: String, disabled: Bool, disabledAt: String?) {
        self.userId = userId
        self.username = username
        self.disabled = disabled
        self.disabledAt = disabledAt
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        userId = try reader.string("userId")
        username = try reader.string("username")
        disabled = try reader.bool("disabled")
        disabledAt = try reader.optionalString("disabledAt")
    }

    public var json: JSONValue {
        [
            "userId": .string(userId), "username": .string(username), "disabled": .bool(disabled),
            "disabledAt": disabledAt.map(JSONValue.string) ?? .null,
        ]
    }
}

/// `PATCH /connect/passkeys/{credentialId}`: a passkey's new name.
public struct PasskeyRenameRequest: JSONRepresentable, Hashable {
    public var name: String

    public init(name: String) { self.name = name }

    public init(json: JSONValue) throws(WireError) { name = try JSONObjectReader(json).string("name") }

    public var json: JSONValue { ["name": .string(name)] }
}
