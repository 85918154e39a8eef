public import Foundation
public import PasskeyStorage
import PasskeyCore

/// Delivers the webhook outbox: for each endpoint with a message due, one task sends its pending messages in the order
/// they were written, signed with the endpoint's secrets, and records every attempt.
///
/// - At least once: a message is marked delivered only after its receiver answered 2xx; an instance that dies between
///   the answer and the mark sends it again after restart (receivers drop duplicates by `webhook-id`).
/// - In order: an endpoint's next message waits until the one before it was delivered or has failed for good (every
///   retry of ``WebhookRetryPolicy`` used), so a receiver sees each account's events in the order they happened.
/// - Isolated: each endpoint has its own task and schedule, so a receiver that is slow, down, or answers 500 delays only
///   its own messages.
/// - Once across instances: an endpoint's lease (``WebhookRepository/leaseWebhookEndpoint(id:owner:until:now:)``) lets
///   one instance at a time deliver to it. A lease outlives its holder by at most ``leaseDuration``.
public struct WebhookDispatcher<Repository: WebhookRepository>: Sendable {
    public let repository: Repository
    public let transport: any WebhookTransport
    public let policy: WebhookRetryPolicy
    /// Where receivers may be; checked at every attempt on the addresses the transport is given.
    public let receivers: WebhookReceiverPolicy
    public let resolver: any WebhookHostResolver
    /// How often the outbox is looked at for due messages.
    public let pollInterval: Duration
    /// This instance, as lease holder.
    public let owner: String
    /// Messages read per round trip.
    public var batchSize = 50
    let now: @Sendable () -> Date
    /// Told of each attempt once it is recorded: the server logs failures and publishes them to the dashboard.
    let onAttempt: @Sendable (WebhookEndpointRecord, WebhookDeliveryRecord, WebhookAttempt) async -> Void

    public init(
        repository: Repository, transport: any WebhookTransport, policy: WebhookRetryPolicy = WebhookRetryPolicy(),
        receivers: WebhookReceiverPolicy = WebhookReceiverPolicy(), resolver: any WebhookHostResolver = SystemHostResolver(),
        pollInterval: Duration = .seconds(1), owner: String, now: @escaping @Sendable () -> Date = Date.init,
        onAttempt: @escaping @Sendable (WebhookEndpointRecord, WebhookDeliveryRecord, WebhookAttempt) async -> Void = { _, _, _ in }
    ) {
        self.repository = repository
        self.transport = transport
        self.policy = policy
        self.receivers = receivers
        self.resolver = resolver
        self.pollInterval = pollInterval
        self.owner = owner
        self.now = now
        self.onAttempt = onAttempt
    }

    /// An endpoint's lease lasts one attempt's timeout and a margin; it is renewed before each attempt.
    public var leaseDuration: Duration { policy.timeout + .seconds(30) }

