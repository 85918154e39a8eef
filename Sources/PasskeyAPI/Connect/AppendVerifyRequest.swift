public import PasskeyWire

/// `POST /connect/append/verify`: the new passkey for append options, and optionally the device, for the decision in
/// the answer's list.
public struct AppendVerifyRequest: JSONRepresentable, Hashable {
    public var challengeKey: String
    public var cred: RegistrationResponseJSON
    public var client: ClientReportJSON?
    public var lastDeclinedAt: String?

    public init(challengeKey: String, cred: RegistrationResponseJSON, client: ClientReportJSON? = nil, lastDeclinedAt: String? = nil) {
        self.challengeKey = challengeKey
        self.cred = cred
        self.client = client
        self.lastDeclinedAt = lastDeclinedAt
    }

    /// The credential is read first, as a malformed one is the first thing to report.
    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        cred = try reader.credential("cred", as: RegistrationResponseJSON.self)
        client = try reader.optional("client", as: ClientReportJSON.self)
        lastDeclinedAt = try reader.optionalString("lastDeclinedAt")
        challengeKey = try reader.string("challengeKey")
    }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("challengeKey", challengeKey)
        builder.set("cred", cred)
        builder.set("client", client)
        builder.set("lastDeclinedAt", lastDeclinedAt)
        return builder.value
    }
}
