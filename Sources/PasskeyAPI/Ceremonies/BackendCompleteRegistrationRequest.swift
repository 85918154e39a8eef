public import PasskeyWire

/// `POST /api/complete-registration` (the app-backend guide's shape): `{credential, username, displayName}`.
public struct BackendCompleteRegistrationRequest: JSONRepresentable, Hashable {
    public var credential: RegistrationResponseJSON
    public var username: String?
    public var displayName: String?

    public init(credential: RegistrationResponseJSON, username: String? = nil, displayName: String? = nil) {
        self.credential = credential
        self.username = username
        self.displayName = displayName
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        username = try reader.optionalString("username")
        credential = try reader.credential("credential", as: RegistrationResponseJSON.self)
        displayName = try reader.optionalString("displayName")
    }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("credential", credential)
        builder.set("username", username)
        builder.set("displayName", displayName)
        return builder.value
    }
}
