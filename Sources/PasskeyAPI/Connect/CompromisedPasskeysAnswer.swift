public import PasskeyWire

/// `GET /passkeys/compromised` (backend API key): every stored passkey whose authenticator model the metadata BLOB in
/// force reports compromised, oldest first, with its account: for a backend to warn those people or ask them for a new
/// passkey. Each entry's `passkey.compromise` says what was reported and whether its sign-ins are refused.
public struct CompromisedPasskeysAnswer: JSONRepresentable, Hashable {
    public struct Item: JSONRepresentable, Hashable {
        public var userId: String
        /// `null` for an anonymous account or one since deleted.
        public var username: String?
        public var passkey: PasskeyEntry

        public init(userId: String, username: String?, passkey: PasskeyEntry) {
            self.userId = userId
            self.username = username
            self.passkey = passkey
        }

        public init(json: JSONValue) throws(WireError) {
            let reader = try JSONObjectReader(json)
            userId = try reader.string("userId")
            username = try reader.optionalString("username")
            passkey = try reader.required("passkey", as: PasskeyEntry.self)
        }

        public var json: JSONValue {
            ["userId": .string(userId), "username": username.map(JSONValue.string) ?? .null, "passkey": passkey.json]
        }
    }

    public var passkeys: [Item]

    public init(passkeys: [Item]) { self.passkeys = passkeys }

    public init(json: JSONValue) throws(WireError) { passkeys = try JSONObjectReader(json).array("passkeys", of: Item.self) }

    public var json: JSONValue { ["passkeys": .array(passkeys.map(\.json))] }
}
