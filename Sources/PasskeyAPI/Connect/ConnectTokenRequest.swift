public import PasskeyWire

/// `POST /connect/tokens` (the app's backend, with its API key): a short-lived token for one step of one of the app's
/// users.
public struct ConnectTokenRequest: JSONRepresentable, Hashable {
    /// `passkey-append`, `passkey-list`, `passkey-delete` or `passkey-login`.
    public var type: String
    public var user: User

    /// The app's user: its own id, and the names a new passkey account gets.
    public struct User: JSONRepresentable, Hashable {
        public var id: String
        public var name: String?
        public var displayName: String?

        public init(id: String, name: String? = nil, displayName: String? = nil) {
            self.id = id
            self.name = name
            self.displayName = displayName
        }

        public init(json: JSONValue) throws(WireError) {
            let reader = try JSONObjectReader(json)
            id = try reader.string("id")
            name = try reader.optionalString("name")
            displayName = try reader.optionalString("displayName")
        }

        public var json: JSONValue {
            var builder = JSONObjectBuilder()
            builder.set("id", id)
            builder.set("name", name)
            builder.set("displayName", displayName)
            return builder.value
        }
    }

    public init(type: String, user: User) {
        self.type = type
        self.user = user
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        type = try reader.string("type")
        user = try reader.required("user", as: User.self)
    }

    public var json: JSONValue { ["type": .string(type), "user": user.json] }
}
