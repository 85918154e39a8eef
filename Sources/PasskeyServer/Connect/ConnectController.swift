import Foundation
import Hummingbird
import PasskeyAPI
import HTTPTypes
import PasskeyRelyingParty
import PasskeyStorage
import PasskeyWire

/// Routes of the connect API (docs/connect.md):
/// - the app's backend, with an API key: `POST /connect/tokens`, `POST /connect/verify`, `GET /users/{id}/passkeys`,
///   `DELETE /users/{id}/passkeys/{credentialId}`, `PATCH /users/{id}` (disable, enable), `DELETE /users/{id}`;
/// - the app, with a connect token: `POST /connect/append/decision|options|verify`, `GET /connect/passkeys`,
///   `PATCH|DELETE /connect/passkeys/{credentialId}`, `POST /connect/login/options`;
/// - the app, without a token: `POST /connect/login/decision`;
/// - everyone: `GET /.well-known/jwks.json`.
struct ConnectController<Repository: PasskeyRepository, Context: CallerRequestContext>: Sendable {
    let service: ConnectService<Repository>
    let accounts: AccountAdministration<Repository>
    /// Names, icons and compromise reports of authenticator models in passkey lists.
    let catalog: InForce<AuthenticatorCatalog>
    /// Each call's metric, log line and event.
    let steps: StepRecorder<Context>
    let throttle: ClientThrottle<Context>
    /// Largest request body read (``ServerConfiguration/maximumBodySize``).
    let bodyLimit: Int

    static func authorization(_ request: Request) -> String? { request.headers[.authorization] }

    /// The device a request without a body describes in its query (`platform`, `osVersion`, and `true`/`false` for
    /// `platformAuthenticator`, `conditionalMediation`, `conditionalCreate`), as the body's `client` reads (any member
    /// may be missing); nil when the query names none of them.
    static func client(_ query: FormQuery) throws(APIError) -> ClientReport? {
        let names = ["platform", "osVersion", "platformAuthenticator", "conditionalMediation", "conditionalCreate"]
        var named = false
        for name in names where try query.single(name) != nil { named = true }
        guard named else { return nil }
        let platform = try query.single("platform")
        func flag(_ name: String) throws(APIError) -> Bool {
            switch try query.single(name) {
            case nil, "false": return false
            case "true": return true
            default: throw APIError(.fieldInvalid, "\(name) is true or false.")
            }
        }
        return ClientReport(
            platform: platform, osVersion: try query.single("osVersion"), platformAuthenticator: try flag("platformAuthenticator"),
            conditionalMediation: try flag("conditionalMediation"), conditionalCreate: try flag("conditionalCreate"))
    }

    /// `lastDeclinedAt`, an ISO 8601 time with or without fractional seconds (JavaScript's `toISOString()` writes
    /// milliseconds); nil when absent.
    static func declined(_ text: String?) throws(APIError) -> Date? {
        guard let text else { return nil }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions.insert(.withFractionalSeconds)
        guard let date = ISO8601DateFormatter().date(from: text) ?? fractional.date(from: text) else {
            throw APIError(.dateInvalid, "lastDeclinedAt is an ISO 8601 time such as 2026-11-21T10:00:00Z or 2026-11-21T10:00:00.123Z.")
        }
        return date
    }

    /// Who changes an account through this request, for its audit entry.
    func actor(_ actor: AuditActor, _ request: Request, _ context: Context) -> AuditActor { actor.at(steps.metadata(request, context)) }

    func addRoutes(to router: Router<Context>) {
        router.get(".well-known/jwks.json", use: jwks)
        addBackendRoutes(to: router.group().add(middleware: APIKeyMiddleware(connect: service)))
        addClientRoutes(to: router)
    }

    // MARK: Backend (API key)

    func addBackendRoutes(to router: some RouterMethods<Context>) {
        router.post("connect/tokens", use: mintToken)
        router.post("connect/verify", use: verifySignedData)
        router.get("users/:id/passkeys", use: listPasskeysForBackend)
        router.get("passkeys/compromised", use: listCompromisedPasskeys)
        router.delete("users/:id/passkeys/:credentialId", use: deletePasskeyForBackend)
        router.patch("users/:id", use: setUserStateForBackend)
        router.delete("users/:id", use: deleteUserForBackend)
    }

