import Foundation
import Hummingbird
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
struct ConnectController<Repository: PasskeyRepository, Context: RequestContext>: Sendable {
    let service: ConnectService<Repository>
    let ceremonies: CeremonyController<Repository, Context>

    var bodyLimit: Int { ceremonies.bodyLimit }

    static func authorization(_ request: Request) -> String? { request.headers[.authorization] }

    /// The device a request describes (`client`, as the decision endpoints read it); nil when it describes none.
    static func client(_ body: JSONObjectReaderAPI) throws(APIError) -> ClientReport? {
        guard let value = body.reader.value("client"), value != .null else { return nil }
        return try answering { () throws(RelyingPartyError) in try ClientReport(json: value) }
    }

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

    func addRoutes(to router: Router<Context>) {
        router.get(".well-known/jwks.json") { _, _ in
            let value: JSONValue
            do throws(RelyingPartyError) { value = try await service.issuer.jwks() } catch { return Response.error(APIError(error)) }
            // Backends cache the key set; rotation keeps old keys published long enough for that.
            var response = Response.json(value)
            response.headers[.cacheControl] = "public, max-age=300"
            return response
        }
        addBackendRoutes(to: router)
        addClientRoutes(to: router)
    }

    // MARK: Backend (API key)

    func addBackendRoutes(to router: Router<Context>) {
        router.post("connect/tokens") { request, context in
            var request = request
            return await ceremonies.observedJSON("connect", "token", request, context) { note throws in
                let key = try await service.authenticateBackend(Self.authorization(request))
                let body = try JSONObjectReaderAPI(try await request.jsonBody(limit: bodyLimit))
                let type = ConnectTokenType(rawValue: try body.requiredString("type"))
                let user = try body.requiredObject("user")
                let minted = try await service.mintToken(
                    type: type, externalID: try user.requiredString("id"), name: try user.optionalString("name"),
                    displayName: try user.optionalString("displayName"), apiKey: key)
                note.concerns(minted.user)
                return .object([
                    "token": .string(minted.token), "expiresAt": .string(ISO8601DateFormatter().string(from: minted.expiresAt)),
                    "userId": .string(minted.user.id),
                ])
            }
        }
        router.post("connect/verify") { request, context in
            var request = request
            return await ceremonies.observedJSON("connect", "verify", request, context) { note throws in
                _ = try await service.authenticateBackend(Self.authorization(request))
                let body = try JSONObjectReaderAPI(try await request.jsonBody(limit: bodyLimit))
                let verified = try await service.verifySignedData(try body.requiredString("signedPasskeyData"))
                note.concerns(
                    userID: verified.claims.sub, username: verified.claims.username, credentialID: Base64URL.decode(verified.claims.credentialID))
                return verified.answer
            }
        }
        router.get("users/:id/passkeys") { request, context in
            await ceremonies.observedJSON("manage", "list", request, context) { _ throws in
                _ = try await service.authenticateBackend(Self.authorization(request))
                return try await service.passkeys(of: try await service.backendUser(context.parameters.get("id") ?? "", by: try request.formQuery.single("by")))
            }
        }
        router.delete("users/:id/passkeys/:credentialId") { request, context in
            await ceremonies.observedJSON("manage", "delete", request, context) { _ throws in
                _ = try await service.authenticateBackend(Self.authorization(request))
                let user = try await service.backendUser(context.parameters.get("id") ?? "", by: try request.formQuery.single("by"))
                try await service.deletePasskey(of: user, id: try service.credentialID(context.parameters.get("credentialId")))
                return .object(["deleted": true])
            }
        }
        router.patch("users/:id") { request, context in
            var request = request
            return await ceremonies.observedJSON("manage", "update-user", request, context) { note throws in
                _ = try await service.authenticateBackend(Self.authorization(request))
                let body = try JSONObjectReaderAPI(try await request.jsonBody(limit: bodyLimit))
                let disabled = try body.requiredBool("disabled")
                note.detail = disabled ? "user disabled" : "user enabled"
                let user = try await service.backendUser(context.parameters.get("id") ?? "", by: try request.formQuery.single("by"))
                let updated = try await service.setDisabled(user, disabled)
                note.concerns(updated)
                return ConnectService<Repository>.accountJSON(updated)
            }
        }
        router.delete("users/:id") { request, context in
            await ceremonies.observedJSON("manage", "delete-user", request, context) { _ throws in
                _ = try await service.authenticateBackend(Self.authorization(request))
                try await service.deleteUser(try await service.backendUser(context.parameters.get("id") ?? "", by: try request.formQuery.single("by")))
                return .object(["deleted": true])
            }
        }
    }

    // MARK: App (connect token)

