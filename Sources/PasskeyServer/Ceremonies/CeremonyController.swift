public import PasskeyRelyingParty
public import Hummingbird
public import PasskeyStorage
import PasskeyWire
import Foundation
import Logging

/// Routes of the documented ceremony API (and the app-backend `/api/…` variant) over a ``CeremonyService``.
public struct CeremonyController<Repository: PasskeyRepository, Context: RequestContext>: Sendable {
    let service: CeremonyService<Repository>
    /// Largest request body the ceremony routes read (``ServerConfiguration/maximumBodySize``).
    let bodyLimit: Int
    let limiter: RateLimiter
    let metrics: CeremonyMetrics
    let clientAddress: @Sendable (Request, Context) -> String
    /// Signs `signedPasskeyData` for a verified ceremony.
    let signer: @Sendable (SignedPasskeySubject) async throws(RelyingPartyError) -> String
    /// The dashboard's event log; `nil` records nothing.
    let events: EventRecorder?

    public init(
        service: CeremonyService<Repository>, bodyLimit: Int, limiter: RateLimiter, metrics: CeremonyMetrics,
        clientAddress: @escaping @Sendable (Request, Context) -> String,
        signer: @escaping @Sendable (SignedPasskeySubject) async throws(RelyingPartyError) -> String,
        events: EventRecorder? = nil
    ) {
        self.events = events
        self.service = service
        self.bodyLimit = bodyLimit
        self.limiter = limiter
        self.metrics = metrics
        self.clientAddress = clientAddress
        self.signer = signer
    }

    /// Runs a ceremony step, records its outcome and latency, logs failures by code, emits its event to the dashboard's
    /// log, and answers with JSON.
    ///
    /// Failures are logged with their stable code and the verifier's reason (expected and received values: origins,
    /// RP ID hashes, counters — never challenges, keys or credential IDs). A counter regression, the sign of a cloned
    /// authenticator, is a warning.
    ///
    /// `body` throws the edge's errors (``APIError``) and the library's (``PasskeyRelyingParty/RelyingPartyError``) alike:
    /// each is answered as ``APIError/init(mapping:)`` maps it.
    func observed(
        _ ceremony: String, _ step: String, _ request: Request, _ context: Context, _ body: (CeremonyNote) async throws -> JSONValue
    ) async -> Response {
        let logger = context.logger
        let start = ContinuousClock.now
        let value: JSONValue
        let note = CeremonyNote()
        do {
            value = try await body(note)
        } catch {
            let error = APIError(mapping: error)
            metrics.record(ceremony: ceremony, step: step, code: error.code, duration: ContinuousClock.now - start)
            let level: Logger.Level = error.code == "counter_regressed" ? .warning : (error.statusCode >= 500 ? .error : .notice)
            logger.log(
                level: level, "ceremony failed",
                metadata: [
                    "ceremony": .string(ceremony), "step": .string(step), "code": .string(error.code),
                    "detail": .string(error.logDetail ?? error.message),
                ])
            await emit(ceremony, step, request, context, error: error, note: note)
            return Response.error(error)
        }
        metrics.record(ceremony: ceremony, step: step, code: nil, duration: ContinuousClock.now - start)
        await emit(ceremony, step, request, context, error: nil, note: note)
        return Response.json(value)
    }

    /// Records the step's event, when the server keeps an event log.
    func emit(
        _ ceremony: String, _ step: String, _ request: Request, _ context: Context, error: APIError?, note: CeremonyNote
    ) async {
        guard let events else { return }
        let requestID: String?
        if case .string(let id) = context.logger[metadataKey: "request_id"] { requestID = id } else { requestID = nil }
        let metadata = RequestMetadata(request, clientIP: clientAddress(request, context), requestID: requestID)
        await events.recordCeremony(
            events.ceremonyEvent(
                kind: "\(ceremony).\(step)", rpID: service.configuration.rpID, metadata: metadata, error: error,
                userID: note.userID, username: note.accountName, credentialID: note.credentialID,
                // Only when the step names no account (options, failures): a verified step's account name was
                // normalised by the library already. Only a name that passes the username checks: a refused one may
                // carry direction overrides or invisible characters that would disguise it in the dashboard.
                requestedUsername: note.accountName != nil
                    ? nil : ((try? UsernameRules.normalized(note.username)) ?? nil) ?? error?.accountUsername,
                detail: note.detail),
            logger: context.logger)
    }

