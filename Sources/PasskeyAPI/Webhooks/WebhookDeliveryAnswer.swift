public import PasskeyWire

/// One message's delivery to one endpoint, with its attempts so far.
public struct WebhookDeliveryAnswer: JSONRepresentable, Hashable {
    public var endpointId: String
    public var messageId: String
    public var sequence: Int
    public var type: String
    public var userId: String?
    /// ISO 8601.
    public var createdAt: String
    /// `pending`, `delivered` or `failed`.
    public var state: String
    public var attempts: Int
    /// While pending.
    public var nextAttemptAt: String?
    public var lastAttemptAt: String?
    public var lastStatus: Int?
    /// What went wrong at the last attempt, in a few words.
    public var lastError: String?

    public init(
        endpointId: String, messageId: String, sequence: Int, type: String, userId: String?, createdAt: String, state: String,
        attempts: Int, nextAttemptAt: String?, lastAttemptAt: String?, lastStatus: Int?, lastError: String?
    ) {
        self.endpointId = endpointId
        self.messageId = messageId
        self.sequence = sequence
        self.type = type
        self.userId = userId
        self.createdAt = createdAt
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastAttemptAt = lastAttemptAt
        self.lastStatus = lastStatus
        self.lastError = lastError
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        endpointId = try reader.string("endpointId")
        messageId = try reader.string("messageId")
        sequence = try reader.int("sequence")
        type = try reader.string("type")
        userId = try reader.optionalString("userId")
        createdAt = try reader.string("createdAt")
        state = try reader.string("state")
        attempts = try reader.int("attempts")
        nextAttemptAt = try reader.optionalString("nextAttemptAt")
        lastAttemptAt = try reader.optionalString("lastAttemptAt")
        lastStatus = try reader.optionalInt("lastStatus")
        lastError = try reader.optionalString("lastError")
    }

    /// Every member is present; the optional ones as `null`.
    public var json: JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        return [
            "endpointId": .string(endpointId), "messageId": .string(messageId), "sequence": .number(Double(sequence)), "type": .string(type),
            "userId": text(userId), "createdAt": .string(createdAt), "state": .string(state), "attempts": .number(Double(attempts)),
            "nextAttemptAt": text(nextAttemptAt), "lastAttemptAt": text(lastAttemptAt),
            "lastStatus": lastStatus.map { .number(Double($0)) } ?? .null, "lastError": text(lastError),
        ]
    }
}

/// `GET /webhooks/{id}/deliveries`.
public struct WebhookDeliveryListAnswer: JSONRepresentable, Hashable {
    public var deliveries: [WebhookDeliveryAnswer]

    public init(deliveries: [WebhookDeliveryAnswer]) { self.deliveries = deliveries }

    public init(json: JSONValue) throws(WireError) { deliveries = try JSONObjectReader(json).array("deliveries", of: WebhookDeliveryAnswer.self) }

    public var json: JSONValue { ["deliveries": .array(deliveries.map(\.json))] }
}

/// `POST /webhooks/{id}/retry`: how many failed deliveries were queued again.
public struct WebhookRetryAnswer: JSONRepresentable, Hashable {
    public var retried: Int

    public init(retried: Int) { self.retried = retried }

    public init(json: JSONValue) throws(WireError) { retried = try JSONObjectReader(json).int("retried") }

    public var json: JSONValue { ["retried": .number(Double(retried))] }
}
