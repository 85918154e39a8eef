import Foundation
import Hummingbird
public import PasskeyAPI
public import PasskeyRelyingParty
public import PasskeyStorage
import PasskeyWire

/// The backend API for OpenID clients (docs/oidc.md), with an API key as `Authorization: Bearer pks_…`:
/// - `GET /oidc/clients`, `POST /oidc/clients` `{name, redirectUris, public?, scopes?, …}` (answers the secret, once);
/// - `GET`, `PATCH` and `DELETE /oidc/clients/{id}`;
/// - `POST /oidc/clients/{id}/rotate-secret` (answers the new secret, once; the old one stops working at once).
///
/// Each call is an event in the dashboard's log (`oidc_client.<step>`), without the secret.
struct OpenIDClientController<Repository: PasskeyRepository, Context: CallerRequestContext>: Sendable {
    let clients: OpenIDClients
    let connect: ConnectService<Repository>
    let steps: StepRecorder<Context>
    let bodyLimit: Int

    func addRoutes(to router: Router<Context>) {
        let backend = router.group().add(middleware: APIKeyMiddleware(connect: connect))
        backend.get("oidc/clients", use: listClients)
        backend.post("oidc/clients", use: addClient)
        backend.get("oidc/clients/:id", use: showClient)
        backend.patch("oidc/clients/:id", use: updateClient)
        backend.delete("oidc/clients/:id", use: removeClient)
        backend.post("oidc/clients/:id/rotate-secret", use: rotateSecret)
    }

    func backend<Answer: JSONRepresentable>(
        _ step: String, _ request: Request, _ context: Context, _ body: @escaping (CeremonyNote, AuditActor) async throws -> Answer
    ) async -> Response {
        await steps.observed("oidc_client", step, request, context) { note in
            let key = try context.backendKey()
            return try await body(note, .apiKey(key))
        }
    }

    static func id(_ context: Context) -> String { context.parameters.get("id") ?? "" }

    /// `GET /oidc/clients`.
    func listClients(_ request: Request, context: Context) async -> Response {
        await backend("list", request, context) { _, _ in OpenIDClientListAnswer(clients: try await clients.list().map { OpenIDClientJSON.client($0) }) }
    }

    /// `POST /oidc/clients`.
    func addClient(_ request: Request, context: Context) async -> Response {
        var request = request
        return await backend("create", request, context) { note, actor in
            let body = try await request.decode(OpenIDClientRequest.self, limit: bodyLimit)
            let (client, secret) = try await clients.create(OpenIDClientJSON.settings(body), isPublic: body.isPublic ?? false, by: actor)
            note.detail = "OpenID client \(client.id) added"
            return OpenIDClientJSON.client(client, secret: secret)
        }
    }

    /// `GET /oidc/clients/{id}`.
    func showClient(_ request: Request, context: Context) async -> Response {
        await backend("read", request, context) { _, _ in OpenIDClientJSON.client(try await clients.client(id: Self.id(context))) }
    }

    /// `PATCH /oidc/clients/{id}`.
    func updateClient(_ request: Request, context: Context) async -> Response {
        var request = request
        return await backend("update", request, context) { note, actor in
            let body = try await request.decode(OpenIDClientRequest.self, limit: bodyLimit)
            guard body.isPublic == nil else { throw APIError(.oidcClientInvalid, "A client stays public or confidential: add a new client instead.") }
            let client = try await clients.update(id: Self.id(context), OpenIDClientJSON.settings(body), by: actor)
            note.detail = "OpenID client \(client.id) changed"
            return OpenIDClientJSON.client(client)
        }
    }

    /// `DELETE /oidc/clients/{id}`.
    func removeClient(_ request: Request, context: Context) async -> Response {
        await backend("delete", request, context) { note, actor in
            let id = Self.id(context)
            try await clients.delete(id: id, by: actor)
            note.detail = "OpenID client \(id) removed"
            return DeletedAnswer()
        }
    }

    /// `POST /oidc/clients/{id}/rotate-secret`.
    func rotateSecret(_ request: Request, context: Context) async -> Response {
        await backend("rotate", request, context) { note, actor in
            let (client, secret) = try await clients.rotateSecret(id: Self.id(context), by: actor)
            note.detail = "OpenID client \(client.id) has a new secret"
            return OpenIDClientJSON.client(client, secret: secret)
        }
    }
}

/// Between the wire types and the library's: one place for the API, the dashboard and the command line.
public enum OpenIDClientJSON {
    public static func client(_ client: OpenIDClientRecord, secret: String? = nil) -> OpenIDClientAnswer {
        OpenIDClientAnswer(
            clientId: client.id, name: client.name, redirectURIs: client.redirectURIs, postLogoutRedirectURIs: client.postLogoutRedirectURIs,
            scopes: client.scopes, isPublic: client.isPublic, idTokenAlgorithm: client.idTokenAlgorithm, thirdParty: client.thirdParty,
            accessTokenLifetime: client.accessTokenLifetime, refreshTokenLifetime: client.refreshTokenLifetime, enabled: client.disabledAt == nil,
            createdAt: ISO8601DateFormatter().string(from: client.createdAt), clientSecret: secret)
    }

    public static func settings(_ body: OpenIDClientRequest) -> OpenIDClients.Settings {
        OpenIDClients.Settings(
            name: body.name, redirectURIs: body.redirectURIs, postLogoutRedirectURIs: body.postLogoutRedirectURIs, scopes: body.scopes,
            idTokenAlgorithm: body.idTokenAlgorithm, thirdParty: body.thirdParty, accessTokenLifetime: body.accessTokenLifetime,
            refreshTokenLifetime: body.refreshTokenLifetime, enabled: body.enabled)
    }
}
