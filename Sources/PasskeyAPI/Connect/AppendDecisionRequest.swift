public import PasskeyWire

/// `POST /connect/append/decision`: whether to offer this device a passkey now.
public struct AppendDecisionRequest: JSONRepresentable, Hashable {
    public var client: ClientReportJSON?
    /// When the person last declined the offer (ISO 8601, with or without fractional seconds).
    public var lastDeclinedAt: String?

    public init(client: ClientReportJSON? = nil, lastDeclinedAt: String? = nil) {
        self.client = client
        self.lastDeclinedAt = lastDeclinedAt
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        client = try reader.optional("client", as: ClientReportJSON.self)
        lastDeclinedAt = try reader.optionalString("lastDeclinedAt")
    }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("client", client)
        builder.set("lastDeclinedAt", lastDeclinedAt)
        return builder.value
    }
}

/// The append decision, with how many passkeys the account has and which kind of token decided (an app that asked for
/// an append token and got a list token learns it here, not at the append).
public struct AppendDecisionAnswer: JSONRepresentable, Hashable {
    public var decision: ConnectDecision
    public var passkeys: Int
    /// Always sent by this server; servers before list tokens could decide sent none.
    public var tokenType: String?

    public init(decision: ConnectDecision, passkeys: Int, tokenType: String?) {
        self.decision = decision
        self.passkeys = passkeys
        self.tokenType = tokenType
    }

    public init(json: JSONValue) throws(WireError) {
        decision = try ConnectDecision(json: json)
        let reader = try JSONObjectReader(json)
        passkeys = try reader.int("passkeys")
        tokenType = try reader.optionalString("tokenType")
    }

    public var json: JSONValue {
        var object: JSONObject = ["step": .string(decision.step), "reason": .string(decision.reason), "passkeys": .number(Double(passkeys))]
        if let tokenType { object["tokenType"] = .string(tokenType) }
        return .object(object)
    }
}
