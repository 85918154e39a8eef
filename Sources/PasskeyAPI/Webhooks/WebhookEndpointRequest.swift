public import PasskeyWire

/// `POST /webhooks` (and the dashboard's): a new endpoint. `PATCH /webhooks/{id}` takes the same members, each
/// optional, and `enabled`.
public struct WebhookEndpointRequest: JSONRepresentable, Hashable {
    /// Required when creating.
    public var url: String?
    public var description: String?
    /// The event types sent to it; none: every type.
    public var eventTypes: [String]?
    /// Only when changing an endpoint.
    public var enabled: Bool?

    public init(url: String? = nil, description: String? = nil, eventTypes: [String]? = nil, enabled: Bool? = nil) {
        self.url = url
        self.description = description
        self.eventTypes = eventTypes
        self.enabled = enabled
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        url = try reader.optionalString("url")
        description = try reader.optionalString("description")
        eventTypes = reader.value("eventTypes") == nil ? nil : try reader.strings("eventTypes")
        enabled = try reader.optionalBool("enabled")
    }

    /// The URL an endpoint is created with: missing is `field_missing`.
    public func requiredURL() throws(WireError) -> String { try required(url, "url") }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("url", url)
        builder.set("description", description)
        builder.set("eventTypes", eventTypes.map { JSONValue.array($0.map(JSONValue.string)) })
        builder.set("enabled", enabled)
        return builder.value
    }
}
