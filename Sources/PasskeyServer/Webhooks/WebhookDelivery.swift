import Foundation
import Logging
import PasskeyAPI
import PasskeyRelyingParty
import PasskeyStorage
import ServiceLifecycle
import Synchronization

/// The background service that delivers the webhook outbox (``PasskeyRelyingParty/WebhookDispatcher``) until the
/// server shuts down. A failed attempt is logged at warning with the endpoint, the message id and type and why; never
/// the payload, a secret or the URL's query. A delivery whose retries ran out is an error and an event in the
/// dashboard's log (`webhook.failed`).
struct WebhookDelivery<Repository: PasskeyRepository>: Service {
    let repository: Repository
    let settings: ServerConfiguration.WebhookSettings
    let events: EventRecorder
    let logger: Logger

    init(repository: Repository, settings: ServerConfiguration.WebhookSettings, events: EventRecorder, logger: Logger) {
        self.repository = repository
        self.settings = settings
        self.events = events
        self.logger = logger
    }

    /// Each attempt makes and shuts down its own HTTP client (``HTTPWebhookTransport``): nothing outlives the service.
    func run() async throws {
        let transport = HTTPWebhookTransport()
        let logger = logger
        let events = events
        let dispatcher = WebhookDispatcher(
            repository: repository, transport: transport, policy: settings.retry, receivers: settings.receivers, resolver: settings.resolver,
            pollInterval: settings.pollInterval,
            owner: "instance-" + UUID().uuidString.lowercased(), now: Date.init
        ) { endpoint, delivery, attempt in
            await Self.report(endpoint, delivery, attempt, events: events, logger: logger)
        }
        // The outbox is polled every few seconds: while the database is down, one warning every five minutes says so
        // (the health check logs the outage and the recovery themselves), not one per poll.
        let lastWarning = Mutex<ContinuousClock.Instant?>(nil)
        await cancelWhenGracefulShutdown {
            await dispatcher.run { error in
                let due = lastWarning.withLock { last in
                    let now = ContinuousClock.now
                    guard last.map({ now - $0 >= .seconds(300) }) ?? true else { return false }
                    last = now
                    return true
                }
                if due { logger.warning("webhook outbox unavailable", metadata: ["error": "\(error.code)"]) }
            }
        }
    }

    static func report(
        _ endpoint: WebhookEndpointRecord, _ delivery: WebhookDeliveryRecord, _ attempt: WebhookAttempt, events: EventRecorder, logger: Logger
    ) async {
        let metadata: Logger.Metadata = [
            "endpoint": "\(endpoint.id)", "message": "\(delivery.message.id)", "type": "\(delivery.message.type)",
            "attempt": "\(delivery.attempts + 1)", "status": "\(attempt.status.map(String.init) ?? "none")",
        ]
        switch attempt.state {
        case .delivered:
            logger.debug("webhook delivered", metadata: metadata)
        case .failed:
            logger.error("webhook delivery failed for good: \(attempt.detail ?? attempt.error ?? "")", metadata: metadata)
            await events.record(
                EventRecord(
                    time: attempt.time, kind: "webhook.failed", result: .failure, code: ErrorCode.webhookDeliveryFailed.rawValue,
                    explanation: "\(delivery.message.type) \(delivery.message.id) to \(endpoint.id): \(attempt.error ?? "failed") after \(delivery.attempts + 1) attempts",
                    userID: delivery.message.userID, username: delivery.message.username),
                logger: logger)
        default:
            logger.warning("webhook delivery failed, will retry: \(attempt.detail ?? attempt.error ?? "")", metadata: metadata)
        }
    }
}