    /// A name given to a POST options endpoint: in the JSON body, or in the query string as the GET form takes it (a
    /// client that only switched the method keeps working instead of silently getting anonymous options). When both
    /// give one, they must be the same.
    static func posted(_ field: String, _ body: JSONObjectReaderAPI, _ query: FormQuery) throws(APIError) -> String? {
        let inBody = try body.optionalString(field)
        guard let inQuery = try query.single(field) else { return inBody }
        guard let inBody else { return inQuery }
        guard inBody == inQuery else {
            throw APIError.badRequest("field_invalid", "The body and the query string give different values for \(field): send it once.")
        }
        return inBody
    }

    public func addRoutes(to router: Router<Context>) {
        // The documented API.
        router.get("generate-registration-options") { request, context in
            await observed("registration", "options", request, context) { note in
                let query = request.formQuery
                return try await registrationOptions(note, request, context) { try query.single($0) }
            }
        }
        router.post("generate-registration-options") { request, context in
            var request = request
            return await observed("registration", "options", request, context) { note in
                let body = try JSONObjectReaderAPI(try await request.jsonBody(limit: bodyLimit))
                let query = request.formQuery
                return try await registrationOptions(note, request, context) { try Self.posted($0, body, query) }
            }
        }
        router.post("verify-registration") { request, context in
            var request = request
            return await observed("registration", "verify", request, context) { note in
                let body = try JSONObjectReaderAPI(try await request.jsonBody(limit: bodyLimit))
                note.username = try body.optionalString("username")
                let credential = try body.registrationCredential("cred")
                let result = try await service.verifyRegistration(
                    credential, challengeKey: try body.optionalString("challengeKey"), username: note.username,
                    displayName: try body.optionalString("displayName"))
                context.logger.info("registration verified", metadata: ["user": "\(result.user.id)"])
                note.concerns(result.user, credentialID: result.credential.id)
                let token = try await registrationToken(result)
                return .object([
                    "verified": true, "username": .string(result.user.entityName), "userId": .string(result.user.id),
                    "credentialId": .string(Base64URL.encode(result.credential.id)), "isAnonymous": .bool(result.user.isAnonymous),
                    "signedPasskeyData": .string(token),
                ])
            }
        }
        router.get("generate-authentication-options") { request, context in
            await observed("authentication", "options", request, context) { note in
                note.username = try request.formQuery.single("username")  // before the throttle: a refused attempt names its user too
                try await throttle(request, context)
                return try await authenticationOptions(username: note.username)
            }
        }
        router.post("generate-authentication-options") { request, context in
            var request = request
            return await observed("authentication", "options", request, context) { note in
                let body = try JSONObjectReaderAPI(try await request.jsonBody(limit: bodyLimit))
                note.username = try Self.posted("username", body, request.formQuery)
                try await throttle(request, context)
                return try await authenticationOptions(username: note.username)
            }
        }
        router.post("verify-authentication") { request, context in
            var request = request
            return await observed("authentication", "verify", request, context) { note in
                let body = try JSONObjectReaderAPI(try await request.jsonBody(limit: bodyLimit))
                let credential = try body.authenticationCredential("cred")
                let result = try await service.verifyAuthentication(credential, challengeKey: try body.optionalString("challengeKey"))
                context.logger.info("sign-in verified", metadata: ["user": "\(result.user.id)"])
                note.concerns(result.user, credentialID: result.credential.id)
                if result.counterRegressed { flagCounterRegression(note, context, result.user, result.credential) }
                let token = try await signer(SignedPasskeySubject(result))
                var answer: JSONObject = [
                    "verified": true, "username": .string(result.user.entityName), "userId": .string(result.user.id),
                    "isAnonymous": .bool(result.user.isAnonymous), "credentialId": .string(Base64URL.encode(result.credential.id)),
                    "signedPasskeyData": .string(token),
                ]
                if result.counterRegressed { answer["counterRegressed"] = true }
                // The account's current names and passkeys, for the device's passkey manager (WebAuthn L3 §5.1.10):
                // `rpId` and `user` as before, and each signal's argument as the browser method takes it.
                for member in service.signalMembers(for: result.user) { answer[member.name] = member.value }
                let signals = try await service.signals(after: result)
                answer["signalAllAcceptedCredentials"] = signals.allAcceptedCredentials
                answer["signalCurrentUserDetails"] = signals.currentUserDetails
                return .object(answer)
            }
        }

        // The app-backend guide's API: same ceremonies, challenge found from the signed client data.
        for path in ["api/registration-challenge", "api/start-registration"] {
            router.post(RouterPath(path)) { request, context in
                var request = request
                return await observed("registration", "options", request, context) { note in
                    let body = try JSONObjectReaderAPI(try await request.jsonBody(limit: bodyLimit))
                    return try await registrationOptions(note, request, context, challengeKey: false) { try body.optionalString($0) }
                }
            }
        }
        router.post("api/complete-registration") { request, context in
            var request = request
            return await observed("registration", "verify", request, context) { note in
                let body = try JSONObjectReaderAPI(try await request.jsonBody(limit: bodyLimit))
                note.username = try body.optionalString("username")
                let credential = try body.registrationCredential("credential")
                let result = try await service.verifyRegistration(
                    credential, challengeKey: nil, username: note.username, displayName: try body.optionalString("displayName"))
                note.concerns(result.user, credentialID: result.credential.id)
                return Self.userObject(result.user, signedPasskeyData: try await registrationToken(result))
            }
        }
        for path in ["api/authentication-challenge", "api/start-authentication"] {
            router.post(RouterPath(path)) { request, context in
                var request = request
                return await observed("authentication", "options", request, context) { note in
                    let body = try JSONObjectReaderAPI(try await request.jsonBody(limit: bodyLimit))
                    note.username = try body.optionalString("username")
                    try await throttle(request, context)
                    let (options, _) = try await service.authenticationOptions(username: note.username)
                    return .object([
                        "challenge": .string(options.challenge), "rpId": options.rpId.map(JSONValue.string) ?? .null,
                        "allowCredentials": .array((options.allowCredentials ?? []).map(\.json)),
                        "timeout": options.timeout.map { (value: Int) -> JSONValue in .number(Double(value)) } ?? .null,
                        "userVerification": options.userVerification.map { (value: UserVerificationRequirement) -> JSONValue in .string(value.rawValue) } ?? .null,
                    ])
                }
            }
        }
        router.post("api/complete-authentication") { request, context in
            var request = request
            return await observed("authentication", "verify", request, context) { note in
                let body = try JSONObjectReaderAPI(try await request.jsonBody(limit: bodyLimit))
                let credential = try body.authenticationCredential("assertion")
                note.username = try body.optionalString("username")
                let username = try UsernameRules.normalized(note.username)
                let result = try await service.verifyAuthentication(credential, challengeKey: nil, expectedUsername: username)
                if result.counterRegressed { flagCounterRegression(note, context, result.user, result.credential) }
                note.concerns(result.user, credentialID: result.credential.id)
                let token = try await signer(SignedPasskeySubject(result))
                return Self.userObject(result.user, signedPasskeyData: token, counterRegressed: result.counterRegressed)
            }
        }
    }

