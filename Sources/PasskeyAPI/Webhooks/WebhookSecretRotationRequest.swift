public import PasskeyWire

/// `POST /webhooks/{id}/rotate-secret` (the dashboard's `…/rotate`): a new secret; the old one keeps signing beside it
/// for `overlapSeconds` (24 h by default), so receivers can switch without losing a message.
public struct WebhookSecretRotationRequest: JSONRepresentable, Hashable {
    public var overlapSeconds: Int?

    public init(overlapSeconds: Int? = nil) { self.overlapSeconds = overlapSeconds }

    public init(json: JSONValue) throws(WireError) { overlapSeconds = try JSONObjectReader(json).optionalInt("overlapSeconds") }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("overlapSeconds", overlapSeconds)
        return builder.value
    }
}
