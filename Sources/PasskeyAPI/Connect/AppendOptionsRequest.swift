public import PasskeyWire

/// `POST /connect/append/options`: options to add a passkey to the token's account.
public struct AppendOptionsRequest: JSONRepresentable, Hashable {
    /// A passkey (base64url id) the new one replaces once it is verified.
    public var replaces: String?
    /// `conditional` (create without a prompt, where the platform can) or `required`.
    public var mediation: String?

    public init(replaces: String? = nil, mediation: String? = nil) {
        self.replaces = replaces
        self.mediation = mediation
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        replaces = try reader.optionalString("replaces")
        mediation = try reader.optionalString("mediation")
    }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("replaces", replaces)
        builder.set("mediation", mediation)
        return builder.value
    }
}