    /// The signed proof of a registration, for the app's backend. A new account is not linked to an app's user yet; a
    /// passkey added to an existing one (append options, which the registration endpoints complete for apps written
    /// against them) names the app's user as /connect/append/verify's token does: backends refuse a token without it
    /// (docs/connect.md).
    func registrationToken(_ result: CompletedRegistration) async throws -> String {
        let externalID = result.addedToExistingAccount ? try await service.repository.externalID(userID: result.user.id) : nil
        return try await signer(SignedPasskeySubject(result, externalUserID: externalID))
    }

    /// A sign-in accepted under `--allow-counter-regression` although its counter did not increase: a warning in the log
    /// and the explanation of its event, so an operator can see which passkeys may have been cloned.
    func flagCounterRegression(_ note: CeremonyNote, _ context: Context, _ user: UserRecord, _ credential: CredentialRecordEntry) {
        note.detail = "counter did not increase (accepted: --allow-counter-regression)"
        metrics.recordAcceptedCounterRegression()
        context.logger.warning(
            "sign-in accepted with a signature counter that did not increase (--allow-counter-regression)",
            metadata: [
                "user": "\(user.id)",
                // The ID's first characters, as the event log shows them: enough to find the passkey, not the whole ID.
                "credential": "\(String(Base64URL.encode(credential.id).prefix(EventRecord.credentialIDPrefixLength)))",
            ])
    }

