public import PasskeyWire

/// What registration options are asked for with (`POST /generate-registration-options`, `/api/registration-challenge`,
/// `/api/start-registration`; `GET /generate-registration-options` takes the same members as query parameters).
public struct RegistrationOptionsRequest: JSONRepresentable, Hashable {
    /// The new account's name; none for an anonymous account, or for the system's sign-up sheet (`contact`).
    public var username: String?
    public var displayName: String?
    /// The contact kinds the system's sign-up sheet may offer: `email`, `phone`, or both comma-separated.
    public var contact: String?

    public init(username: String? = nil, displayName: String? = nil, contact: String? = nil) {
        self.username = username
        self.displayName = displayName
        self.contact = contact
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        username = try reader.optionalString("username")
        displayName = try reader.optionalString("displayName")
        contact = try reader.optionalString("contact")
    }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("username", username)
        builder.set("displayName", displayName)
        builder.set("contact", contact)
        return builder.value
    }
}
