public import Foundation
public import PasskeyCore
public import PasskeyStorage
import PasskeyWire

/// Managing webhook endpoints, one set of rules for the backend API, the dashboard and `passkey-server webhooks`.
public struct WebhookEndpoints: Sendable {
    public let repository: any WebhookRepository
    /// Where receivers may be, and how many endpoints there may be.
    public let receivers: WebhookReceiverPolicy
    /// Resolves a receiver's name when it is saved, so that one resolving to a private address is refused then (the
    /// dispatcher checks again at every delivery).
    public let resolver: any WebhookHostResolver
    let now: @Sendable () -> Date
    let random: RandomSource

    public init(
        repository: any WebhookRepository, receivers: WebhookReceiverPolicy = WebhookReceiverPolicy(),
        resolver: any WebhookHostResolver = SystemHostResolver(), now: @escaping @Sendable () -> Date = Date.init, random: RandomSource = .system
    ) {
        self.repository = repository
        self.receivers = receivers
        self.resolver = resolver
        self.now = now
        self.random = random
    }

    /// How long a rotated-out secret keeps signing beside its successor, unless the rotation says otherwise.
    public static var defaultOverlap: TimeInterval { 24 * 3600 }
    /// The longest overlap a rotation may ask for.
    public static var maximumOverlap: TimeInterval { 7 * 24 * 3600 }

    /// Adds an endpoint with a new secret. Returns it; its ``WebhookEndpointRecord/secret`` is shown once, now.
    /// - Throws: `webhook_url_invalid`, `webhook_event_type_unknown`, `field_invalid` (a description too long or with
    ///   control or direction characters), `webhook_endpoint_limit` (as many endpoints as ``WebhookReceiverPolicy``
    ///   allows exist already).
    public func create(url: String, description: String = "", eventTypes: [String] = []) async throws(RelyingPartyError) -> WebhookEndpointRecord {
        let description = try Self.checkedDescription(description)
        let eventTypes = try Self.checkedEventTypes(eventTypes)
        let endpoint = WebhookEndpointRecord(
            id: "whe_" + Base64URL.encode(random.bytes(12)), url: try await checkedURL(url), description: description, eventTypes: eventTypes,
            secret: WebhookSecret.generate(random: random).text, createdAt: now())
        // Each endpoint gets a copy of every event, written in the event's transaction: their number is bounded, counted
        // by the store in the transaction that adds one.
        do { try await repository.addWebhookEndpoint(endpoint, limit: receivers.maximumEndpoints) } catch {
            guard error.code == .limitReached else { throw RelyingPartyError(error) }
            throw RelyingPartyError(
                .webhookEndpointLimit,
                "There are as many webhook endpoints as this server allows (\(receivers.maximumEndpoints), --webhook-endpoint-limit): remove one first.")
        }
        return endpoint
    }

    public func list() async throws(RelyingPartyError) -> [WebhookEndpointRecord] {
        do { return try await repository.webhookEndpoints() } catch { throw RelyingPartyError(error) }
    }

    /// - Throws: `webhook_endpoint_not_found`.
    public func endpoint(id: String) async throws(RelyingPartyError) -> WebhookEndpointRecord {
        let found: WebhookEndpointRecord?
        do { found = try await repository.webhookEndpoint(id: id) } catch { throw RelyingPartyError(error) }
        guard let found else { throw Self.notFound }
        return found
    }

    /// Changes what is given (nil leaves it): the URL, the description, the event types, whether it is enabled.
    public func update(
        id: String, url: String? = nil, description: String? = nil, eventTypes: [String]? = nil, enabled: Bool? = nil
    ) async throws(RelyingPartyError) -> WebhookEndpointRecord {
        var endpoint = try await self.endpoint(id: id)
        if let url { endpoint.url = try await checkedURL(url) }
        if let description { endpoint.description = try Self.checkedDescription(description) }
        if let eventTypes { endpoint.eventTypes = try Self.checkedEventTypes(eventTypes) }
        if let enabled { endpoint.disabledAt = enabled ? nil : (endpoint.disabledAt ?? now()) }
        try await store(endpoint)
        return endpoint
    }

    /// Gives the endpoint a new secret; the current one keeps signing beside it for `overlap` (0 to stop it at once,
    /// after a leak). Returns the endpoint with its new ``WebhookEndpointRecord/secret``, shown once, now.
    /// - Throws: `field_invalid` for an overlap outside 0…7 days.
    public func rotateSecret(id: String, overlap: TimeInterval = defaultOverlap) async throws(RelyingPartyError) -> WebhookEndpointRecord {
        guard overlap.isFinite, (0...Self.maximumOverlap).contains(overlap) else {
            throw RelyingPartyError(.fieldInvalid, "The overlap must be between 0 and \(Int(Self.maximumOverlap)) seconds (7 days).")
        }
        var endpoint = try await self.endpoint(id: id)
        endpoint.previousSecret = overlap > 0 ? endpoint.secret : nil
        endpoint.previousSecretExpiresAt = overlap > 0 ? now().addingTimeInterval(overlap) : nil
        endpoint.secret = WebhookSecret.generate(random: random).text
        try await store(endpoint)
        return endpoint
    }

