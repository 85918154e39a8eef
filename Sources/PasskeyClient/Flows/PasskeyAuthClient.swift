import Foundation
import PasskeyAPI
public import PasskeyWire

/// Registers and signs in against a passkey server with any ``Authenticator``: the server API of `passkey-server`
/// (`/generate-registration-options`, `/verify-registration`, `/generate-authentication-options`,
/// `/verify-authentication`), plus the bare ceremonies for apps that talk to another backend.
///
/// Every failure is a ``PasskeyError``:
/// - transport: ``PasskeyError/Code/network``, ``PasskeyError/Code/timeout``, ``PasskeyError/Code/cancelled``
///   (stage `network`), as the ``RelyingPartyTransport`` reports them;
/// - the server's `{"error", "message"}` answers: ``PasskeyError/Code/server`` with the server's own code in
///   ``PasskeyError/server`` (stage `options` when asking for options, `verification` when sending the response),
///   except `challenge_invalid`, which is ``PasskeyError/Code/invalidChallenge`` (still carrying the server problem):
///   the options expired or were used, ask for new ones;
/// - the authenticator's errors pass through unchanged, with their own code and stage (`authenticator`, `options`,
///   `storage`);
/// - a task cancelled between steps: ``PasskeyError/Code/cancelled`` at the stage it stopped before.
///
/// Only the high-level flows (``register(username:displayName:)``, ``authenticate(username:)``) emit
/// ``PasskeyClientEvent``s.
public actor PasskeyAuthClient {
    public nonisolated let authenticator: any Authenticator
    public nonisolated let transport: any RelyingPartyTransport
    private let onEvent: (@Sendable (PasskeyClientEvent) -> Void)?
    private var subscribers: [Int: AsyncStream<PasskeyClientEvent>.Continuation] = [:]
    private var nextSubscriber = 0

    /// - Parameters:
    ///   - transport: how to reach the server (``URLSessionRelyingPartyTransport`` for HTTP).
    ///   - onEvent: called synchronously for every event, on the client's executor; keep it short.
    public init(
        transport: any RelyingPartyTransport, authenticator: any Authenticator,
        onEvent: (@Sendable (PasskeyClientEvent) -> Void)? = nil
    ) {
        self.transport = transport
        self.authenticator = authenticator
        self.onEvent = onEvent
    }

    // MARK: Discovery

    public func capabilities() async -> AuthenticatorCapabilities { await authenticator.capabilities() }

    /// Whether passkey ceremonies can run here at all.
    public func isSupported() async -> Bool { await authenticator.capabilities().isSupported }

    /// Whether a user-verifying platform authenticator is available.
    public func isPlatformAuthenticatorAvailable() async -> Bool {
        await authenticator.capabilities().isPlatformAuthenticatorAvailable
    }

    // MARK: Events

    /// A stream of every later event. It ends when the consumer stops iterating (the subscription is then dropped).
    /// Keeps at most the 256 newest events a slow consumer has not read.
    public func events() -> AsyncStream<PasskeyClientEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: PasskeyClientEvent.self, bufferingPolicy: .bufferingNewest(256))
        let id = nextSubscriber
        nextSubscriber += 1
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return stream
    }

    private func unsubscribe(_ id: Int) { subscribers[id] = nil }

    func emit(_ event: PasskeyClientEvent) {
        onEvent?(event)
        for continuation in subscribers.values { continuation.yield(event) }
    }

    // MARK: High level: the passkey-server API

    /// Creates an account with a new passkey: options from the server, a credential from the authenticator, the
    /// response back to the server. `username` `nil` (or empty) creates an anonymous account.
    ///
    /// `prf` asks the new passkey for PRF (WebAuthn L3 §10.1.4): `.checkForSupport`, or `.evaluate` to get outputs at
    /// once where the authenticator can. What it gave is in the result's ``PasskeyCeremonyResult/prf``; the outputs are
    /// taken out of the response before it is sent, so the server never sees them.
    public func register(username: String?, displayName: String? = nil, prf: PRFRegistrationInput? = nil) async throws(PasskeyError)
        -> PasskeyRegistrationResult
    {
        let username = username.flatMap { $0.isEmpty ? nil : $0 }
        return try await reportingRegistration(username: username) { () throws(PasskeyError) in
            try await self.performRegistration(username: username, displayName: displayName, prf: prf)
        }
    }

    /// Adds a passkey to the account of a recovery or onboarding link (minted by the app's backend, an operator's
    /// `passkey-server users link` or the dashboard): options for that account, a credential from the authenticator,
    /// the response back, all with the link's token as `Authorization: Bearer`. `link` is the whole link
    /// (`https://…/#link=pal_…`) or its token. The link works once; a ceremony cancelled on the device does not use it up.
    /// A link that cannot be used is ``PasskeyError/Code/server`` with code `account_link_invalid`; one that replaces
    /// the account's passkeys says so in the result's `replacedPasskeys` answer member, and the device is told which
    /// passkeys the account now has.
    public func redeemAccountLink(_ link: String) async throws(PasskeyError) -> PasskeyRegistrationResult {
        try await reportingRegistration(username: nil) { () throws(PasskeyError) in
            guard let token = Self.accountLinkToken(link) else {
                throw PasskeyError(.invalidResponse, stage: .options, "not a recovery or onboarding link: expected …#link=pal_… or a pal_ token")
            }
            let authorization = "Bearer " + token
            let answer = try await exchange(RelyingPartyRequest(method: .post, path: "links/options", authorization: authorization), stage: .options)
            let (options, challengeKey, _) = try Self.creationOptions(answer)
            try checkCancellation(before: .authenticator)
            let credential = try await authenticator.makeCredential(RegistrationRequest(options: options))
            return try await completeRegistration(
                VerifyRegistrationRequest(cred: credential, challengeKey: challengeKey), rpID: options.rp.id, prf: nil, path: "links/verify",
                authorization: authorization, answer: AccountLinkVerifyAnswer.self, account: \.account
            ) { verified in
                // A link that replaced the account's passkeys: the device keeps only the new one of this account.
                guard verified.replacedPasskeys > 0, let id = Base64URL.decode(credential.rawId), let rpID = options.rp.id,
                    let userHandle = Base64URL.decode(options.user.id)
                else { return }
                await self.authenticator.signalAllAcceptedCredentials(rpID: rpID, userHandle: userHandle, credentialIDs: [id])
            }
        }
    }

    /// The token of a link: `pal_…` itself, or what follows `#link=` (or `?link=`) in a URL.
    static func accountLinkToken(_ link: String) -> String? {
        let text = link.trimmingCharacters(in: .whitespacesAndNewlines)
        let token: Substring
        if let marker = text.range(of: "link=") {
            token = text[marker.upperBound...].prefix { $0 != "&" && $0 != "#" }
        } else {
            token = Substring(text)
        }
        guard token.hasPrefix("pal_"), token.count > 4, token.count <= 200,
            token.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" })
        else { return nil }
        return String(token)
    }

    /// Runs a registration flow between its started and its succeeded or failed event.
    private func reportingRegistration(
        username: String?, _ flow: () async throws(PasskeyError) -> PasskeyRegistrationResult
    ) async throws(PasskeyError) -> PasskeyRegistrationResult {
        emit(.registrationStarted(username: username))
        do {
            let result = try await flow()
            emit(.registrationSucceeded(userId: result.userId, credentialId: result.credentialId, isAnonymous: result.isAnonymous))
            return result
        } catch {
            emit(.registrationFailed(PasskeyClientFailure(error)))
            throw error
        }
    }

    /// Creates an account in the system's sign-up sheet (Apple's account creation, iOS 26): the sheet creates the
    /// passkey and lets the person pick an email address or phone number (of `acceptedContacts`) and, with
    /// `requestName`, give their name; the server names the new account by the contact. The result's `username` is the
    /// contact as the server stored it.
    ///
    /// Check ``AuthenticatorCapabilities/supportsAccountCreation`` first and offer ``register(username:displayName:prf:)``
    /// otherwise: without the sheet this throws ``PasskeyError/Code/notSupported`` before anything is created. A
    /// contact another account has is refused by the server (`username_taken`), and the device is told to forget the
    /// passkey it made.
    public func createAccount(acceptedContacts: [ContactKind] = [.email, .phone], requestName: Bool = true) async throws(PasskeyError)
        -> PasskeyRegistrationResult
    {
        try await reportingRegistration(username: nil) { () throws(PasskeyError) in
            try await self.performAccountCreation(acceptedContacts: acceptedContacts, requestName: requestName)
        }
    }

    /// Signs in. With a username the server lists that account's passkeys; without one (`nil`), any passkey for the
    /// relying party on the authenticator may answer (discoverable, usernameless sign-in).
    ///
    /// `mediation` `.conditional` runs the ceremony as AutoFill (usernameless; it waits until the person picks a
    /// passkey in the username field's suggestions, so cancel its task when the screen goes away). A request still
    /// waiting shortly before its options expire (5 s before the server's `timeout`) is cancelled and made again with
    /// new options, out of sight, so a passkey picked minutes later still signs in (see `AutoFillRenewal`); start it
    /// again after ``PasskeyError/Code/invalidChallenge`` too (options that expired anyway). `.immediate` fails with
    /// ``PasskeyError/Code/noCredentials`` at once when the device has no passkey for the server.
    ///
    /// `prf` evaluates the passkey's PRF with these inputs (WebAuthn L3 §10.1.4; the same inputs give the same outputs
    /// for the same passkey): the outputs are in the result's ``PasskeyCeremonyResult/prf``, taken out of the response
    /// before it is sent, so the server never sees them.
    public func authenticate(username: String? = nil, mediation: AssertionMediation = .modal, prf: PRFValues? = nil) async throws(PasskeyError)
        -> PasskeyAuthenticationResult
    {
        let username = username.flatMap { $0.isEmpty ? nil : $0 }
        emit(.authenticationStarted(username: username))
        do {
            let result = try await performAuthentication(username: username, mediation: mediation, prf: prf)
            emit(.authenticationSucceeded(userId: result.userId, credentialId: result.credentialId, isAnonymous: result.isAnonymous))
            return result
        } catch {
            emit(.authenticationFailed(PasskeyClientFailure(error)))
            throw error
        }
    }

    private func performRegistration(username: String?, displayName: String?, prf: PRFRegistrationInput?) async throws(PasskeyError)
        -> PasskeyRegistrationResult
    {
        var query: [RelyingPartyRequest.QueryItem] = []
        if let username { query.append(.init(name: "username", value: username)) }
        if let displayName, !displayName.isEmpty { query.append(.init(name: "displayName", value: displayName)) }
        let answer = try await exchange(RelyingPartyRequest(method: .get, path: "generate-registration-options", query: query), stage: .options)
        var (options, challengeKey, _) = try Self.creationOptions(answer)
        if let prf {
            let values: PRFValues? = if case .evaluate(let values) = prf { values } else { nil }
            var extensions = options.extensions ?? [:]
            extensions["prf"] = PRFOutputs.input(values)
            options.extensions = extensions
        }
        try checkCancellation(before: .authenticator)
        var credential = try await authenticator.makeCredential(RegistrationRequest(options: options))
        // Only outputs the app asked for are the app's to keep from the server.
        var prfOutputs: PRFOutputs?
        if prf != nil { (prfOutputs, credential.clientExtensionResults) = PRFOutputs.take(from: credential.clientExtensionResults) }

        return try await completeRegistration(
            VerifyRegistrationRequest(cred: credential, challengeKey: challengeKey, username: username), rpID: options.rp.id, prf: prfOutputs)
    }

    private func performAccountCreation(acceptedContacts: [ContactKind], requestName: Bool) async throws(PasskeyError)
        -> PasskeyRegistrationResult
    {
        guard !acceptedContacts.isEmpty else {
            throw PasskeyError(.invalidOptions, stage: .options, "acceptedContacts is empty: name at least one kind of contact the sheet may offer")
        }
        // Asked before the server, so a device without the sheet leaves no pending ceremony behind.
        guard await authenticator.capabilities().supportsAccountCreation else {
            throw PasskeyError(
                .notSupported, stage: .authenticator, "this device has no sign-up sheet that creates an account (iOS, macOS or visionOS 26)")
        }
        let query = [RelyingPartyRequest.QueryItem(name: "contact", value: acceptedContacts.map(\.rawValue).joined(separator: ","))]
        let answer = try await exchange(RelyingPartyRequest(method: .get, path: "generate-registration-options", query: query), stage: .options)
        let (options, challengeKey, accepted) = try Self.creationOptions(answer)
        // A server that does not know `contact` makes options for an anonymous account, which the contact cannot name.
        guard let accepted, !accepted.isEmpty else {
            throw PasskeyError(
                .notSupported, stage: .options, "the server's registration options have no acceptedContacts: it does not support account creation")
        }
        try checkCancellation(before: .authenticator)
        let created = try await authenticator.createAccount(
            AccountCreationRequest(options: options, acceptedContacts: accepted, requestsName: requestName))
        let name = created.name.flatMap { $0.isEmpty ? nil : $0 }
        return try await completeRegistration(
            VerifyRegistrationRequest(cred: created.registration, challengeKey: challengeKey, username: created.contact.value, displayName: name),
            rpID: options.rp.id, prf: nil)
    }

    /// Registration options as the server answered them (``PasskeyAPI/RegistrationOptionsAnswer``).
    static func creationOptions(_ answer: JSONObject) throws(PasskeyError)
        -> (options: PublicKeyCredentialCreationOptionsJSON, challengeKey: String?, acceptedContacts: [ContactKind]?)
    {
        do {
            let decoded = try RegistrationOptionsAnswer(json: .object(answer))
            return (decoded.options, decoded.challengeKey, decoded.acceptedContacts)
        } catch {
            throw PasskeyError(.invalidOptions, stage: .options, "the server's creation options are unusable: \(error.description)")
        }
    }

    /// Sign-in options as the server answered them (``PasskeyAPI/AuthenticationOptionsAnswer``).
    static func requestOptions(_ answer: JSONObject) throws(PasskeyError)
        -> (options: PublicKeyCredentialRequestOptionsJSON, challengeKey: String?)
    {
        do {
            let decoded = try AuthenticationOptionsAnswer(json: .object(answer))
            return (decoded.options, decoded.challengeKey)
        } catch {
            throw PasskeyError(.invalidOptions, stage: .options, "the server's request options are unusable: \(error.description)")
        }
    }

    /// Sends a registration to `POST /verify-registration` and makes the result of its ``PasskeyAPI/VerifyRegistrationAnswer``.
    private func completeRegistration(_ body: VerifyRegistrationRequest, rpID: String?, prf: PRFOutputs?) async throws(PasskeyError)
        -> PasskeyRegistrationResult
    {
        try await completeRegistration(body, rpID: rpID, prf: prf, answer: VerifyRegistrationAnswer.self, account: \.account) { _ in }
    }

    /// Sends a registration to `path` (with `authorization`); a passkey the server refused is forgotten by the device
    /// (``RefusedRegistration``). The answer is read once, as `Answer`: `verified` sees it before the result is made of
    /// its `account`.
    private func completeRegistration<Answer: JSONRepresentable>(
        _ body: VerifyRegistrationRequest, rpID: String?, prf: PRFOutputs?, path: String = "verify-registration", authorization: String? = nil,
        answer type: Answer.Type, account: (Answer) -> VerifiedAccountFields, verified inspect: (Answer) async -> Void
    ) async throws(PasskeyError) -> PasskeyRegistrationResult {
        let credential = body.cred
        let verified: JSONObject
        let request = RelyingPartyRequest(method: .post, path: path, body: body.json.serializedBytes, authorization: authorization)
        do {
            // The passkey exists from here on: its verification is sent even when the caller's task was cancelled.
            verified = try await shieldedFromCancellation { () throws(PasskeyError) in try await self.exchange(request, stage: .verification) }
        } catch {
            await RefusedRegistration.forget(credential, rpID: rpID, after: error, authenticator: authenticator)
            throw error
        }
        let answer = try VerifiedFields.decoded(type, verified, account: account)
        let fields = VerifiedFields(account(answer), counterRegressed: false, expectedCredentialId: credential.id)
        await inspect(answer)
        return PasskeyRegistrationResult(
            verified: fields.verified, username: fields.username, userId: fields.userId, credentialId: fields.credentialId,
            isAnonymous: fields.isAnonymous, response: credential, signedPasskeyData: fields.signedPasskeyData, prf: prf)
    }

    private func performAuthentication(username: String?, mediation: AssertionMediation, prf: PRFValues?) async throws(PasskeyError)
        -> PasskeyAuthenticationResult
    {
        var query: [RelyingPartyRequest.QueryItem] = []
        if let username { query.append(.init(name: "username", value: username)) }
        let extensions: JSONObject = prf.map { ["prf": PRFOutputs.input($0)] } ?? [:]
        let signed = try await AutoFillRenewal.sign(mediation: mediation, extensions: extensions, authenticator: authenticator) {
            () throws(PasskeyError) in
            try await self.exchange(RelyingPartyRequest(method: .get, path: "generate-authentication-options", query: query), stage: .options)
        }
        return try await completeAuthentication(signed, prf: prf)
    }

    /// Sends a signed sign-in to `POST /verify-authentication` and makes the result of the server's answer; a passkey the
    /// server does not hold is forgotten by the device, and a verified sign-in's account details are signalled to it.
    func completeAuthentication(_ signed: SignedRequest, prf: PRFValues?) async throws(PasskeyError) -> PasskeyAuthenticationResult {
        let options = signed.options
        var assertion = signed.assertion
        var prfOutputs: PRFOutputs?
        if prf != nil { (prfOutputs, assertion.clientExtensionResults) = PRFOutputs.take(from: assertion.clientExtensionResults) }
        try checkCancellation(before: .verification)

        let body = VerifyAuthenticationRequest(cred: assertion, challengeKey: signed.challengeKey)
        let verified: JSONObject
        do {
            verified = try await exchange(
                RelyingPartyRequest(method: .post, path: "verify-authentication", body: body.json.serializedBytes), stage: .verification)
        } catch {
            // The server holds no such passkey: the device forgets it, or every usernameless sign-in would offer it again.
            await SignalledAccount.signalUnknown(after: error, options: options, assertion: assertion, to: authenticator)
            throw error
        }
        let answer = try VerifiedFields.signIn(verified)
        let fields = VerifiedFields(answer.account, counterRegressed: answer.counterRegressed, expectedCredentialId: assertion.id)
        await SignalledAccount.signalSignedIn(answer, options: options, assertion: assertion, to: authenticator)
        return PasskeyAuthenticationResult(
            verified: fields.verified, username: fields.username, userId: fields.userId, credentialId: fields.credentialId,
            isAnonymous: fields.isAnonymous, response: assertion, signedPasskeyData: fields.signedPasskeyData, prf: prfOutputs,
            counterRegressed: fields.counterRegressed)
    }

    // MARK: Low level: the ceremonies alone, for any backend

    /// Runs a registration ceremony on the authenticator with options from any backend and returns the credential
    /// JSON to send back to it (WebAuthn L3 `RegistrationResponseJSON`). Nothing is sent anywhere.
    ///
    /// `user` is the user entity exactly as the backend made it (its `id` is the user handle, never personal data), and
    /// the passkey carries it as it is: the backend checks the user handle at every sign-in, and may have normalised the
    /// name or made the display name itself (passkey-server's `/api/start-registration` without a `displayName` uses
    /// the username), so `username` and `displayName` are not compared with it. Without `user`, one is made from
    /// `username` and `displayName` with a random 32-byte user handle: only for a backend that accepts any handle.
    public func register(
        username: String, displayName: String, challenge: String, rp: PublicKeyCredentialRpEntity,
        user: PublicKeyCredentialUserEntityJSON? = nil,
        pubKeyCredParams: [PublicKeyCredentialParameters] = [.init(alg: .es256), .init(alg: .rs256)], timeout: Int? = nil,
        attestation: AttestationConveyancePreference? = nil, authenticatorSelection: AuthenticatorSelectionCriteria? = nil,
        excludeCredentials: [PublicKeyCredentialDescriptorJSON]? = nil, style: RegistrationStyle = .modal
    ) async throws(PasskeyError) -> RegistrationResponseJSON {
        let entity: PublicKeyCredentialUserEntityJSON
        if let user {
            // WebAuthn L3 §5.4.3: the user handle is 1 to 64 bytes.
            guard let handle = Base64URL.decode(user.id), (1...64).contains(handle.count) else {
                throw PasskeyError(.invalidOptions, stage: .options, "user.id must be base64url of 1 to 64 bytes (the user handle the server made)")
            }
            entity = user
        } else {
            var generator = SystemRandomNumberGenerator()
            let handle = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            entity = PublicKeyCredentialUserEntityJSON(id: Base64URL.encode(handle), name: username, displayName: displayName)
        }
        let options = PublicKeyCredentialCreationOptionsJSON(
            rp: rp, user: entity, challenge: challenge, pubKeyCredParams: pubKeyCredParams, timeout: timeout,
            excludeCredentials: excludeCredentials, authenticatorSelection: authenticatorSelection, attestation: attestation)
        return try await authenticator.makeCredential(RegistrationRequest(options: options, style: style))
    }

    /// Runs a sign-in ceremony on the authenticator with options from any backend and returns the credential JSON to
    /// send back to it (WebAuthn L3 `AuthenticationResponseJSON`). `username` is informational only: which account
    /// signs in is decided by `allowCredentials` (empty or `nil`: any discoverable credential for `rpId`).
    public func authenticate(
        username: String? = nil, challenge: String, rpId: String?, allowCredentials: [PublicKeyCredentialDescriptorJSON]? = nil,
        timeout: Int? = nil, userVerification: UserVerificationRequirement? = nil, mediation: AssertionMediation = .modal
    ) async throws(PasskeyError) -> AuthenticationResponseJSON {
        let options = PublicKeyCredentialRequestOptionsJSON(
            challenge: challenge, timeout: timeout, rpId: rpId, allowCredentials: allowCredentials, userVerification: userVerification)
        return try await authenticator.getAssertion(AssertionRequest(options: options, mediation: mediation))
    }

    // MARK: HTTP

    func checkCancellation(before stage: PasskeyError.Stage) throws(PasskeyError) {
        if Task.isCancelled { throw .cancelled(stage: stage, "the task was cancelled before the \(stage.rawValue) step") }
    }

    /// Sends a request and returns the JSON object of a 2xx answer, or throws the mapped server error.
    func exchange(_ request: RelyingPartyRequest, stage: PasskeyError.Stage) async throws(PasskeyError) -> JSONObject {
        try checkCancellation(before: stage)
        let response = try await transport.send(request)
        return try Self.interpret(response, path: request.path, stage: stage)
    }
}
