import Foundation
import PasskeyAPI
import PasskeyRelyingParty
import PasskeyStorage

/// Webhook endpoints and deliveries as the backend API and the dashboard answer them. An endpoint's secret appears only
/// in the answer that made it (``endpoint(_:withSecret:)``): creation and rotation.
enum WebhookJSON {
    static func endpoint(_ endpoint: WebhookEndpointRecord, withSecret: Bool = false) -> WebhookEndpointAnswer {
        WebhookEndpointAnswer(
            id: endpoint.id, url: endpoint.url, description: endpoint.description, eventTypes: endpoint.eventTypes,
            enabled: endpoint.disabledAt == nil, createdAt: time(endpoint.createdAt), previousSecretExpiresAt: endpoint.previousSecretExpiresAt.map(time),
            secret: withSecret ? endpoint.secret : nil)
    }

    static func delivery(_ delivery: WebhookDeliveryRecord) -> WebhookDeliveryAnswer {
        WebhookDeliveryAnswer(
            endpointId: delivery.endpointID, messageId: delivery.message.id, sequence: Int(delivery.message.sequence), type: delivery.message.type,
            userId: delivery.message.userID, createdAt: time(delivery.message.createdAt), state: delivery.state.rawValue, attempts: delivery.attempts,
            nextAttemptAt: delivery.state == .pending ? time(delivery.nextAttemptAt) : nil, lastAttemptAt: delivery.lastAttemptAt.map(time),
            lastStatus: delivery.lastStatus, lastError: delivery.lastError)
    }

    static func time(_ date: Date) -> String { WebhookPayload.timestamp(date) }
}
