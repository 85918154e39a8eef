public import Foundation
public import PasskeyCore
public import PasskeyStorage
import PasskeyWire

/// Managing webhook endpoints, one set of rules for the backend API, the dashboard and `passkey-server webhooks`.
public struct WebhookEndpoints: Sendable {
    public let repository: any WebhookRepository
    let now: @Sendable () -> Date
    let random: RandomSource

    public init(repository: any WebhookRepository, now: @escaping @Sendable () -> Date = Date.init, random: RandomSource = .system) {
        self.repository = repository
        self.now = now
        self.random = random
    }

    /// How long a rotated-out secret keeps signing beside its successor, unless the rotation says otherwise.
    public static var defaultOverlap: TimeInterval { 24 * 3600 }
    /// The longest overlap a rotation may ask for.
    public static var maximumOverlap: TimeInterval { 7 * 24 * 3600 }

    /// Adds an endpoint with a new secret. Returns it; its ``WebhookEndpointRecord/secret`` is shown once, now.
    /// - Throws: `webhook_url_invalid`, `webhook_event_type_unknown`, `field_invalid` (a description too long).
    public func create(url: String, description: String = "", eventTypes: [String] = []) async throws(RelyingPartyError) -> WebhookEndpointRecord {
        let endpoint = WebhookEndpointRecord(
            id: "whe_" + Base64URL.encode(random.bytes(12)), url: try Self.checkedURL(url), description: try Self.checkedDescription(description),
            eventTypes: try Self.checkedEventTypes(eventTypes), secret: WebhookSecret.generate(random: random).text, createdAt: now())
        do { try await repository.addWebhookEndpoint(endpoint) } catch { throw RelyingPartyError(error) }
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
        if let url { endpoint.url = try Self.checkedURL(url) }
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

    /// An absolute `https://` URL, or `http://` to this machine (a receiver beside the server, tests); no user
    /// information (it would be sent with every message), no fragment.
    public static func checkedURL(_ text: String) throws(RelyingPartyError) -> String {
        let invalid = RelyingPartyError(
            .webhookURLInvalid, "The webhook URL must be an absolute https:// URL (http:// only to localhost), without user name, password or fragment.")
        guard text.count <= 2048, let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
            url.user == nil, url.password == nil, url.fragment == nil
        else { throw invalid }
        let local = ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased())
        guard scheme == "https" || (scheme == "http" && local) else { throw invalid }
        return text
    }

    static func checkedDescription(_ text: String) throws(RelyingPartyError) -> String {
        guard text.count <= 200, !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw RelyingPartyError(.fieldInvalid, "The description must be at most 200 characters, without control characters.")
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