    // MARK: App (connect token)

    func addClientRoutes(to router: Router<Context>) {
        router.post("connect/append/decision", use: appendDecision)
        router.post("connect/append/options", use: appendOptions)
        router.post("connect/append/verify", use: appendVerify)
        router.get("connect/passkeys", use: listPasskeys)
        router.patch("connect/passkeys/:credentialId", use: renamePasskey)
        router.delete("connect/passkeys/:credentialId", use: deletePasskey)
        router.post("connect/login/options", use: loginOptions)
        router.post("connect/login/decision", use: loginDecision)
    }

    /// `GET /.well-known/jwks.json`.
    func jwks(_ request: Request, context: Context) async -> Response {
        let value: JSONValue
        do throws(RelyingPartyError) { value = try await service.issuer.jwks() } catch { return Response.error(APIError(error)) }
        // Backends cache the key set; rotation keeps old keys published long enough for that.
        var response = Response.json(value)
        response.headers[.cacheControl] = "public, max-age=300"
        return response
    }

    /// `POST /connect/tokens`.
    func mintToken(_ request: Request, context: Context) async -> Response {
        var request = request
        return await steps.observed("connect", "token", request, context) { note throws in
            let key = try context.backendKey()
            let body = try await request.decode(ConnectTokenRequest.self, limit: bodyLimit)
            let minted = try await service.mintToken(
                type: ConnectTokenType(rawValue: body.type), externalID: body.user.id, name: body.user.name, displayName: body.user.displayName,
                apiKey: key)
            note.concerns(minted.user)
            return ConnectTokenAnswer(
                token: minted.token, expiresAt: ISO8601DateFormatter().string(from: minted.expiresAt), userId: minted.user.id)
        }
    }

    /// `POST /connect/verify`.
    func verifySignedData(_ request: Request, context: Context) async -> Response {
        var request = request
        return await steps.observed("connect", "verify", request, context) { note throws in
            _ = try context.backendKey()
            let body = try await request.decode(SignedPasskeyDataRequest.self, limit: bodyLimit)
            let claims = try await service.verifySignedData(body.signedPasskeyData)
            note.concerns(userID: claims.sub, username: claims.username, credentialID: Base64URL.decode(claims.credentialID))
            return SignedPasskeyDataAnswer(claims)
        }
    }

    /// `GET /users/{id}/passkeys`.
    func listPasskeysForBackend(_ request: Request, context: Context) async -> Response {
        await steps.observed("manage", "list", request, context) { _ throws in
            _ = try context.backendKey()
            let user = try await service.backendUser(context.parameters.get("id") ?? "", by: try request.formQuery.single("by"))
            return PasskeyListAnswer(try await service.passkeyList(of: user), ceremonies: service.ceremonies, catalog: catalog.current)
        }
    }

    /// `GET /passkeys/compromised`: the passkeys of the models the metadata BLOB in force reports compromised.
    func listCompromisedPasskeys(_ request: Request, context: Context) async -> Response {
        await steps.observed("manage", "compromised", request, context) { _ throws in
            _ = try context.backendKey()
            let catalog = catalog.current
            let found: [(passkey: CredentialRecordEntry, owner: UserRecord?)]
            do { found = try await PasskeysOfModels.find(catalog.compromisedModels, in: service.ceremonies.repository) } catch let error as StorageError {
                throw RelyingPartyError(error)
            }
            return CompromisedPasskeysAnswer(
                passkeys: found.map { .init(userId: $0.passkey.userID, username: $0.owner?.username, passkey: PasskeyEntry($0.passkey, catalog: catalog)) })
        }
    }

    /// `DELETE /users/{id}/passkeys/{credentialId}`.
    func deletePasskeyForBackend(_ request: Request, context: Context) async -> Response {
        await steps.observed("manage", "delete", request, context) { _ throws in
            let key = try context.backendKey()
            let user = try await service.backendUser(context.parameters.get("id") ?? "", by: try request.formQuery.single("by"))
            try await accounts.deletePasskey(
                try service.credentialID(context.parameters.get("credentialId")), of: user, by: actor(.apiKey(key), request, context))
            return DeletedAnswer()
        }
    }

