public import Foundation

/// Webhook state of the in-memory store.
struct InMemoryWebhooks {
    var endpointsByID: [String: WebhookEndpointRecord] = [:]
    var nextSequence: Int64 = 1
    /// By endpoint, then message sequence.
    var deliveries: [String: [Int64: WebhookDeliveryRecord]] = [:]
    var leases: [String: (owner: String, until: Date)] = [:]
}

extension InMemoryRepository {
    /// Writes the message of a change made in this actor step, as the databases' triggers do: only when an enabled
    /// endpoint receives `type`. Every mutation that reports one calls this in the same step.
    func reportWebhook(
        _ type: WebhookEventType, user: UserRecord?, userID: String? = nil, credential: CredentialRecordEntry? = nil,
        credentialName: String? = nil, detail: String? = nil
    ) {
        guard !webhooks.endpointsByID.isEmpty else { return }
        let id = user?.id ?? userID ?? credential?.userID
        enqueue(
            WebhookMessageRecord(
                id: WebhookMessageRecord.newID(), type: type.rawValue,
                createdAt: Date(), userID: id, username: user?.username, displayName: user?.displayName,
                externalUserID: id.flatMap { externalIDsByUserID[$0] }, credentialID: credential?.id,
                credentialName: credentialName ?? credential?.name, detail: detail))
    }

    func enqueue(_ message: WebhookMessageRecord) {
        let receivers = webhooks.endpointsByID.values.filter { $0.receives(message.type) }
        guard !receivers.isEmpty else { return }
        var message = message
        message.sequence = webhooks.nextSequence
        webhooks.nextSequence += 1
        for endpoint in receivers {
            webhooks.deliveries[endpoint.id, default: [:]][message.sequence] = WebhookDeliveryRecord(
                endpointID: endpoint.id, message: message, nextAttemptAt: message.createdAt)
        }
    }

    public func addWebhookEndpoint(_ endpoint: WebhookEndpointRecord, limit: Int = .max) throws(StorageError) {
        guard webhooks.endpointsByID[endpoint.id] == nil else { throw StorageError(.recordExists, "an endpoint \(endpoint.id) exists") }
        guard webhooks.endpointsByID.count < limit else { throw StorageError(.limitReached, "\(webhooks.endpointsByID.count) endpoints exist") }
        webhooks.endpointsByID[endpoint.id] = endpoint
    }

    public func webhookEndpoints() -> [WebhookEndpointRecord] {
        webhooks.endpointsByID.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    public func webhookEndpoint(id: String) -> WebhookEndpointRecord? { webhooks.endpointsByID[id] }

    public func updateWebhookEndpoint(_ endpoint: WebhookEndpointRecord) throws(StorageError) {
        guard webhooks.endpointsByID[endpoint.id] != nil else { throw StorageError(.notFound, "no webhook endpoint \(endpoint.id)") }
        webhooks.endpointsByID[endpoint.id] = endpoint
    }

    public func deleteWebhookEndpoint(id: String) throws(StorageError) {
        guard webhooks.endpointsByID.removeValue(forKey: id) != nil else { throw StorageError(.notFound, "no webhook endpoint \(id)") }
        webhooks.deliveries[id] = nil
        webhooks.leases[id] = nil
    }

    public func enqueueWebhookMessage(_ message: WebhookMessageRecord) { enqueue(message) }

    public func dueWebhookEndpoints(now: Date) -> [String] {
        webhooks.deliveries.compactMap { id, deliveries in
            if let lease = webhooks.leases[id], lease.until > now { return nil }
            let enabled = webhooks.endpointsByID[id]?.disabledAt == nil
            // Due when its next message is: the ones after it wait for it.
            let head = deliveries.values.filter { $0.state == .pending }.min { $0.message.sequence < $1.message.sequence }
            return enabled && (head.map { $0.nextAttemptAt <= now } ?? false) ? id : nil
        }.sorted()
    }

    public func leaseWebhookEndpoint(id: String, owner: String, until: Date, now: Date) -> Bool {
        if let lease = webhooks.leases[id], lease.owner != owner, lease.until > now { return false }
        webhooks.leases[id] = (owner, until)
        return true
    }

    public func releaseWebhookEndpoint(id: String, owner: String) {
        if webhooks.leases[id]?.owner == owner { webhooks.leases[id] = nil }
    }

    public func pendingWebhookDeliveries(endpointID: String, limit: Int) -> [WebhookDeliveryRecord] {
        let pending = (webhooks.deliveries[endpointID] ?? [:]).values.filter { $0.state == .pending }
        return Array(pending.sorted { $0.message.sequence < $1.message.sequence }.prefix(max(0, limit)))
    }

    public func recordWebhookAttempt(endpointID: String, sequence: Int64, _ attempt: WebhookAttempt) {
        guard var delivery = webhooks.deliveries[endpointID]?[sequence] else { return }
        delivery.attempts += 1
        delivery.lastAttemptAt = attempt.time
        delivery.lastStatus = attempt.status
        delivery.lastError = attempt.error
        delivery.state = attempt.state
        if let next = attempt.nextAttemptAt { delivery.nextAttemptAt = next }
        webhooks.deliveries[endpointID]?[sequence] = delivery
    }

    public func webhookDeliveries(endpointID: String?, before: Int64?, limit: Int) -> [WebhookDeliveryRecord] {
        let all = webhooks.deliveries.filter { endpointID == nil || $0.key == endpointID }.values.flatMap(\.values)
            .filter { delivery in before.map { delivery.message.sequence < $0 } ?? true }
            .sorted { ($0.message.sequence, $0.endpointID) > ($1.message.sequence, $1.endpointID) }
        return Array(all.prefix(max(0, limit)))
    }

    public func retryFailedWebhookDeliveries(endpointID: String, now: Date) -> Int {
        var count = 0
        for (sequence, var delivery) in webhooks.deliveries[endpointID] ?? [:] where delivery.state == .failed {
            delivery.state = .pending
            delivery.nextAttemptAt = now
            webhooks.deliveries[endpointID]?[sequence] = delivery
            count += 1
        }
        return count
    }

    public func purgeWebhookDeliveries(before time: Date) -> Int {
        var count = 0
        for (endpointID, deliveries) in webhooks.deliveries {
            for (sequence, delivery) in deliveries where delivery.state != .pending && delivery.message.createdAt < time {
                webhooks.deliveries[endpointID]?[sequence] = nil
                count += 1
            }
        }
        return count
    }
}
