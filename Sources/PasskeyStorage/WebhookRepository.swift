public import Foundation

/// The webhook event types. An open set: a receiver must ignore a type it does not know.
public struct WebhookEventType: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }
    public var description: String { rawValue }

    /// An account was made (a first passkey, a connect link, an import).
    public static let userCreated: WebhookEventType = "user.created"
    /// An account's username or display name changed.
    public static let userUpdated: WebhookEventType = "user.updated"
    /// An account was deleted, with its passkeys (no `passkey.deleted` is sent for those).
    public static let userDeleted: WebhookEventType = "user.deleted"
    public static let userDisabled: WebhookEventType = "user.disabled"
    public static let userEnabled: WebhookEventType = "user.enabled"
    public static let passkeyCreated: WebhookEventType = "passkey.created"
    public static let passkeyDeleted: WebhookEventType = "passkey.deleted"
    public static let passkeyRenamed: WebhookEventType = "passkey.renamed"
    /// A sign-in whose signature counter did not increase: a possibly cloned authenticator (refused, or accepted under
    /// `--allow-counter-regression`).
    public static let signInCounterRegressed: WebhookEventType = "signin.counter_regressed"
    /// A recovery or onboarding link was redeemed: a passkey was added to the account (replacing the others, for a
    /// recovery link made so).
    public static let recoveryLinkUsed: WebhookEventType = "recovery.link_used"
    /// A new metadata BLOB reports the passkey's authenticator model compromised (FIDO Metadata Service status
    /// reports): sent once per passkey, by the instance that stored the BLOB.
    public static let passkeyAuthenticatorCompromised: WebhookEventType = "passkey.authenticator_compromised"

    /// Every type this server sends.
    public static let all: [WebhookEventType] = [
        .userCreated, .userUpdated, .userDeleted, .userDisabled, .userEnabled, .passkeyCreated, .passkeyDeleted, .passkeyRenamed,
        .signInCounterRegressed, .recoveryLinkUsed, .passkeyAuthenticatorCompromised,
    ]
}

/// Webhook endpoints and the outbox of messages to them.
///
/// Messages about accounts and passkeys are written by the store itself, in the transaction of the change (SQL
/// triggers on the databases; the mutations themselves in memory), and only while an enabled endpoint receives the
/// type: so no change can commit without its message, whichever path made it (the API, the dashboard, the shell).
/// Delivery is at least once: one instance at a time delivers to an endpoint (``leaseWebhookEndpoint(id:owner:until:now:)``),
/// in the order messages were written.
public protocol WebhookRepository: Sendable {
    /// Adds the endpoint unless `limit` endpoints exist already (`limitReached`): counted and added in one transaction,
    /// so concurrent additions, on any instance, never pass the limit.
    func addWebhookEndpoint(_ endpoint: WebhookEndpointRecord, limit: Int) async throws(StorageError)
    /// Every endpoint, oldest first.
    func webhookEndpoints() async throws(StorageError) -> [WebhookEndpointRecord]
    func webhookEndpoint(id: String) async throws(StorageError) -> WebhookEndpointRecord?
    /// Stores the endpoint's URL, description, event types, secrets and disabled time. `notFound` when it is gone.
    func updateWebhookEndpoint(_ endpoint: WebhookEndpointRecord) async throws(StorageError)
    /// Deletes the endpoint and its deliveries. `notFound` when it is gone.
    func deleteWebhookEndpoint(id: String) async throws(StorageError)

    /// Writes `message` (its ``WebhookMessageRecord/sequence`` is assigned) for every enabled endpoint that receives its
    /// type, due at once; nothing when there is none. For events no stored row reports (a counter regression).
    func enqueueWebhookMessage(_ message: WebhookMessageRecord) async throws(StorageError)

    /// The endpoints with a pending delivery due at `now` and no other instance's unexpired lease.
    func dueWebhookEndpoints(now: Date) async throws(StorageError) -> [String]
    /// Takes (or extends) the right to deliver to the endpoint until `until`: true when `owner` holds it now. Atomic
    /// across instances: of two asking at once, one gets it.
    func leaseWebhookEndpoint(id: String, owner: String, until: Date, now: Date) async throws(StorageError) -> Bool
    /// Gives the lease up, when `owner` holds it.
    func releaseWebhookEndpoint(id: String, owner: String) async throws(StorageError)
    /// The endpoint's pending deliveries, oldest message first: the first is the next to send.
    func pendingWebhookDeliveries(endpointID: String, limit: Int) async throws(StorageError) -> [WebhookDeliveryRecord]
    /// Records an attempt of the delivery of message `sequence` to the endpoint.
    func recordWebhookAttempt(endpointID: String, sequence: Int64, _ attempt: WebhookAttempt) async throws(StorageError)

    /// Deliveries, newest message first, of one endpoint or all; with `before`, only older messages than that
    /// sequence (the cursor of the next page).
    func webhookDeliveries(endpointID: String?, before: Int64?, limit: Int) async throws(StorageError) -> [WebhookDeliveryRecord]
    /// Makes the endpoint's failed deliveries pending again, due at `now`; returns how many.
    func retryFailedWebhookDeliveries(endpointID: String, now: Date) async throws(StorageError) -> Int
    /// Deletes delivered and failed deliveries of messages written before `time`, and messages left without delivery;
    /// returns how many deliveries.
    @discardableResult
    func purgeWebhookDeliveries(before time: Date) async throws(StorageError) -> Int
}
