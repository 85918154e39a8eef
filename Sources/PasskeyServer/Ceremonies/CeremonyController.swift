import PasskeyRelyingParty
public import Hummingbird
public import PasskeyStorage
import PasskeyAPI
import PasskeyWire
import Foundation
import Logging

/// Routes of the documented ceremony API (and the app-backend `/api/…` variant) over a ``CeremonyService``.
public struct CeremonyController<Repository: PasskeyRepository, Context: RequestContext>: Sendable {
    let service: CeremonyService<Repository>
    /// Largest request body the ceremony routes read (``ServerConfiguration/maximumBodySize``).
    let bodyLimit: Int
    /// Each step's metric, log line and event.
    let steps: StepRecorder<Context>
    /// Options per client address and minute.
    let throttle: ClientThrottle<Context>
    /// Signs `signedPasskeyData` for a verified ceremony.
    let signer: @Sendable (SignedPasskeySubject) async throws(RelyingPartyError) -> String

    init(
        service: CeremonyService<Repository>, bodyLimit: Int, steps: StepRecorder<Context>, throttle: ClientThrottle<Context>,
        signer: @escaping @Sendable (SignedPasskeySubject) async throws(RelyingPartyError) -> String
    ) {
        self.service = service
        self.bodyLimit = bodyLimit
        self.steps = steps
        self.throttle = throttle
        self.signer = signer
    }

    func observed<Answer: JSONRepresentable>(
        _ ceremony: String, _ step: String, _ request: Request, _ context: Context, _ body: (CeremonyNote) async throws -> Answer
    ) async -> Response {
        await steps.observed(ceremony, step, request, context, body)
    }

    /// A name given to a POST options endpoint: in the JSON body, or in the query string as the GET form takes it (a
    /// client that only switched the method keeps working instead of silently getting anonymous options). When both
    /// give one, they must be the same.
    static func posted(_ field: String, _ inBody: String?, _ query: FormQuery) throws(APIError) -> String? {
        guard let inQuery = try query.single(field) else { return inBody }
        guard let inBody else { return inQuery }
        guard inBody == inQuery else {
            throw APIError(.fieldInvalid, "The body and the query string give different values for \(field): send it once.")
        }
        return inBody
    }

    public func addRoutes(to router: Router<Context>) {
        // The documented API.
        router.get("generate-registration-options", use: registrationOptionsByQuery)
        router.post("generate-registration-options", use: registrationOptionsByBody)
        router.post("verify-registration", use: verifyRegistration)
        router.get("generate-authentication-options", use: authenticationOptionsByQuery)
        router.post("generate-authentication-options", use: authenticationOptionsByBody)
        router.post("verify-authentication", use: verifyAuthentication)

        // The app-backend guide's API: same ceremonies, challenge found from the signed client data.
        for path in ["api/registration-challenge", "api/start-registration"] {
            router.post(RouterPath(path), use: backendRegistrationOptions)
        }
        router.post("api/complete-registration", use: backendCompleteRegistration)
        for path in ["api/authentication-challenge", "api/start-authentication"] {
            router.post(RouterPath(path), use: backendAuthenticationOptions)
        }
        router.post("api/complete-authentication", use: backendCompleteAuthentication)
    }

    /// The account and passkey a registration verified, with its signed proof.
    func verifiedAccount(_ result: CompletedRegistration) async throws -> VerifiedAccountFields {
        VerifiedAccountFields(
            username: result.user.entityName, userId: result.user.id, isAnonymous: result.user.isAnonymous,
            credentialId: Base64URL.encode(result.credential.id), signedPasskeyData: try await registrationToken(result))
    }

    /// The signed proof of a registration, for the app's backend. A new account is not linked to an app's user yet; a
    /// passkey added to an existing one (append options, which the registration endpoints complete for apps written
    /// against them) names the app's user as /connect/append/verify's token does: backends refuse a token without it
    /// (docs/connect.md).
    func registrationToken(_ result: CompletedRegistration) async throws -> String {
        let externalID = result.addedToExistingAccount ? try await service.repository.externalID(userID: result.user.id) : nil
        return try await signer(SignedPasskeySubject(result, externalUserID: externalID))
    }

    func throttle(_ request: Request, _ context: Context) async throws(APIError) {
        try await throttle.enforce(request, context)
    }