    func addClientRoutes(to router: Router<Context>) {
        router.post("connect/append/decision") { request, context in
            var request = request
            return await ceremonies.observedJSON("append", "decision", request, context) { _ throws in
                // A list token decides too: the decision reads only the account's own passkeys, which the list shows.
                let (user, type) = try await service.authorizeNamingType(Self.authorization(request), anyOf: [.passkeyAppend, .passkeyList], consume: false)
                let body = try JSONObjectReaderAPI(try await request.jsonBody(limit: bodyLimit))
                let declined = try Self.declined(try body.optionalString("lastDeclinedAt"))
                guard case .object(var decision) = try await service.appendDecision(
                    user: user, client: try ClientReport(json: body.reader.value("client")), lastDeclinedAt: declined)
                else { return .null }
                // Which kind decided: an app that asked for an append token and got a list token learns it here, not at
                // the append.
                decision["tokenType"] = .string(type.rawValue)
                return .object(decision)
            }
        }
        router.post("connect/append/options") { request, context in
            var request = request
            return await ceremonies.observedJSON("append", "options", request, context) { _ throws in
                try ConnectService<Repository>.requireToken(Self.authorization(request))
                let body = try JSONObjectReaderAPI(try await request.jsonBody(limit: bodyLimit))
                let replaces = try body.optionalString("replaces").map { (text: String) throws in try service.credentialID(text) }
                let mediation = try body.optionalString("mediation")
                guard mediation == nil || mediation == "conditional" || mediation == "required" else {
                    throw APIError(.mediationInvalid, "mediation is conditional (create without a prompt) or required.")
                }
                let user = try await service.authorize(Self.authorization(request), .passkeyAppend, consume: true)
                let (options, key) = try await service.ceremonies.appendOptions(
                    for: user, replacing: replaces, conditional: mediation == "conditional")
                guard case .object(var object) = options.json else { return options.json }
                object["challengeKey"] = .string(key)
                return .object(object)
            }
        }
        router.post("connect/append/verify") { request, context in
            var request = request
            return await ceremonies.observedJSON("append", "verify", request, context) { note throws in
                let body = try JSONObjectReaderAPI(try await request.jsonBody(limit: bodyLimit))
                let credential = try body.registrationCredential("cred")
                // Read before the passkey is stored: a malformed one must not be refused after the passkey exists.
                let (client, declined) = (try Self.client(body), try Self.declined(try body.optionalString("lastDeclinedAt")))
                // Authorized by the challenge: only append options (made with a consumed append token) name an
                // existing account.
                let challengeKey = try body.requiredString("challengeKey")
                let result = try await service.ceremonies.verifyRegistration(credential, challengeKey: challengeKey, username: nil, at: .append)
                let token = try await service.signedData(result)
                note.concerns(result.user, credentialID: result.credential.id)
                // The list after the append (and, with `client`, whether to offer another): the append token is used
                // up, and a management screen shows both.
                var answer = try await service.passkeyList(of: result.user, client: client, lastDeclinedAt: declined)
                answer["verified"] = true
                answer["userId"] = .string(result.user.id)
                answer["username"] = .string(result.user.entityName)
                answer["credentialId"] = .string(Base64URL.encode(result.credential.id))
                answer["passkey"] = PasskeyListing.json(result.credential)
                answer["signedPasskeyData"] = .string(token)
                return .object(answer)
            }
        }
        router.get("connect/passkeys") { request, context in
            await ceremonies.observedJSON("manage", "list", request, context) { _ throws in
                let user = try await service.authorize(Self.authorization(request), .passkeyList, consume: false)
                return try await service.passkeys(of: user)
            }
        }
        router.patch("connect/passkeys/:credentialId") { request, context in
            var request = request
            return await ceremonies.observedJSON("manage", "rename", request, context) { _ throws in
                let user = try await service.authorize(Self.authorization(request), .passkeyList, consume: false)
                let body = try JSONObjectReaderAPI(try await request.jsonBody(limit: bodyLimit))
                return try await service.renamePasskey(
                    of: user, id: try service.credentialID(context.parameters.get("credentialId")), name: try body.requiredString("name"))
            }
        }
        router.delete("connect/passkeys/:credentialId") { request, context in
            await ceremonies.observedJSON("manage", "delete", request, context) { _ throws in
                try ConnectService<Repository>.requireToken(Self.authorization(request))
                let id = try service.credentialID(context.parameters.get("credentialId"))
                // Optional, in the query (a DELETE's body may not survive every proxy): the device, and when the person
                // last declined a passkey, for the append decision in the answer.
                let query = request.formQuery
                let (client, declined) = (try Self.client(query), try Self.declined(try query.single("lastDeclinedAt")))
                let user = try await service.authorize(Self.authorization(request), .passkeyDelete, consume: true)
                try await service.deletePasskey(of: user, id: id)
                // The passkeys left, in the answer: the delete token is used up, and the screen shows the list next.
                var answer = try await service.passkeyList(of: user, client: client, lastDeclinedAt: declined)
                answer["deleted"] = true
                return .object(answer)
            }
        }
        router.post("connect/login/options") { request, context in
            await ceremonies.observedJSON("authentication", "options", request, context) { _ throws in
                let user = try await service.authorize(Self.authorization(request), .passkeyLogin, consume: true)
                let (options, key) = try await service.ceremonies.authenticationOptions(for: user)
                guard case .object(var object) = options.json else { return options.json }
                object["challengeKey"] = .string(key)
                return .object(object)
            }
        }
        router.post("connect/login/decision") { request, context in
            var request = request
            return await ceremonies.observedJSON("login", "decision", request, context) { _ throws in
                try await ceremonies.throttle(request, context)
                let body = try JSONObjectReaderAPI(try await request.jsonBody(limit: bodyLimit))
                let failures = try body.optionalInt("recentFailures") ?? 0
                guard failures >= 0 else { throw APIError(.recentFailuresInvalid, "recentFailures is 0 or more.") }
                return try await service.loginDecision(
                    client: try ClientReport(json: body.reader.value("client")), identifier: try body.optionalString("identifier"),
                    recentFailures: failures)
            }
        }
    }
}
