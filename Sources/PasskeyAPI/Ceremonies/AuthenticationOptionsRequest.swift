public import PasskeyWire

/// What sign-in options are asked for with (`POST /generate-authentication-options`, `/api/authentication-challenge`,
/// `/api/start-authentication`; `GET /generate-authentication-options?username=` takes it as a query parameter).
public struct AuthenticationOptionsRequest: JSONRepresentable, Hashable {
    /// The account to sign in to; none for a sign-in without a username (discoverable passkeys, AutoFill).
    public var username: String?

    public init(username: String? = nil) { self.username = username }

    public init(json: JSONValue) throws(WireError) {
        username = try JSONObjectReader(json).optionalString("username")
    }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("username", username)
        return builder.value
    }
}
