import Foundation
import Hummingbird
import PasskeyAPI
import PasskeyRelyingParty
import PasskeyStorage
import PasskeyWire

/// Recovery and onboarding links (``PasskeyRelyingParty/AccountAdministration/makeLink(for:replacingPasskeys:lifetime:apiKey:by:)``):
/// - the app's backend, with an API key: `POST /users/{id}/links` mints one, `DELETE /users/{id}/links` revokes the
///   account's unused ones;
/// - the link's holder, with the link's token as `Authorization: Bearer pal_…`: `POST /links/options`, then
///   `POST /links/verify` with the new passkey. Both are rate limited per client address like options requests.
struct AccountLinkController<Repository: PasskeyRepository, Context: CallerRequestContext>: Sendable {
    let service: ConnectService<Repository>
    let accounts: AccountAdministration<Repository>
    /// Each call's metric, log line and event.
    let steps: StepRecorder<Context>
    let throttle: ClientThrottle<Context>
    /// Largest request body read (``ServerConfiguration/maximumBodySize``).
    let bodyLimit: Int
    /// Where this server's page is: links point at it (``PasskeyRelyingParty/AccountLink/url(base:)``).
    let linkBase: String

    func addRoutes(to router: Router<Context>) {
        let backend = router.group().add(middleware: APIKeyMiddleware(connect: service))
        backend.post("users/:id/links", use: makeLink)
        backend.delete("users/:id/links", use: revokeLinks)
        router.post("links/options", use: linkOptions)
        router.post("links/verify", use: redeemLink)
    }


    /// `POST /users/{id}/links`.
    func makeLink(_ request: Request, context: Context) async -> Response {
        var request = request
        return await steps.observed("link", "create", request, context) { note throws in
            let key = try context.backendKey()
            let body = try await request.decode(AccountLinkRequest.self, limit: bodyLimit)
            let user = try await service.backendUser(context.parameters.get("id") ?? "", by: try request.formQuery.single("by"))
            let link = try await accounts.makeLink(
                for: user, replacingPasskeys: body.replacePasskeys ?? false,
                lifetime: body.expiresIn.map(TimeInterval.init) ?? service.settings.accountLinkLifetime, apiKey: key,
                by: AuditActor.apiKey(key).at(steps.metadata(request, context)))
            note.concerns(user)
            note.detail = link.replacesPasskeys ? "link created (replaces the account's passkeys)" : "link created"
            return AccountLinkAnswer(link, base: linkBase)
        }
    }

    /// `DELETE /users/{id}/links`.
    func revokeLinks(_ request: Request, context: Context) async -> Response {
        await steps.observed("link", "revoke", request, context) { note throws in
            let key = try context.backendKey()
            let user = try await service.backendUser(context.parameters.get("id") ?? "", by: try request.formQuery.single("by"))
            let count = try await accounts.revokeLinks(of: user, by: AuditActor.apiKey(key).at(steps.metadata(request, context)))
            note.concerns(user)
            note.detail = "\(count) link\(count == 1 ? "" : "s") revoked"
            return AccountLinksRevokedAnswer(revoked: count)
        }
    }

    /// `POST /links/options`.
    func linkOptions(_ request: Request, context: Context) async -> Response {
        await steps.observed("link", "options", request, context) { note throws in
            try await throttle.enforce(request, context)
            let made = try await service.accountLinkOptions(ConnectController<Repository, Context>.authorization(request))
            note.concerns(made.user)
            return AccountLinkOptionsAnswer(
                registration: RegistrationOptionsAnswer(options: made.options, challengeKey: made.challengeKey),
                replacesPasskeys: made.replacesPasskeys)
        }
    }

    /// `POST /links/verify`.
    func redeemLink(_ request: Request, context: Context) async -> Response {
        var request = request
        return await steps.observed("link", "verify", request, context) { note throws in
            try await throttle.enforce(request, context)
            let body = try await request.decode(VerifyRegistrationRequest.self, limit: bodyLimit)
            let challengeKey = try answering { () throws(WireError) in try body.requiredChallengeKey() }
            let result = try await service.redeemAccountLink(
                ConnectController<Repository, Context>.authorization(request), credential: body.cred, challengeKey: challengeKey)
            note.concerns(result.user, credentialID: result.credential.id)
            let replaced = result.replacedCredentialIDs.count
            note.detail = replaced > 0 ? "link used: passkey added, \(replaced) other passkey\(replaced == 1 ? "" : "s") deleted" : "link used: passkey added"
            let token = try await service.signedData(result)
            return AccountLinkVerifyAnswer(
                account: VerifiedAccountFields(
                    username: result.user.entityName, userId: result.user.id, isAnonymous: result.user.isAnonymous,
                    credentialId: Base64URL.encode(result.credential.id), signedPasskeyData: token),
                replacedPasskeys: replaced)
        }
    }
}

extension AccountLinkAnswer {
    /// What minting answers: the token (shown once), the page that redeems it, and its terms.
    init(_ link: AccountLink, base: String) {
        self.init(
            token: link.token, url: link.url(base: base), userId: link.user.id, expiresAt: ISO8601DateFormatter().string(from: link.expiresAt),
            replacesPasskeys: link.replacesPasskeys)
    }
}
