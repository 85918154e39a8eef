public import PasskeyWire

/// `POST /api/complete-authentication` (the app-backend guide's shape): `{assertion, username}`.
public struct BackendCompleteAuthenticationRequest: JSONRepresentable, Hashable {
    public var assertion: AuthenticationResponseJSON
    /// When given, the passkey must be this account's.
    public var username: String?

    public init(assertion: AuthenticationResponseJSON, username: String? = nil) {
        self.assertion = assertion
        self.username = username
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        username = try reader.optionalString("username")
        assertion = try reader.credential("assertion", as: AuthenticationResponseJSON.self)
    }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("assertion", assertion)
        builder.set("username", username)
        return builder.value
    }
}
