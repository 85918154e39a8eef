public import PasskeyWire

/// `GET /dashboard/api/webhooks`: the endpoints, the latest deliveries, and the event types an endpoint may ask for.
public struct WebhookOverviewAnswer: JSONRepresentable, Hashable {
    public var endpoints: [WebhookEndpointAnswer]
    public var deliveries: [WebhookDeliveryAnswer]
    public var eventTypes: [String]

    public init(endpoints: [WebhookEndpointAnswer], deliveries: [WebhookDeliveryAnswer], eventTypes: [String]) {
        self.endpoints = endpoints
        self.deliveries = deliveries
        self.eventTypes = eventTypes
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        endpoints = try reader.array("endpoints", of: WebhookEndpointAnswer.self)
        deliveries = try reader.array("deliveries", of: WebhookDeliveryAnswer.self)
        eventTypes = try reader.strings("eventTypes")
    }

    public var json: JSONValue {
        [
            "endpoints": .array(endpoints.map(\.json)), "deliveries": .array(deliveries.map(\.json)),
            "eventTypes": .array(eventTypes.map(JSONValue.string)),
        ]
    }
}