    /// `PATCH /users/{id}`.
    func setUserStateForBackend(_ request: Request, context: Context) async -> Response {
        var request = request
        return await steps.observed("manage", "update-user", request, context) { note throws in
            let key = try context.backendKey()
            let body = try await request.decode(AccountStateRequest.self, limit: bodyLimit)
            note.detail = body.disabled ? "user disabled" : "user enabled"
            let user = try await service.backendUser(context.parameters.get("id") ?? "", by: try request.formQuery.single("by"))
            let updated = try await accounts.setDisabled(body.disabled, user, by: actor(.apiKey(key), request, context))
            note.concerns(updated)
            return AccountStateAnswer(updated)
        }
    }

    /// `DELETE /users/{id}`.
    func deleteUserForBackend(_ request: Request, context: Context) async -> Response {
        await steps.observed("manage", "delete-user", request, context) { _ throws in
            let key = try context.backendKey()
            let user = try await service.backendUser(context.parameters.get("id") ?? "", by: try request.formQuery.single("by"))
            try await accounts.deleteUser(user, by: actor(.apiKey(key), request, context))
            return DeletedAnswer()
        }
    }

    /// `POST /connect/append/decision`.
    func appendDecision(_ request: Request, context: Context) async -> Response {
        var request = request
        return await steps.observed("append", "decision", request, context) { _ throws in
            // A list token decides too: the decision reads only the account's own passkeys, which the list shows.
            let (user, type) = try await service.authorizeNamingType(Self.authorization(request), anyOf: [.passkeyAppend, .passkeyList], consume: false)
            let body = try await request.decode(AppendDecisionRequest.self, limit: bodyLimit)
            let declined = try Self.declined(body.lastDeclinedAt)
            let (decision, passkeys) = try await service.appendDecision(user: user, client: ClientReport(body.client), lastDeclinedAt: declined)
            // Which kind decided: an app that asked for an append token and got a list token learns it here, not at
            // the append.
            return AppendDecisionAnswer(decision: ConnectDecision(decision), passkeys: passkeys, tokenType: type.rawValue)
        }
    }

    /// `POST /connect/append/options`.
    func appendOptions(_ request: Request, context: Context) async -> Response {
        var request = request
        return await steps.observed("append", "options", request, context) { _ throws in
            try ConnectService<Repository>.requireToken(Self.authorization(request))
            let body = try await request.decode(AppendOptionsRequest.self, limit: bodyLimit)
            let replaces = try body.replaces.map { (text: String) throws in try service.credentialID(text) }
            guard body.mediation == nil || body.mediation == "conditional" || body.mediation == "required" else {
                throw APIError(.mediationInvalid, "mediation is conditional (create without a prompt) or required.")
            }
            let user = try await service.authorize(Self.authorization(request), .passkeyAppend, consume: true)
            let (options, key) = try await service.ceremonies.appendOptions(
                for: user, replacing: replaces, conditional: body.mediation == "conditional")
            return RegistrationOptionsAnswer(options: options, challengeKey: key)
        }
    }

    /// `POST /connect/append/verify`.
    func appendVerify(_ request: Request, context: Context) async -> Response {
        var request = request
        return await steps.observed("append", "verify", request, context) { note throws in
            let body = try await request.decode(AppendVerifyRequest.self, limit: bodyLimit)
            // Read before the passkey is stored: a malformed one must not be refused after the passkey exists.
            let declined = try Self.declined(body.lastDeclinedAt)
            // Authorized by the challenge: only append options (made with a consumed append token) name an
            // existing account.
            let result = try await service.ceremonies.verifyRegistration(body.cred, challengeKey: body.challengeKey, username: nil, at: .append)
            let token = try await service.signedData(result)
            note.concerns(result.user, credentialID: result.credential.id)
            // The list after the append (and, with `client`, whether to offer another): the append token is used
            // up, and a management screen shows both.
            let list = try await service.passkeyList(of: result.user, client: body.client.map(ClientReport.init), lastDeclinedAt: declined)
            return AppendVerifyAnswer(
                account: VerifiedAccountFields(
                    username: result.user.entityName, userId: result.user.id, isAnonymous: result.user.isAnonymous,
                    credentialId: Base64URL.encode(result.credential.id), signedPasskeyData: token),
                passkey: PasskeyEntry(result.credential, catalog: catalog.current), list: PasskeyListAnswer(list, ceremonies: service.ceremonies, catalog: catalog.current))
        }
    }

