import Foundation
import Hummingbird
import PasskeyAPI
import PasskeyRelyingParty
import PasskeyStorage
import PasskeyWire

/// The dashboard's Webhooks section: endpoints and the latest deliveries with their attempts. Adding, changing,
/// rotating and removing an endpoint need a fresh passkey check, as the account changes do: an endpoint receives every
/// account's names. A new secret is in the answer that made it, and nowhere else.
extension DashboardController {
    var webhookEndpoints: WebhookEndpoints {
        WebhookEndpoints(repository: repository, receivers: configuration.webhooks.receivers, resolver: configuration.webhooks.resolver, now: now)
    }

    /// Runs library work in a dashboard handler: its refusals become API errors.
    func library<T>(_ body: () async throws(RelyingPartyError) -> T) async throws(APIError) -> T {
        do { return try await body() } catch { throw APIError(error) }
    }

    func addWebhookRoutes(to router: some RouterMethods<Context>) {
        router.get("dashboard/webhooks", use: webhooksPage)
        router.get("dashboard/api/webhooks", use: listWebhooks)
        router.post("dashboard/api/webhooks", use: addWebhook)
        router.patch("dashboard/api/webhooks/:id", use: changeWebhook)
        router.delete("dashboard/api/webhooks/:id", use: removeWebhook)
        router.post("dashboard/api/webhooks/:id/rotate", use: rotateWebhook)
        router.post("dashboard/api/webhooks/:id/retry", use: retryWebhook)
    }

    /// `GET /dashboard/webhooks`.
    func webhooksPage(_ request: Request, context: Context) async -> Response {
        await page(request, context) { principal throws(APIError) in
            let endpoints = try await library { () async throws(RelyingPartyError) in try await webhookEndpoints.list() }
            let deliveries = try await library { () async throws(RelyingPartyError) in
                try await webhookEndpoints.deliveries(endpointID: nil, limit: 100)
            }
            return DashboardPages.webhooks(principal: principal, endpoints: endpoints, deliveries: deliveries)
        }
    }

    /// `GET /dashboard/api/webhooks`.
    func listWebhooks(_ request: Request, context: Context) async -> Response {
        await data(request, context) { _ throws(APIError) in
            let endpoints = try await library { () async throws(RelyingPartyError) in try await webhookEndpoints.list() }
            let deliveries = try await library { () async throws(RelyingPartyError) in
                try await webhookEndpoints.deliveries(endpointID: nil, limit: 50)
            }
            return WebhookOverviewAnswer(
                endpoints: endpoints.map { WebhookJSON.endpoint($0) }, deliveries: deliveries.map(WebhookJSON.delivery),
                eventTypes: WebhookEventType.all.map(\.rawValue))
        }
    }

    /// `POST /dashboard/api/webhooks`.
    func addWebhook(_ request: Request, context: Context) async -> Response {
        var request = request
        return await data(request, context, fresh: true) { principal throws(APIError) in
            let body = try await request.decode(WebhookEndpointRequest.self, limit: bodyLimit)
            let url = try answering { () throws(WireError) in try body.requiredURL() }
            let endpoint = try await library { () async throws(RelyingPartyError) in
                try await webhookEndpoints.create(url: url, description: body.description ?? "", eventTypes: body.eventTypes ?? [])
            }
            await recordAdmin("add_webhook", request, context, principal: principal, detail: "webhook endpoint \(endpoint.id) added")
            return WebhookJSON.endpoint(endpoint, withSecret: true)
        }
    }

    /// `PATCH /dashboard/api/webhooks/{id}`.
    func changeWebhook(_ request: Request, context: Context) async -> Response {
        var request = request
        return await data(request, context, fresh: true) { principal throws(APIError) in
            let body = try await request.decode(WebhookEndpointRequest.self, limit: bodyLimit)
            let endpoint = try await library { () async throws(RelyingPartyError) in
                try await webhookEndpoints.update(
                    id: context.parameters.get("id") ?? "", url: body.url, description: body.description, eventTypes: body.eventTypes,
                    enabled: body.enabled)
            }
            await recordAdmin("change_webhook", request, context, principal: principal, detail: "webhook endpoint \(endpoint.id) changed")
            return WebhookJSON.endpoint(endpoint)
        }
    }

    /// `DELETE /dashboard/api/webhooks/{id}`.
    func removeWebhook(_ request: Request, context: Context) async -> Response {
        await data(request, context, fresh: true) { principal throws(APIError) in
            let id = context.parameters.get("id") ?? ""
            try await library { () async throws(RelyingPartyError) in try await webhookEndpoints.delete(id: id) }
            await recordAdmin("remove_webhook", request, context, principal: principal, detail: "webhook endpoint \(id) removed")
            return DeletedAnswer()
        }
    }

    /// `POST /dashboard/api/webhooks/{id}/rotate`.
    func rotateWebhook(_ request: Request, context: Context) async -> Response {
        var request = request
        return await data(request, context, fresh: true) { principal throws(APIError) in
            let body = try await request.decode(WebhookSecretRotationRequest.self, limit: bodyLimit)
            let overlap = body.overlapSeconds.map(TimeInterval.init) ?? WebhookEndpoints.defaultOverlap
            let endpoint = try await library { () async throws(RelyingPartyError) in
                try await webhookEndpoints.rotateSecret(id: context.parameters.get("id") ?? "", overlap: overlap)
            }
            await recordAdmin("rotate_webhook", request, context, principal: principal, detail: "webhook endpoint \(endpoint.id) has a new secret")
            return WebhookJSON.endpoint(endpoint, withSecret: true)
        }
    }

    /// `POST /dashboard/api/webhooks/{id}/retry`.
    func retryWebhook(_ request: Request, context: Context) async -> Response {
        await data(request, context) { principal throws(APIError) in
            let id = context.parameters.get("id") ?? ""
            let count = try await library { () async throws(RelyingPartyError) in try await webhookEndpoints.retryFailed(id: id) }
            await recordAdmin("retry_webhook", request, context, principal: principal, detail: "\(count) failed deliveries of \(id) sent again")
            return WebhookRetryAnswer(retried: count)
        }
    }
}
