public import PasskeyWire

/// `POST /connect/login/decision`: how to offer passkey sign-in on this device, for this name.
public struct LoginDecisionRequest: JSONRepresentable, Hashable {
    public var client: ClientReportJSON?
    /// The name typed or remembered, when there is one.
    public var identifier: String?
    /// Passkey sign-ins that failed here lately.
    public var recentFailures: Int?

    public init(client: ClientReportJSON? = nil, identifier: String? = nil, recentFailures: Int? = nil) {
        self.client = client
        self.identifier = identifier
        self.recentFailures = recentFailures
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        client = try reader.optional("client", as: ClientReportJSON.self)
        identifier = try reader.optionalString("identifier")
        recentFailures = try reader.optionalInt("recentFailures")
    }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("client", client)
        builder.set("identifier", identifier)
        builder.set("recentFailures", recentFailures)
        return builder.value
    }
}

/// The login decision: `one-tap` with the account's own spelling of its name, `text-field` (with fresh options for
/// AutoFill when the device has conditional mediation), or `fallback`.
public struct LoginDecisionAnswer: JSONRepresentable, Hashable {
    public var decision: ConnectDecision
    public var identifier: String?
    public var options: AuthenticationOptionsAnswer?

    public init(decision: ConnectDecision, identifier: String? = nil, options: AuthenticationOptionsAnswer? = nil) {
        self.decision = decision
        self.identifier = identifier
        self.options = options
    }

    public init(json: JSONValue) throws(WireError) {
        decision = try ConnectDecision(json: json)
        let reader = try JSONObjectReader(json)
        identifier = try reader.optionalString("identifier")
        options = try reader.optional("options", as: AuthenticationOptionsAnswer.self)
    }

    public var json: JSONValue {
        var object: JSONObject = ["step": .string(decision.step), "reason": .string(decision.reason)]
        if let identifier { object["identifier"] = .string(identifier) }
        if let options { object["options"] = options.json }
        return .object(object)
    }
}