    /// Registration options for a request: the username is noted before the throttle, so that a refused attempt names
    /// its user too.
    func registrationOptions(
        _ note: CeremonyNote, _ request: Request, _ context: Context, _ body: RegistrationOptionsRequest, challengeKey: Bool = true
    ) async throws -> RegistrationOptionsAnswer {
        note.username = body.username
        try await throttle(request, context)
        let accepted = try ContactIdentifier.acceptedKinds(body.contact)
        return try await registrationOptions(
            username: body.username, displayName: body.displayName, acceptedContacts: accepted, challengeKey: challengeKey)
    }

    /// - Parameter challengeKey: include it (the documented API); the app-backend guide's shape has none.
    func registrationOptions(
        username: String?, displayName: String?, acceptedContacts: [ContactKind], challengeKey: Bool = true
    ) async throws -> RegistrationOptionsAnswer {
        let (options, key, _) = try await service.registrationOptions(
            username: username, displayName: displayName, acceptedContacts: acceptedContacts)
        // Options for the system's sign-up sheet say which contacts it may offer (the request's `contact`).
        return RegistrationOptionsAnswer(
            options: options, challengeKey: challengeKey ? key : nil, acceptedContacts: acceptedContacts.isEmpty ? nil : acceptedContacts)
    }

    func authenticationOptions(username: String?) async throws -> AuthenticationOptionsAnswer {
        let (options, key) = try await service.authenticationOptions(username: username)
        return AuthenticationOptionsAnswer(options: options, challengeKey: key)
    }

    /// The user object of the app-backend guide (``PasskeyAPI/BackendUserAnswer``), with the ceremony's
    /// `signedPasskeyData`.
    static func backendUser(_ user: UserRecord, signedPasskeyData: String, counterRegressed: Bool = false) -> BackendUserAnswer {
        BackendUserAnswer(
            id: user.id, username: user.entityName, displayName: user.displayName,
            email: user.username.flatMap { $0.contains("@") ? $0 : nil }, createdAt: ISO8601DateFormatter().string(from: user.createdAt),
            signedPasskeyData: signedPasskeyData, counterRegressed: counterRegressed)
    }

    /// `GET /generate-registration-options`.
    func registrationOptionsByQuery(_ request: Request, context: Context) async -> Response {
        await observed("registration", "options", request, context) { note in
            let query = request.formQuery
            return try await registrationOptions(
                note, request, context,
                RegistrationOptionsRequest(
                    username: try query.single("username"), displayName: try query.single("displayName"), contact: try query.single("contact")))
        }
    }

    /// `POST /generate-registration-options`.
    func registrationOptionsByBody(_ request: Request, context: Context) async -> Response {
        var request = request
        return await observed("registration", "options", request, context) { note in
            var body = try await request.decode(RegistrationOptionsRequest.self, limit: bodyLimit)
            let query = request.formQuery
            body.username = try Self.posted("username", body.username, query)
            body.displayName = try Self.posted("displayName", body.displayName, query)
            body.contact = try Self.posted("contact", body.contact, query)
            return try await registrationOptions(note, request, context, body)
        }
    }

    /// `POST /verify-registration`.
    func verifyRegistration(_ request: Request, context: Context) async -> Response {
        var request = request
        return await observed("registration", "verify", request, context) { note in
            let body = try await note.decoding(VerifyRegistrationRequest.self) { try await request.jsonBody(limit: bodyLimit) }
            note.username = body.username
            let result = try await service.verifyRegistration(
                body.cred, challengeKey: body.challengeKey, username: body.username, displayName: body.displayName)
            context.logger.info("registration verified", metadata: ["user": "\(result.user.id)"])
            note.concerns(result.user, credentialID: result.credential.id)
            return VerifyRegistrationAnswer(account: try await verifiedAccount(result))
        }
    }

    /// `GET /generate-authentication-options`.
    func authenticationOptionsByQuery(_ request: Request, context: Context) async -> Response {
        await observed("authentication", "options", request, context) { note in
            note.username = try request.formQuery.single("username")  // before the throttle: a refused attempt names its user too
            try await throttle(request, context)
            return try await authenticationOptions(username: note.username)
        }
    }