    public func delete(id: String) async throws(RelyingPartyError) {
        do { try await repository.deleteWebhookEndpoint(id: id) } catch {
            throw error.code == .notFound ? Self.notFound : RelyingPartyError(error)
        }
    }

    /// The endpoint's (or every endpoint's) deliveries, newest first.
    public func deliveries(endpointID: String?, before: Int64? = nil, limit: Int = 50) async throws(RelyingPartyError) -> [WebhookDeliveryRecord] {
        if let endpointID { _ = try await endpoint(id: endpointID) }
        do { return try await repository.webhookDeliveries(endpointID: endpointID, before: before, limit: min(max(limit, 1), 200)) } catch {
            throw RelyingPartyError(error)
        }
    }

    /// Sends the endpoint's failed deliveries again, from now; returns how many.
    public func retryFailed(id: String) async throws(RelyingPartyError) -> Int {
        _ = try await endpoint(id: id)
        do { return try await repository.retryFailedWebhookDeliveries(endpointID: id, now: now()) } catch { throw RelyingPartyError(error) }
    }

    private func store(_ endpoint: WebhookEndpointRecord) async throws(RelyingPartyError) {
        do { try await repository.updateWebhookEndpoint(endpoint) } catch {
            throw error.code == .notFound ? Self.notFound : RelyingPartyError(error)
        }
    }

    static var notFound: RelyingPartyError { RelyingPartyError(.webhookEndpointNotFound, "There is no webhook endpoint with this id.") }

    /// A receiver's URL as ``WebhookURL`` reads it, allowed by ``receivers``: its host a public name or address (or one
    /// the operator allowed), and every address the name resolves to now a public one. A name that does not resolve
    /// yet is taken (its DNS may come later); every delivery checks the addresses it connects to.
    /// - Returns: the URL in its one spelling (``WebhookURL/text``), as it is stored.
    /// - Throws: `webhook_url_invalid`, saying why.
    public func checkedURL(_ text: String) async throws(RelyingPartyError) -> String {
        let url = try WebhookURL(parsing: text)
        var receivers = receivers
        receivers.ownAddresses.formUnion(await resolver.localAddresses())
        if let refusal = receivers.refusal(of: url) { throw RelyingPartyError(.webhookURLInvalid, "The webhook URL is refused: \(refusal)") }
        if case .name(let name) = url.host, !receivers.isAllowedBeside(url.host) {
            let addresses = (try? await resolver.addresses(of: name)) ?? []
            if let refusal = addresses.lazy.compactMap({ receivers.refusal(of: $0, through: url.host) }).first {
                // The kind of address, not the address: the caller learns no more of the network than the policy says.
                throw RelyingPartyError(
                    .webhookURLInvalid,
                    "The webhook URL is refused: \(name) resolves to \(refusal), not a public one; a receiver beside the server needs --webhook-allow-host \(name).")
            }
        }
        return url.text
    }

    /// At most 200 code points, none of them a control, format (direction overrides, zero-width), invisible (fillers,
    /// variation selectors, spaces other than the plain one) or line-breaking one: a description is shown in the
    /// dashboard and in a terminal, where such characters would make it say something else. Code points, not
    /// characters: one character may carry any number of combining marks.
    static func checkedDescription(_ text: String) throws(RelyingPartyError) -> String {
        guard text.unicodeScalars.count <= 200,
            !text.unicodeScalars.contains(where: {
                let category = $0.properties.generalCategory
                return category == .control || category == .format || UsernameRules.isInvisible($0)
            })
        else {
            throw RelyingPartyError(
                .fieldInvalid, "The description must be at most 200 code points, without control, format, invisible or line-breaking characters.")
        }
        return text
    }

    /// Known types only, each once; empty for every type.
    static func checkedEventTypes(_ types: [String]) throws(RelyingPartyError) -> [String] {
        let known = Set(WebhookEventType.all.map(\.rawValue))
        if let unknown = types.first(where: { !known.contains($0) }) {
            throw RelyingPartyError(
                .webhookEventTypeUnknown, "Unknown event type \(RelyingPartyError.clipped(unknown)); known: \(known.sorted().joined(separator: ", ")).")
        }
        var seen: Set<String> = []
        return types.filter { seen.insert($0).inserted }
    }
}
