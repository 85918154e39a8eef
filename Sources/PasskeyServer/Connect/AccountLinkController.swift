import Foundation
import Hummingbird
import PasskeyRelyingParty
import PasskeyStorage
import PasskeyWire

/// Recovery and onboarding links (``PasskeyRelyingParty/ConnectService/mintAccountLink(for:replacingPasskeys:lifetime:apiKey:)``):
/// - the app's backend, with an API key: `POST /users/{id}/links` mints one, `DELETE /users/{id}/links` revokes the
///   account's unused ones;
/// - the link's holder, with the link's token as `Authorization: Bearer pal_…`: `POST /links/options`, then
///   `POST /links/verify` with the new passkey. Both are rate limited per client address like options requests.
struct AccountLinkController<Repository: PasskeyRepository, Context: RequestContext>: Sendable {
    let service: ConnectService<Repository>
    let ceremonies: CeremonyController<Repository, Context>
    /// Where this server's page is: links point at it (``PasskeyRelyingParty/AccountLink/url(base:)``).
    let linkBase: String

    var bodyLimit: Int { ceremonies.bodyLimit }

    func addRoutes(to router: Router<Context>) {
        router.post("users/:id/links") { request, context in
            var request = request
            return await ceremonies.observedJSON("link", "create", request, context) { note throws in
                let key = try await service.authenticateBackend(ConnectController<Repository, Context>.authorization(request))
                let body = try JSONObjectReaderAPI(try await request.jsonBody(limit: bodyLimit))
                let user = try await service.backendUser(context.parameters.get("id") ?? "", by: try request.formQuery.single("by"))
                let lifetime = try body.optionalInt("expiresIn").map(TimeInterval.init)
                let link = try await service.mintAccountLink(
                    for: user, replacingPasskeys: try body.optionalBool("replacePasskeys") ?? false, lifetime: lifetime, apiKey: key)
                note.concerns(user)
                note.detail = link.replacesPasskeys ? "link created (replaces the account's passkeys)" : "link created"
                return Self.linkJSON(link, base: linkBase)
            }
        }
        router.delete("users/:id/links") { request, context in
            await ceremonies.observedJSON("link", "revoke", request, context) { note throws in
                _ = try await service.authenticateBackend(ConnectController<Repository, Context>.authorization(request))
                let user = try await service.backendUser(context.parameters.get("id") ?? "", by: try request.formQuery.single("by"))
                let count = try await service.revokeAccountLinks(of: user)
                note.concerns(user)
                note.detail = "\(count) link\(count == 1 ? "" : "s") revoked"
                return .object(["revoked": .number(Double(count))])
            }
        }
        router.post("links/options") { request, context in
            await ceremonies.observedJSON("link", "options", request, context) { note throws in
                try await ceremonies.throttle(request, context)
                let made = try await service.accountLinkOptions(ConnectController<Repository, Context>.authorization(request))
                note.concerns(made.user)
                guard case .object(var object) = made.options.json else { return made.options.json }
                object["challengeKey"] = .string(made.challengeKey)
                object["replacesPasskeys"] = .bool(made.replacesPasskeys)
                return .object(object)
            }
        }
        router.post("links/verify") { request, context in
            var request = request
            return await ceremonies.observedJSON("link", "verify", request, context) { note throws in
                try await ceremonies.throttle(request, context)
                let body = try JSONObjectReaderAPI(try await request.jsonBody(limit: bodyLimit))
                let credential = try body.registrationCredential("cred")
                let result = try await service.redeemAccountLink(
                    ConnectController<Repository, Context>.authorization(request), credential: credential,
                    challengeKey: try body.requiredString("challengeKey"))
                note.concerns(result.user, credentialID: result.credential.id)
                let replaced = result.replacedCredentialIDs.count
                note.detail = replaced > 0 ? "link used: passkey added, \(replaced) other passkey\(replaced == 1 ? "" : "s") deleted" : "link used: passkey added"
                let token = try await service.signedData(result)
                return .object([
                    "verified": true, "userId": .string(result.user.id), "username": .string(result.user.entityName),
                    "isAnonymous": .bool(result.user.isAnonymous), "credentialId": .string(Base64URL.encode(result.credential.id)),
                    "replacedPasskeys": .number(Double(replaced)), "signedPasskeyData": .string(token),
                ])
            }
        }
    }

    /// What minting answers: the token (shown once), the page that redeems it, and its terms.
    static func linkJSON(_ link: AccountLink, base: String) -> JSONValue {
        .object([
            "token": .string(link.token), "url": .string(link.url(base: base)), "userId": .string(link.user.id),
            "expiresAt": .string(ISO8601DateFormatter().string(from: link.expiresAt)), "replacesPasskeys": .bool(link.replacesPasskeys),
        ])
    }
}