    /// `POST /generate-authentication-options`.
    func authenticationOptionsByBody(_ request: Request, context: Context) async -> Response {
        var request = request
        return await observed("authentication", "options", request, context) { note in
            let body = try await request.decode(AuthenticationOptionsRequest.self, limit: bodyLimit)
            note.username = try Self.posted("username", body.username, request.formQuery)
            try await throttle(request, context)
            return try await authenticationOptions(username: note.username)
        }
    }

    /// `POST /verify-authentication`.
    func verifyAuthentication(_ request: Request, context: Context) async -> Response {
        var request = request
        return await observed("authentication", "verify", request, context) { note in
            let body = try await request.decode(VerifyAuthenticationRequest.self, limit: bodyLimit)
            let result = try await service.verifyAuthentication(body.cred, challengeKey: body.challengeKey)
            context.logger.info("sign-in verified", metadata: ["user": "\(result.user.id)"])
            note.concerns(result.user, credentialID: result.credential.id)
            if result.counterRegressed { steps.flagCounterRegression(note, context, result.user, result.credential) }
            let token = try await signer(SignedPasskeySubject(result))
            // The account's current names and passkeys, for the device's passkey manager (WebAuthn L3 §5.1.10):
            // `rpId` and `user` as before, and each signal's argument as the browser method takes it.
            let signals = try await service.signals(after: result)
            return VerifyAuthenticationAnswer(
                account: VerifiedAccountFields(
                    username: result.user.entityName, userId: result.user.id, isAnonymous: result.user.isAnonymous,
                    credentialId: Base64URL.encode(result.credential.id), signedPasskeyData: token),
                counterRegressed: result.counterRegressed, rpId: service.configuration.rpID, user: service.userEntity(for: result.user),
                signalAllAcceptedCredentials: signals.allAcceptedCredentials, signalCurrentUserDetails: signals.currentUserDetails)
        }
    }

    /// `POST /api/registration-challenge` and `POST /api/start-registration` (the app-backend guide's names).
    func backendRegistrationOptions(_ request: Request, context: Context) async -> Response {
        var request = request
        return await observed("registration", "options", request, context) { note in
            let body = try await request.decode(RegistrationOptionsRequest.self, limit: bodyLimit)
            return try await registrationOptions(note, request, context, body, challengeKey: false)
        }
    }

    /// `POST /api/complete-registration`.
    func backendCompleteRegistration(_ request: Request, context: Context) async -> Response {
        var request = request
        return await observed("registration", "verify", request, context) { note in
            let body = try await note.decoding(BackendCompleteRegistrationRequest.self) { try await request.jsonBody(limit: bodyLimit) }
            note.username = body.username
            let result = try await service.verifyRegistration(
                body.credential, challengeKey: nil, username: body.username, displayName: body.displayName)
            note.concerns(result.user, credentialID: result.credential.id)
            return Self.backendUser(result.user, signedPasskeyData: try await registrationToken(result))
        }
    }

    /// `POST /api/authentication-challenge` and `POST /api/start-authentication` (the app-backend guide's names).
    func backendAuthenticationOptions(_ request: Request, context: Context) async -> Response {
        var request = request
        return await observed("authentication", "options", request, context) { note in
            let body = try await request.decode(AuthenticationOptionsRequest.self, limit: bodyLimit)
            note.username = body.username
            try await throttle(request, context)
            var options = try await service.authenticationOptions(username: note.username).options
            // The guide's shape always lists allowCredentials, empty for a sign-in without a username.
            options.allowCredentials = options.allowCredentials ?? []
            return AuthenticationOptionsAnswer(options: options, challengeKey: nil)
        }
    }

    /// `POST /api/complete-authentication`.
    func backendCompleteAuthentication(_ request: Request, context: Context) async -> Response {
        var request = request
        return await observed("authentication", "verify", request, context) { note in
            let body = try await note.decoding(BackendCompleteAuthenticationRequest.self) { try await request.jsonBody(limit: bodyLimit) }
            note.username = body.username
            let username = try UsernameRules.normalized(note.username)
            let result = try await service.verifyAuthentication(body.assertion, challengeKey: nil, expectedUsername: username)
            if result.counterRegressed { steps.flagCounterRegression(note, context, result.user, result.credential) }
            note.concerns(result.user, credentialID: result.credential.id)
            let token = try await signer(SignedPasskeySubject(result))
            return Self.backendUser(result.user, signedPasskeyData: token, counterRegressed: result.counterRegressed)
        }
    }
}