    /// `GET /connect/passkeys`.
    func listPasskeys(_ request: Request, context: Context) async -> Response {
        await steps.observed("manage", "list", request, context) { _ throws in
            let user = try await service.authorize(Self.authorization(request), .passkeyList, consume: false)
            return PasskeyListAnswer(try await service.passkeyList(of: user), ceremonies: service.ceremonies, catalog: catalog.current)
        }
    }

    /// `PATCH /connect/passkeys/{credentialId}`.
    func renamePasskey(_ request: Request, context: Context) async -> Response {
        var request = request
        return await steps.observed("manage", "rename", request, context) { _ throws in
            let user = try await service.authorize(Self.authorization(request), .passkeyList, consume: false)
            let body = try await request.decode(PasskeyRenameRequest.self, limit: bodyLimit)
            let id = try service.credentialID(context.parameters.get("credentialId"))
            return PasskeyEntry(
                try await accounts.renamePasskey(id, of: user, to: body.name, by: actor(.accountHolder, request, context)), catalog: catalog.current)
        }
    }

    /// `DELETE /connect/passkeys/{credentialId}`.
    func deletePasskey(_ request: Request, context: Context) async -> Response {
        await steps.observed("manage", "delete", request, context) { _ throws in
            try ConnectService<Repository>.requireToken(Self.authorization(request))
            let id = try service.credentialID(context.parameters.get("credentialId"))
            // Optional, in the query (a DELETE's body may not survive every proxy): the device, and when the person
            // last declined a passkey, for the append decision in the answer.
            let query = request.formQuery
            let (client, declined) = (try Self.client(query), try Self.declined(try query.single("lastDeclinedAt")))
            let user = try await service.authorize(Self.authorization(request), .passkeyDelete, consume: true)
            try await accounts.deletePasskey(id, of: user, by: actor(.accountHolder, request, context))
            // The passkeys left, in the answer: the delete token is used up, and the screen shows the list next.
            let list = try await service.passkeyList(of: user, client: client, lastDeclinedAt: declined)
            return PasskeyDeleteAnswer(list: PasskeyListAnswer(list, ceremonies: service.ceremonies, catalog: catalog.current))
        }
    }

    /// `POST /connect/login/options`.
    func loginOptions(_ request: Request, context: Context) async -> Response {
        await steps.observed("authentication", "options", request, context) { _ throws in
            let user = try await service.authorize(Self.authorization(request), .passkeyLogin, consume: true)
            let (options, key) = try await service.ceremonies.authenticationOptions(for: user)
            return AuthenticationOptionsAnswer(options: options, challengeKey: key)
        }
    }

    /// `POST /connect/login/decision`.
    func loginDecision(_ request: Request, context: Context) async -> Response {
        var request = request
        return await steps.observed("login", "decision", request, context) { _ throws in
            try await throttle.enforce(request, context)
            let body = try await request.decode(LoginDecisionRequest.self, limit: bodyLimit)
            let failures = body.recentFailures ?? 0
            guard failures >= 0 else { throw APIError(.recentFailuresInvalid, "recentFailures is 0 or more.") }
            let made = try await service.loginDecision(client: ClientReport(body.client), identifier: body.identifier, recentFailures: failures)
            return LoginDecisionAnswer(
                decision: ConnectDecision(made.decision), identifier: made.identifier,
                options: made.options.map { AuthenticationOptionsAnswer(options: $0.options, challengeKey: $0.challengeKey) })
        }
    }
}
