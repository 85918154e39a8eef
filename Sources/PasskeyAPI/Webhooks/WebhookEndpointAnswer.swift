public import PasskeyWire

/// A webhook endpoint as the API answers it. Its secret is in the answers that made it (creation, rotation) only.
public struct WebhookEndpointAnswer: JSONRepresentable, Hashable {
    public var id: String
    public var url: String
    public var description: String
    public var eventTypes: [String]
    public var enabled: Bool
    /// ISO 8601.
    public var createdAt: String
    /// While the previous secret still signs beside the new one (after a rotation): until when. `null` otherwise.
    public var previousSecretExpiresAt: String?
    /// `whsec_…`: only in the answer that made it.
    public var secret: String?

    public init(
        id: String, url: String, description: String, eventTypes: [String], enabled: Bool, createdAt: String,
        previousSecretExpiresAt: String?, secret: String? = nil
    ) {
        self.id = id
        self.url = url
        self.description = description
        self.eventTypes = eventTypes
        self.enabled = enabled
        self.createdAt = createdAt
        self.previousSecretExpiresAt = previousSecretExpiresAt
        self.secret = secret
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        id = try reader.string("id")
        url = try reader.string("url")
        description = try reader.string("description")
        eventTypes = try reader.strings("eventTypes")
        enabled = try reader.bool("enabled")
        createdAt = try reader.string("createdAt")
        previousSecretExpiresAt = try reader.optionalString("previousSecretExpiresAt")
        secret = try reader.optionalString("secret")
    }

    public var json: JSONValue {
        var object: JSONObject = [
            "id": .string(id), "url": .string(url), "description": .string(description), "eventTypes": .array(eventTypes.map(JSONValue.string)),
            "enabled": .bool(enabled), "createdAt": .string(createdAt),
            "previousSecretExpiresAt": previousSecretExpiresAt.map(JSONValue.string) ?? .null,
        ]
        if let secret { object["secret"] = .string(secret) }
        return .object(object)
    }
}

/// `GET /webhooks`.
public struct WebhookEndpointListAnswer: JSONRepresentable, Hashable {
    public var endpoints: [WebhookEndpointAnswer]

    public init(endpoints: [WebhookEndpointAnswer]) { self.endpoints = endpoints }

    public init(json: JSONValue) throws(WireError) { endpoints = try JSONObjectReader(json).array("endpoints", of: WebhookEndpointAnswer.self) }

    public var json: JSONValue { ["endpoints": .array(endpoints.map(\.json))] }
}
