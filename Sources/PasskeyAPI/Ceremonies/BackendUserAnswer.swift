public import PasskeyWire

/// The user object of the app-backend guide (`/api/complete-registration`, `/api/complete-authentication`):
/// `{id, username, displayName, email, createdAt, signedPasskeyData}`.
///
/// `createdAt` is ISO 8601 (`2026-11-28T06:00:00Z`), as OpenAPI's `date-time` and every non-Swift client read it; a
/// Swift `JSONDecoder` reads it with `dateDecodingStrategy = .iso8601` (docs/migrating/passkeymesdk.md).
public struct BackendUserAnswer: JSONRepresentable, Hashable {
    public var id: String
    public var username: String
    public var displayName: String
    /// The username when it is an email address; `null` otherwise.
    public var email: String?
    /// ISO 8601.
    public var createdAt: String
    /// What a backend of the app's own trusts, rather than the user object the device forwards.
    public var signedPasskeyData: String
    /// A sign-in accepted under `--allow-counter-regression` says so, for the backend receiving it.
    public var counterRegressed: Bool

    public init(
        id: String, username: String, displayName: String, email: String?, createdAt: String, signedPasskeyData: String,
        counterRegressed: Bool = false
    ) {
        self.id = id
        self.username = username
        self.displayName = displayName
        self.email = email
        self.createdAt = createdAt
        self.signedPasskeyData = signedPasskeyData
        self.counterRegressed = counterRegressed
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        id = try reader.string("id")
        username = try reader.string("username")
        displayName = try reader.string("displayName")
        email = try reader.optionalString("email")
        createdAt = try reader.string("createdAt")
        signedPasskeyData = try reader.string("signedPasskeyData")
        counterRegressed = try reader.optionalBool("counterRegressed") ?? false
    }

    public var json: JSONValue {
        var object: JSONObject = [
            "id": .string(id), "username": .string(username), "displayName": .string(displayName),
            "email": email.map(JSONValue.string) ?? .null, "createdAt": .string(createdAt), "signedPasskeyData": .string(signedPasskeyData),
        ]
        if counterRegressed { object["counterRegressed"] = true }
        return .object(object)
    }
}