    func throttle(_ request: Request, _ context: Context) async throws(APIError) {
        try await limiter.enforce(clientAddress(request, context))
    }

    /// Registration options from a request's fields, read by `field` (the query string, the body, or either): the
    /// username first and before the throttle, so that a refused attempt names its user too.
    func registrationOptions(
        _ note: CeremonyNote, _ request: Request, _ context: Context, challengeKey: Bool = true,
        field: (String) throws -> String?
    ) async throws -> JSONValue {
        note.username = try field("username")
        try await throttle(request, context)
        let displayName = try field("displayName")
        let contact = try field("contact")
        let accepted = try ContactIdentifier.acceptedKinds(contact)
        return try await registrationOptions(username: note.username, displayName: displayName, acceptedContacts: accepted, challengeKey: challengeKey)
    }

    /// - Parameter challengeKey: include it (the documented API); the app-backend guide's shape has none.
    func registrationOptions(
        username: String?, displayName: String?, acceptedContacts: [ContactKind], challengeKey: Bool = true
    ) async throws -> JSONValue {
        let (options, key, _) = try await service.registrationOptions(
            username: username, displayName: displayName, acceptedContacts: acceptedContacts)
        guard case .object(var object) = options.json else { return options.json }
        if challengeKey { object["challengeKey"] = .string(key) }
        // Options for the system's sign-up sheet say which contacts it may offer (the request's `contact`).
        if !acceptedContacts.isEmpty { object["acceptedContacts"] = .array(acceptedContacts.map { .string($0.rawValue) }) }
        return .object(object)
    }

    func authenticationOptions(username: String?) async throws -> JSONValue {
        let (options, key) = try await service.authenticationOptions(username: username)
        guard case .object(var object) = options.json else { return options.json }
        object["challengeKey"] = .string(key)
        return .object(object)
    }

    /// The user object of the app-backend guide: `{id, username, displayName, email, createdAt}`, with the ceremony's
    /// `signedPasskeyData` (a backend of the app's own trusts that, not the user object the device forwards).
    /// `createdAt` is ISO 8601 (`2026-11-28T06:00:00Z`), as OpenAPI's `date-time` and every non-Swift client read it; a
    /// Swift `JSONDecoder` reads it with `dateDecodingStrategy = .iso8601` (docs/migrating/passkeymesdk.md).
    /// `counterRegressed`: a sign-in accepted under `--allow-counter-regression` says so, for the backend receiving it.
    static func userObject(_ user: UserRecord, signedPasskeyData: String, counterRegressed: Bool = false) -> JSONValue {
        let email = user.username.flatMap { $0.contains("@") ? $0 : nil }
        var object: JSONObject = [
            "id": .string(user.id), "username": .string(user.entityName), "displayName": .string(user.displayName),
            "email": email.map(JSONValue.string) ?? .null, "createdAt": .string(ISO8601DateFormatter().string(from: user.createdAt)),
            "signedPasskeyData": .string(signedPasskeyData),
        ]
        if counterRegressed { object["counterRegressed"] = true }
        return .object(object)
    }
}
