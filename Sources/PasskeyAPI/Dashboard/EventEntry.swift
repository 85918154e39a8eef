public import PasskeyWire

/// An event of the dashboard's log, as `GET /dashboard/api/events` and the live stream send it. What a request brought
/// (an origin, a user agent, a forwarded address, the values a check compared) comes escaped for display.
public struct EventEntry: JSONRepresentable, Hashable {
    public var id: Int
    /// ISO 8601.
    public var time: String?
    /// `registration.verify`, `admin.delete_user`, `webhook.failed`…
    public var kind: String
    /// `success` or `failure`.
    public var result: String
    public var code: String?
    public var explanation: String?
    public var userId: String?
    public var username: String?
    public var credentialIdPrefix: String?
    public var origin: String?
    public var rpId: String?
    public var expected: String?
    public var received: String?
    public var clientIp: String?
    public var userAgent: String?
    public var requestId: String?

    public init(
        id: Int, time: String?, kind: String, result: String, code: String?, explanation: String?, userId: String?, username: String?,
        credentialIdPrefix: String?, origin: String?, rpId: String?, expected: String?, received: String?, clientIp: String?,
        userAgent: String?, requestId: String?
    ) {
        self.id = id
        self.time = time
        self.kind = kind
        self.result = result
        self.code = code
        self.explanation = explanation
        self.userId = userId
        self.username = username
        self.credentialIdPrefix = credentialIdPrefix
        self.origin = origin
        self.rpId = rpId
        self.expected = expected
        self.received = received
        self.clientIp = clientIp
        self.userAgent = userAgent
        self.requestId = requestId
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        id = try reader.int("id")
        time = try reader.optionalString("time")
        kind = try reader.string("kind")
        result = try reader.string("result")
        code = try reader.optionalString("code")
        explanation = try reader.optionalString("explanation")
        userId = try reader.optionalString("userId")
        username = try reader.optionalString("username")
        credentialIdPrefix = try reader.optionalString("credentialIdPrefix")
        origin = try reader.optionalString("origin")
        rpId = try reader.optionalString("rpId")
        expected = try reader.optionalString("expected")
        received = try reader.optionalString("received")
        clientIp = try reader.optionalString("clientIp")
        userAgent = try reader.optionalString("userAgent")
        requestId = try reader.optionalString("requestId")
    }

    /// Every member is present; those without a value as `null`.
    public var json: JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        return [
            "id": .number(Double(id)), "time": text(time), "kind": .string(kind), "result": .string(result), "code": text(code),
            "explanation": text(explanation), "userId": text(userId), "username": text(username), "credentialIdPrefix": text(credentialIdPrefix),
            "origin": text(origin), "rpId": text(rpId), "expected": text(expected), "received": text(received), "clientIp": text(clientIp),
            "userAgent": text(userAgent), "requestId": text(requestId),
        ]
    }
}

/// `GET /dashboard/api/events`: a page of events, newest first, and the id to ask for the next page `before` (`null`
/// on the last page).
public struct EventListAnswer: JSONRepresentable, Hashable {
    public var events: [EventEntry]
    public var next: Int?

    public init(events: [EventEntry], next: Int?) {
        self.events = events
        self.next = next
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        events = try reader.array("events", of: EventEntry.self)
        next = try reader.optionalInt("next")
    }

    public var json: JSONValue { ["events": .array(events.map(\.json)), "next": next.map { .number(Double($0)) } ?? .null] }
}
