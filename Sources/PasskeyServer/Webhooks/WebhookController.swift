import Foundation
import Hummingbird
import PasskeyAPI
import PasskeyRelyingParty
import PasskeyStorage
import PasskeyWire

/// The backend API for webhook endpoints (docs/webhooks.md), with an API key as `Authorization: Bearer pks_…`:
/// - `GET /webhooks`, `POST /webhooks` `{url, description?, eventTypes?}` (answers the secret, once);
/// - `GET`, `PATCH` `{url?, description?, eventTypes?, enabled?}` and `DELETE /webhooks/{id}`;
/// - `POST /webhooks/{id}/rotate-secret` `{overlapSeconds?}` (answers the new secret, once; the old one signs beside it
///   for the overlap, default 24 h);
/// - `GET /webhooks/{id}/deliveries?before=&limit=` and `POST /webhooks/{id}/retry` (failed deliveries again).
///
/// Each call is an event in the dashboard's log (`webhook.<step>`), without the secret.
struct WebhookController<Repository: PasskeyRepository, Context: CallerRequestContext>: Sendable {
    let endpoints: WebhookEndpoints
    let connect: ConnectService<Repository>
    /// Each call's metric, log line and event.
    let steps: StepRecorder<Context>
    /// Largest request body read (``ServerConfiguration/maximumBodySize``).
    let bodyLimit: Int

    func addRoutes(to router: Router<Context>) {
        let backend = router.group().add(middleware: APIKeyMiddleware(connect: connect))
        backend.get("webhooks", use: listEndpoints)
        backend.post("webhooks", use: addEndpoint)
        backend.get("webhooks/:id", use: showEndpoint)
        backend.patch("webhooks/:id", use: updateEndpoint)
        backend.delete("webhooks/:id", use: removeEndpoint)
        backend.post("webhooks/:id/rotate-secret", use: rotateSecret)
        backend.get("webhooks/:id/deliveries", use: listDeliveries)
        backend.post("webhooks/:id/retry", use: retryDeliveries)
    }

    /// A call of the app's backend: authenticated with its API key (``APIKeyMiddleware``), recorded as `webhook.<step>`.
    func backend<Answer: JSONRepresentable>(
        _ step: String, _ request: Request, _ context: Context, _ body: @escaping (CeremonyNote) async throws -> Answer
    ) async -> Response {
        await steps.observed("webhook", step, request, context) { note in
            _ = try context.backendKey()
            return try await body(note)
        }
    }

    static func id(_ context: Context) -> String { context.parameters.get("id") ?? "" }

    /// `GET /webhooks`.
    func listEndpoints(_ request: Request, context: Context) async -> Response {
        await backend("list", request, context) { _ throws in
            WebhookEndpointListAnswer(endpoints: try await endpoints.list().map { WebhookJSON.endpoint($0) })
        }
    }

    /// `POST /webhooks`.
    func addEndpoint(_ request: Request, context: Context) async -> Response {
        var request = request
        return await backend("create", request, context) { note throws in
            let body = try await request.decode(WebhookEndpointRequest.self, limit: bodyLimit)
            let url = try answering { () throws(WireError) in try body.requiredURL() }
            let endpoint = try await endpoints.create(url: url, description: body.description ?? "", eventTypes: body.eventTypes ?? [])
            note.detail = "webhook endpoint \(endpoint.id) added"
            return WebhookJSON.endpoint(endpoint, withSecret: true)
        }
    }

    /// `GET /webhooks/{id}`.
    func showEndpoint(_ request: Request, context: Context) async -> Response {
        await backend("read", request, context) { _ throws in WebhookJSON.endpoint(try await endpoints.endpoint(id: Self.id(context))) }
    }

    /// `PATCH /webhooks/{id}`.
    func updateEndpoint(_ request: Request, context: Context) async -> Response {
        var request = request
        return await backend("update", request, context) { note throws in
            let body = try await request.decode(WebhookEndpointRequest.self, limit: bodyLimit)
            let endpoint = try await endpoints.update(
                id: Self.id(context), url: body.url, description: body.description, eventTypes: body.eventTypes, enabled: body.enabled)
            note.detail = "webhook endpoint \(endpoint.id) changed"
            return WebhookJSON.endpoint(endpoint)
        }
    }

    /// `DELETE /webhooks/{id}`.
    func removeEndpoint(_ request: Request, context: Context) async -> Response {
        await backend("delete", request, context) { note throws in
            let id = Self.id(context)
            try await endpoints.delete(id: id)
            note.detail = "webhook endpoint \(id) deleted"
            return DeletedAnswer()
        }
    }

    /// `POST /webhooks/{id}/rotate-secret`.
    func rotateSecret(_ request: Request, context: Context) async -> Response {
        var request = request
        return await backend("rotate", request, context) { note throws in
            let body = try await request.decode(WebhookSecretRotationRequest.self, limit: bodyLimit)
            let overlap = body.overlapSeconds.map(TimeInterval.init) ?? WebhookEndpoints.defaultOverlap
            let endpoint = try await endpoints.rotateSecret(id: Self.id(context), overlap: overlap)
            note.detail = "webhook endpoint \(endpoint.id) has a new secret"
            return WebhookJSON.endpoint(endpoint, withSecret: true)
        }
    }

    /// `GET /webhooks/{id}/deliveries`.
    func listDeliveries(_ request: Request, context: Context) async -> Response {
        await backend("deliveries", request, context) { _ throws in
            let query = request.formQuery
            let before = try query.single("before").map { text throws(APIError) -> Int64 in
                guard let value = Int64(text) else { throw APIError(.fieldInvalid, "before must be a message sequence number.") }
                return value
            }
            let limit = try query.single("limit").flatMap(Int.init) ?? 50
            let deliveries = try await endpoints.deliveries(endpointID: Self.id(context), before: before, limit: limit)
            return WebhookDeliveryListAnswer(deliveries: deliveries.map(WebhookJSON.delivery))
        }
    }

    /// `POST /webhooks/{id}/retry`.
    func retryDeliveries(_ request: Request, context: Context) async -> Response {
        await backend("retry", request, context) { note throws in
            let count = try await endpoints.retryFailed(id: Self.id(context))
            note.detail = "\(count) failed deliver\(count == 1 ? "y" : "ies") retried"
            return WebhookRetryAnswer(retried: count)
        }
    }
}
