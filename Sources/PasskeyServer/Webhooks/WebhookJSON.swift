import Foundation
import PasskeyRelyingParty
import PasskeyStorage
import PasskeyWire

/// Webhook endpoints and deliveries as the backend API and the dashboard answer them. An endpoint's secret appears only
/// in the answer that made it (``endpoint(_:withSecret:)``): creation and rotation.
enum WebhookJSON {
    static func endpoint(_ endpoint: WebhookEndpointRecord, withSecret: Bool = false) -> JSONValue {
        var object: JSONObject = [
            "id": .string(endpoint.id), "url": .string(endpoint.url), "description": .string(endpoint.description),
            "eventTypes": .array(endpoint.eventTypes.map(JSONValue.string)), "enabled": .bool(endpoint.disabledAt == nil),
            "createdAt": .string(time(endpoint.createdAt)),
            "previousSecretExpiresAt": endpoint.previousSecretExpiresAt.map { .string(time($0)) } ?? .null,
        ]
        if withSecret { object["secret"] = .string(endpoint.secret) }
        return .object(object)
    }

    static func delivery(_ delivery: WebhookDeliveryRecord) -> JSONValue {
        .object([
            "endpointId": .string(delivery.endpointID), "messageId": .string(delivery.message.id), "sequence": .number(Double(delivery.message.sequence)),
            "type": .string(delivery.message.type), "userId": delivery.message.userID.map(JSONValue.string) ?? .null,
            "createdAt": .string(time(delivery.message.createdAt)), "state": .string(delivery.state.rawValue),
            "attempts": .number(Double(delivery.attempts)),
            "nextAttemptAt": delivery.state == .pending ? .string(time(delivery.nextAttemptAt)) : .null,
            "lastAttemptAt": delivery.lastAttemptAt.map { .string(time($0)) } ?? .null,
            "lastStatus": delivery.lastStatus.map { .number(Double($0)) } ?? .null,
            "lastError": delivery.lastError.map(JSONValue.string) ?? .null,
        ])
    }

    static func time(_ date: Date) -> String { WebhookPayload.timestamp(date) }
}
