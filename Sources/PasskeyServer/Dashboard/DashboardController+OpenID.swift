import Foundation
import Hummingbird
import PasskeyAPI
import PasskeyRelyingParty
import PasskeyStorage
import PasskeyWire

/// The dashboard's Applications section: the OpenID Provider's clients (docs/oidc.md). Adding, changing, rotating and
/// removing one need a fresh passkey check, as webhook endpoints do: a client learns who signs in. A new secret is in
/// the answer that made it, and nowhere else. Each change is an audit entry naming the admin.
extension DashboardController {
    func openIDClients(_ request: Request, _ context: Context, _ principal: AdminPrincipal) -> (OpenIDClients, AuditActor) {
        (
            OpenIDClients(repository: repository, audit: EventAuditLog(events: events, logger: context.logger), now: now),
            AuditActor.admin(named: principal.name).at(steps.metadata(request, context))
        )
    }

    func addOpenIDClientRoutes(to router: some RouterMethods<Context>) {
        router.get("dashboard/applications", use: applicationsPage)
        router.get("dashboard/api/oidc-clients", use: listOpenIDClients)
        router.post("dashboard/api/oidc-clients", use: addOpenIDClient)
        router.patch("dashboard/api/oidc-clients/:id", use: changeOpenIDClient)
        router.delete("dashboard/api/oidc-clients/:id", use: removeOpenIDClient)
        router.post("dashboard/api/oidc-clients/:id/rotate", use: rotateOpenIDClient)
    }

    /// `GET /dashboard/applications`.
    func applicationsPage(_ request: Request, context: Context) async -> Response {
        await page(request, context) { principal throws(APIError) in
            let (clients, _) = openIDClients(request, context, principal)
            let all = try await library { () async throws(RelyingPartyError) in try await clients.list() }
            return DashboardPages.applications(principal: principal, clients: all, issuer: configuration.oidcIssuer)
        }
    }

    /// `GET /dashboard/api/oidc-clients`.
    func listOpenIDClients(_ request: Request, context: Context) async -> Response {
        await data(request, context) { principal throws(APIError) in
            let (clients, _) = openIDClients(request, context, principal)
            return OpenIDClientListAnswer(clients: try await library { () async throws(RelyingPartyError) in try await clients.list() }.map { OpenIDClientJSON.client($0) })
        }
    }

    /// `POST /dashboard/api/oidc-clients`.
    func addOpenIDClient(_ request: Request, context: Context) async -> Response {
        var request = request
        return await data(request, context, fresh: true) { principal throws(APIError) in
            let body = try await request.decode(OpenIDClientRequest.self, limit: bodyLimit)
            let (clients, actor) = openIDClients(request, context, principal)
            let made = try await library { () async throws(RelyingPartyError) in
                try await clients.create(OpenIDClientJSON.settings(body), isPublic: body.isPublic ?? false, by: actor)
            }
            return OpenIDClientJSON.client(made.0, secret: made.secret)
        }
    }

    /// `PATCH /dashboard/api/oidc-clients/{id}`.
    func changeOpenIDClient(_ request: Request, context: Context) async -> Response {
        var request = request
        return await data(request, context, fresh: true) { principal throws(APIError) in
            let body = try await request.decode(OpenIDClientRequest.self, limit: bodyLimit)
            let (clients, actor) = openIDClients(request, context, principal)
            let client = try await library { () async throws(RelyingPartyError) in
                try await clients.update(id: context.parameters.get("id") ?? "", OpenIDClientJSON.settings(body), by: actor)
            }
            return OpenIDClientJSON.client(client)
        }
    }

    /// `DELETE /dashboard/api/oidc-clients/{id}`.
    func removeOpenIDClient(_ request: Request, context: Context) async -> Response {
        await data(request, context, fresh: true) { principal throws(APIError) in
            let (clients, actor) = openIDClients(request, context, principal)
            try await library { () async throws(RelyingPartyError) in try await clients.delete(id: context.parameters.get("id") ?? "", by: actor) }
            return DeletedAnswer()
        }
    }

    /// `POST /dashboard/api/oidc-clients/{id}/rotate`.
    func rotateOpenIDClient(_ request: Request, context: Context) async -> Response {
        await data(request, context, fresh: true) { principal throws(APIError) in
            let (clients, actor) = openIDClients(request, context, principal)
            let made = try await library { () async throws(RelyingPartyError) in
                try await clients.rotateSecret(id: context.parameters.get("id") ?? "", by: actor)
            }
            return OpenIDClientJSON.client(made.0, secret: made.secret)
        }
    }
}
