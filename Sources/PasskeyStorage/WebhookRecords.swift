public import Foundation

/// A receiver of signed webhooks: where messages go, which event types it wants, and the secrets they are signed with.
///
/// The secrets are stored as they are (`whsec_…`): the server signs with them, so it cannot keep only a hash, as it
/// does for API keys. They are never logged, never in a payload, and shown once, when made or rotated.
public struct WebhookEndpointRecord: Sendable, Hashable, Identifiable {
    /// `whe_` and random characters.
    public var id: String
    /// Where messages are POSTed: `https://`, or `http://` on this machine.
    public var url: String
    /// What the operator called it ("billing backend").
    public var description: String
    /// The event types it receives (`user.created`, …); empty for every type.
    public var eventTypes: [String]
    /// The secret every message is signed with.
    public var secret: String
    /// The secret before the last rotation, still signing (beside ``secret``) until ``previousSecretExpiresAt``: a
    /// receiver switches to the new one without a gap.
    public var previousSecret: String?
    public var previousSecretExpiresAt: Date?
    public var createdAt: Date
    /// While set, no message is written for it and nothing is delivered to it.
    public var disabledAt: Date?

    public init(
        id: String, url: String, description: String = "", eventTypes: [String] = [], secret: String, previousSecret: String? = nil,
        previousSecretExpiresAt: Date? = nil, createdAt: Date, disabledAt: Date? = nil
    ) {
        self.id = id
        self.url = url
        self.description = description
        self.eventTypes = eventTypes
        self.secret = secret
        self.previousSecret = previousSecret
        self.previousSecretExpiresAt = previousSecretExpiresAt
        self.createdAt = createdAt
        self.disabledAt = disabledAt
    }

    /// Whether a message of `type` is written for this endpoint.
    public func receives(_ type: String) -> Bool { disabledAt == nil && (eventTypes.isEmpty || eventTypes.contains(type)) }

    /// The secrets that sign at `now`: the current one, and the previous one while its overlap lasts.
    public func signingSecrets(at now: Date) -> [String] {
        guard let previousSecret, let expires = previousSecretExpiresAt, expires > now else { return [secret] }
        return [secret, previousSecret]
    }

    /// The event types as the databases store them, for their triggers to match with a substring search:
    /// ` user.created passkey.created ` (spaces around each), or `*` for every type.
    public var storedEventTypes: String { eventTypes.isEmpty ? "*" : " " + eventTypes.joined(separator: " ") + " " }

    /// ``storedEventTypes`` read back.
    public static func eventTypes(stored: String) -> [String] {
        stored == "*" ? [] : stored.split(separator: " ").map(String.init)
    }
}

/// One event in the webhook outbox, written in the transaction of the change it reports (by the databases' triggers,
/// or with the write that makes it), only when an enabled endpoint receives its type. It holds facts, not the JSON:
/// the payload is rendered when it is sent (``PasskeyRelyingParty``'s `WebhookPayload`). No secret or token is kept.
public struct WebhookMessageRecord: Sendable, Hashable {
    /// The order in which messages were written; deliveries to an endpoint go in this order.
    public var sequence: Int64
    /// The `webhook-id`: the same for every endpoint and every retry, for receivers to drop duplicates.
    public var id: String
    /// `user.created`, `passkey.deleted`, …
    public var type: String
    public var createdAt: Date
    public var userID: String?
    public var username: String?
    public var displayName: String?
    /// The app's own user id linked to the account (connect), when there is one.
    public var externalUserID: String?
    public var credentialID: [UInt8]?
    /// The passkey's name (its new name for `passkey.renamed`).
    public var credentialName: String?
    /// What else the type says: the AAGUID of a new passkey, the name before a rename, `replaced` or `added` for a used
    /// recovery link, `refused` or `accepted` for a counter regression, for a compromised authenticator its AAGUID, the
    /// reported statuses (comma-separated) and `refused` or `flagged` (``CompromiseAnnouncement``), separated by spaces.
    public var detail: String?

    public init(
        sequence: Int64 = 0, id: String, type: String, createdAt: Date, userID: String? = nil, username: String? = nil,
        displayName: String? = nil, externalUserID: String? = nil, credentialID: [UInt8]? = nil, credentialName: String? = nil,
        detail: String? = nil
    ) {
        self.sequence = sequence
        self.id = id
        self.type = type
        self.createdAt = createdAt
        self.userID = userID
        self.username = username
        self.displayName = displayName
        self.externalUserID = externalUserID
        self.credentialID = credentialID
        self.credentialName = credentialName
        self.detail = detail
    }
}

/// A message on its way to one endpoint, and how its attempts went.
public struct WebhookDeliveryRecord: Sendable, Hashable {
    /// `pending` (waiting for its next attempt), `delivered` (a receiver answered 2xx), `failed` (every retry failed).
    public struct State: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { rawValue = value }
        public static let pending: State = "pending"
        public static let delivered: State = "delivered"
        public static let failed: State = "failed"
    }

    public var endpointID: String
    public var message: WebhookMessageRecord
    public var state: State
    public var attempts: Int
    /// When the next attempt may be made (pending only).
    public var nextAttemptAt: Date
    public var lastAttemptAt: Date?
    /// The receiver's HTTP status at the last attempt; nil when it did not answer.
    public var lastStatus: Int?
    /// Why the last attempt failed (no answer, a timeout, a status), for the dashboard.
    public var lastError: String?

    public init(
        endpointID: String, message: WebhookMessageRecord, state: State = .pending, attempts: Int = 0, nextAttemptAt: Date,
        lastAttemptAt: Date? = nil, lastStatus: Int? = nil, lastError: String? = nil
    ) {
        self.endpointID = endpointID
        self.message = message
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastAttemptAt = lastAttemptAt
        self.lastStatus = lastStatus
        self.lastError = lastError
    }
}

/// What one delivery attempt came to.
public struct WebhookAttempt: Sendable, Hashable {
    public var time: Date
    /// The receiver's status; nil when it did not answer.
    public var status: Int?
    /// Why it failed, as the delivery's `lastError` shows it to whoever manages endpoints.
    public var error: String?
    /// The state after it: `delivered`, `failed` (no retry left), or `pending` with ``nextAttemptAt``.
    public var state: WebhookDeliveryRecord.State
    public var nextAttemptAt: Date?
    /// What exactly went wrong, for the server's log; never stored (it can describe the receiver's network).
    public var detail: String?

    public init(
        time: Date, status: Int?, error: String?, state: WebhookDeliveryRecord.State, nextAttemptAt: Date? = nil, detail: String? = nil
    ) {
        self.time = time
        self.status = status
        self.error = error
        self.state = state
        self.nextAttemptAt = nextAttemptAt
        self.detail = detail
    }
}

extension WebhookMessageRecord {
    /// A new message id: `msg_` and 32 hex digits (a random UUID's 122 bits), as the databases' triggers make them.
    public static func newID() -> String { "msg_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "") }

    /// `recovery.link_used`: the passkey `credential` was added to `owner`'s account with a link, replacing the
    /// account's other passkeys or beside them.
    public static func linkUsed(credential: CredentialRecordEntry, owner: UserRecord, replacing: Bool, at time: Date) -> WebhookMessageRecord {
        WebhookMessageRecord(
            id: newID(), type: WebhookEventType.recoveryLinkUsed.rawValue, createdAt: time, userID: owner.id, username: owner.username,
            displayName: owner.displayName, credentialID: credential.id, credentialName: credential.name, detail: replacing ? "replaced" : "added")
    }
}