    /// Delivers until the task is cancelled. A storage failure is reported to `onStorageError` and tried again at the
    /// next poll.
    public func run(onStorageError: @escaping @Sendable (StorageError) -> Void = { _ in }) async {
        let running = RunningEndpoints()
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                do throws(StorageError) {
                    for id in try await repository.dueWebhookEndpoints(now: now()) where await running.start(id) {
                        group.addTask {
                            do throws(StorageError) { try await deliver(endpointID: id) } catch { onStorageError(error) }
                            await running.finish(id)
                        }
                    }
                } catch {
                    onStorageError(error)
                }
                do { try await Task.sleep(for: pollInterval) } catch { break }
            }
        }
    }

    /// Sends the endpoint's due messages, in order, while this instance holds its lease; stops at the first failure
    /// (that message's retry is scheduled, and the ones after it wait for it).
    public func deliver(endpointID id: String) async throws(StorageError) {
        guard try await repository.leaseWebhookEndpoint(id: id, owner: owner, until: now() + leaseDuration, now: now()) else { return }
        do {
            try await deliverLeased(id)
        } catch {
            try? await repository.releaseWebhookEndpoint(id: id, owner: owner)
            throw error
        }
        try await repository.releaseWebhookEndpoint(id: id, owner: owner)
    }

    private func deliverLeased(_ id: String) async throws(StorageError) {
        while !Task.isCancelled {
            guard let endpoint = try await repository.webhookEndpoint(id: id), endpoint.disabledAt == nil else { return }
            let batch = try await repository.pendingWebhookDeliveries(endpointID: id, limit: batchSize)
            for delivery in batch {
                let start = now()
                guard delivery.nextAttemptAt <= start, !Task.isCancelled else { return }
                // Renewed before each attempt, so a long batch never outlives its lease.
                guard try await repository.leaseWebhookEndpoint(id: id, owner: owner, until: start + leaseDuration, now: start) else { return }
                let attempt = await attempt(delivery, to: endpoint, at: start)
                try await repository.recordWebhookAttempt(endpointID: id, sequence: delivery.message.sequence, attempt)
                await onAttempt(endpoint, delivery, attempt)
                guard attempt.state == .delivered || attempt.state == .failed else { return }
            }
            if batch.count < batchSize { return }
        }
    }

    /// One signed POST and what it came to.
    func attempt(_ delivery: WebhookDeliveryRecord, to endpoint: WebhookEndpointRecord, at time: Date) async -> WebhookAttempt {
        let body = WebhookPayload.body(of: delivery.message)
        let secrets = endpoint.signingSecrets(at: time).compactMap(WebhookSecret.init)
        let headers =
            [("content-type", "application/json"), ("user-agent", "passkey-server-webhooks")]
            + WebhookSignature.headers(id: delivery.message.id, timestamp: time, body: body, secrets: secrets)
        let response: WebhookResponse
        switch await receiver(of: endpoint.url) {
        case .refused(let refusal): response = refusal
        case .send(let url, let addresses):
            response = await transport.post(url: url, connectingTo: addresses, headers: headers, body: body, timeout: policy.timeout)
        }
        let finished = now()
        if response.delivered { return WebhookAttempt(time: finished, status: response.status, error: nil, state: .delivered) }
        let reason = response.status.map { "the receiver answered HTTP \($0)" } ?? (response.failure ?? .noAnswer).rawValue
        guard let wait = policy.delay(after: delivery.attempts + 1) else {
            return WebhookAttempt(time: finished, status: response.status, error: reason, state: .failed, detail: response.detail)
        }
        return WebhookAttempt(
            time: finished, status: response.status, error: reason, state: .pending, nextAttemptAt: finished + wait, detail: response.detail)
    }

    /// The endpoint's URL and the addresses the policy allows for it now; or the answer of an attempt that sends
    /// nothing. A URL saved under older, looser rules is read strictly here too.
    func receiver(of text: String) async -> Receiver {
        let url: WebhookURL
        do { url = try WebhookURL(parsing: text) } catch {
            return .refused(WebhookResponse(status: nil, failure: .refusedByPolicy, detail: error.message))
        }
        // The machine's addresses as they are now: it may have gained one since the last attempt.
        var receivers = receivers
        receivers.ownAddresses.formUnion(await resolver.localAddresses())
        if let refusal = receivers.refusal(of: url) {
            return .refused(WebhookResponse(status: nil, failure: .refusedByPolicy, detail: refusal))
        }
        let addresses: [IPAddress]
        switch url.host {
        case .address(let address): addresses = [address]
        case .name(let name):
            do { addresses = try await resolver.addresses(of: name) } catch {
                return .refused(WebhookResponse(status: nil, failure: .noAnswer, detail: "\(name) did not resolve: \(error)"))
            }
        }
        // Only the allowed ones: a name that resolves to a public and a private address is sent to the public one.
        let allowed = addresses.filter { receivers.refusal(of: $0, through: url.host) == nil }
        guard !allowed.isEmpty else {
            let kinds = addresses.compactMap { address in receivers.refusal(of: address, through: url.host).map { "\(address) is \($0)" } }
            return .refused(WebhookResponse(status: nil, failure: .refusedByPolicy, detail: "\(url.host): " + kinds.joined(separator: "; ")))
        }
        return .send(url, allowed)
    }

    enum Receiver {
        case send(WebhookURL, [IPAddress])
        /// Nothing is sent; this is the attempt's answer.
        case refused(WebhookResponse)
    }
}

/// The endpoints this instance is delivering to now, so a poll does not start a second task for one.
actor RunningEndpoints {
    private var ids: Set<String> = []
    func start(_ id: String) -> Bool { ids.insert(id).inserted }
    func finish(_ id: String) { ids.remove(id) }
}

extension Date {
    static func + (date: Date, duration: Duration) -> Date {
        let (seconds, attoseconds) = duration.components
        return date.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }
}
