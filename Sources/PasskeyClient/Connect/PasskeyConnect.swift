import PasskeyAPI
public import Foundation
import PasskeyWire

/// Passkeys next to an app's existing login ("connect"): the app's backend keeps its accounts and sessions, mints
/// connect tokens for the signed-in user, and trusts a passkey sign-in through the `signedPasskeyData` it verifies.
///
/// The flows mirror the steps of the screens:
/// - after the old login: ``isAppendAllowed(connectTokenProvider:)`` then ``completeAppend()`` (or ``declineAppend()``);
/// - on the login screen: ``isLoginAllowed()`` then ``loginWithOneTap()``, ``loginWithIdentifier(_:)`` or
///   ``loginWithoutIdentifier(conditionalUI:)``;
/// - in settings: ``isManageAppendAllowed(connectTokenProvider:)``, ``completePasskeyListAppend(connectTokenProvider:)``,
///   ``renamePasskey(id:name:connectTokenProvider:)``, ``deletePasskey(id:connectTokenProvider:)``.
///
/// Flows never throw: they return what the screen should do next. The last account used (for one-tap), the last
/// declined prompt and the count of failed sign-ins live in a ``ConnectStateStore`` (Keychain on Apple platforms, a
/// 0600 file on Linux); ``signOut()`` forgets the account.
public actor PasskeyConnect {
    public nonisolated let transport: any RelyingPartyTransport
    public nonisolated let authenticator: any Authenticator
    public nonisolated let device: DeviceReport
    let store: any ConnectStateStore
    private let now: @Sendable () -> Date

    /// How long failed passkey sign-ins are remembered on the device (24 hours): the login decision counts only those
    /// within it, so after a day the device offers passkeys again.
    public static let failureMemory: TimeInterval = 24 * 3600

    /// An append token the last decision was made with (decisions do not use it up), and whether to append without a sheet.
    var pendingAppend: (token: String, autoAppend: Bool)?
    /// Sign-outs so far: a decision that was waiting for the token provider or the server while the person signed out
    /// must not keep the previous account's append token.
    private var signOuts = 0
    /// AutoFill options handed out with a `text-field` decision, used by the next usernameless sign-in.
    private var pendingConditionalOptions: AuthenticationOptionsAnswer?
    /// When ``pendingConditionalOptions`` arrived: their lifetime runs from then, not from when AutoFill starts.
    private var pendingConditionalOptionsReceived = ContinuousClock.now

    public init(
        transport: any RelyingPartyTransport, authenticator: any Authenticator, stateStore: any ConnectStateStore = MemoryConnectStateStore(),
        device: DeviceReport = .current, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.transport = transport
        self.authenticator = authenticator
        self.store = stateStore
        self.device = device
        self.now = now
    }

    /// What the decision endpoints are told about this device.
    func clientReport() async -> ClientReportJSON {
        let capabilities = await authenticator.capabilities()
        return ClientReportJSON(
            platform: device.platform, osVersion: device.osVersion,
            platformAuthenticator: capabilities.isSupported && capabilities.isPlatformAuthenticatorAvailable,
            conditionalMediation: capabilities.isSupported && capabilities.supportsConditionalMediation,
            conditionalCreate: capabilities.isSupported && capabilities.supportsConditionalCreate)
    }

    /// When the person last declined a passkey, as the decisions take it.
    static func declined(_ state: ConnectState) -> String? {
        state.lastDeclinedAt.map { ISO8601DateFormatter().string(from: $0) }
    }

    /// The state as stored (for settings screens and tests).
    public func state() async -> ConnectState { await store.load() }

    // MARK: Append

    /// Asks the server whether to offer a passkey to the signed-in user on this device.
    public func isAppendAllowed(connectTokenProvider: ConnectTokenProvider) async -> AppendStep {
        pendingAppend = nil
        let signOutsBefore = signOuts
        let token: String
        do { token = try await connectTokenProvider(.passkeyAppend) } catch { return .skip(reason: "connect_token_unavailable") }
        let body = AppendDecisionRequest(client: await clientReport(), lastDeclinedAt: Self.declined(await store.load()))
        do {
            let answer = try await call(
                .post, "connect/append/decision", body: body.json, token: token, stage: .options, as: AppendDecisionAnswer.self)
            // A list token decides too: the provider gave another kind than asked, which the append would refuse.
            if let type = answer.tokenType, type != ConnectTokenKind.passkeyAppend.rawValue {
                return .skip(reason: ErrorCode.connectTokenWrongType.rawValue)
            }
            let step = answer.decision.step
            guard step == "ask" || step == "auto" else { return .skip(reason: answer.decision.reason) }
            guard signOuts == signOutsBefore else { return .skip(reason: "signed_out") }
            pendingAppend = (token, step == "auto")
            return .askUserForAppend(autoAppend: step == "auto")
        } catch {
            return .skip(reason: error.server?.code.rawValue ?? error.code.rawValue)
        }
    }

    /// Adds a passkey with the token of the last ``isAppendAllowed(connectTokenProvider:)``.
    public func completeAppend() async -> AppendStatus {
        guard let pending = pendingAppend else {
            return .error(PasskeyError(.invalidOptions, stage: .options, "call isAppendAllowed(connectTokenProvider:) first"))
        }
        pendingAppend = nil
        return await append(token: pending.token, style: pending.autoAppend ? .conditional : .modal, replacing: nil)
    }

    /// Remembers that the person said no, so the server does not ask again for a while.
    public func declineAppend() async {
        pendingAppend = nil
        let now = now()
        await store.update { $0.lastDeclinedAt = now }
    }

    /// Adds a passkey with a passkey-append token the app already holds (low level: no decision). With `replacing`, the
    /// named passkey of the account is removed once the new one verifies (reset).
    public func append(connectToken: String, replacing: String? = nil, style: RegistrationStyle = .modal) async -> AppendStatus {
        await append(token: connectToken, style: style, replacing: replacing)
    }

    /// Runs one append with a token: options, the authenticator, verification.
    func append(token: String, style: RegistrationStyle, replacing: String?) async -> AppendStatus {
        do throws(PasskeyError) {
            let verified = try await asked(.passkeyAppend) { () throws(PasskeyError) in
                try await self.appendVerified(token: token, style: style, replacing: replacing, client: nil)
            }
            return .completed(verified.passkey)
        } catch {
            switch error.code {
            case .cancelled: return .cancelled
            case .excludedCredentialExists: return .excludeCredentialsMatch
            default: return .error(error)
            }
        }
    }

    /// What an append's verification answered: the passkey added, and (when the app described the device) the list
    /// after the append with the append decision; a server before lists in this answer sends no list.
    struct AppendVerified {
        var passkey: PasskeyInfo
        var list: PasskeyListAnswer?
    }

    /// One append with a token (options, the authenticator, verification). With `client`, the answer also carries the
    /// list after the append and the append decision.
    func appendVerified(token: String, style: RegistrationStyle, replacing: String?, client: ClientReportJSON?) async throws(PasskeyError)
        -> AppendVerified
    {
        let body = AppendOptionsRequest(replaces: replacing, mediation: style == .conditional ? "conditional" : nil)
        let answer = try await call(.post, "connect/append/options", body: body.json, token: token, stage: .options)
        let (options, challengeKey, _) = try PasskeyAuthClient.creationOptions(answer)
        // Checked before the authenticator makes a passkey the server could not take.
        guard let challengeKey else { throw PasskeyError(.invalidOptions, stage: .options, "the append options have no challengeKey") }
        let credential = try await authenticator.makeCredential(RegistrationRequest(options: options, style: style))
        let verify = AppendVerifyRequest(
            challengeKey: challengeKey, cred: credential, client: client, lastDeclinedAt: client == nil ? nil : Self.declined(await store.load()))
        let verified: JSONObject
        do {
            // The passkey exists from here on: its verification is sent even when the caller's task was cancelled.
            verified = try await shieldedFromCancellation { () throws(PasskeyError) in
                try await self.call(.post, "connect/append/verify", body: verify.json, token: nil, stage: .verification)
            }
        } catch {
            await RefusedRegistration.forget(credential, rpID: options.rp.id, after: error, authenticator: authenticator)
            throw error
        }
        let reader = try? JSONObjectReader(.object(verified))
        guard let entry = try? reader?.required("passkey", as: PasskeyEntry.self) else {
            throw PasskeyError(.invalidResponse, stage: .verification, "the append answer has no passkey")
        }
        let passkey = PasskeyInfo(entry)
        let username = try? reader?.optionalString("username")
        await store.update { state in
            state.lastIdentifier = username ?? state.lastIdentifier
            state.lastCredentialID = passkey.id
            state.lastDeclinedAt = nil
            // A new passkey starts with a clean record on this device.
            state.recentFailures = 0
            state.lastFailureAt = nil
        }
        return AppendVerified(passkey: passkey, list: verified["passkeys"] == nil ? nil : try Self.list(verified))
    }

    // MARK: Login

    /// Decides the login screen: one-tap for the last account used here, an identifier field (with AutoFill when the
    /// device has it), or the app's old login.
    public func isLoginAllowed() async -> LoginStep {
        pendingConditionalOptions = nil
        let state = await store.load()
        let failures = state.recentFailures(at: now(), memory: Self.failureMemory)
        let body = LoginDecisionRequest(client: await clientReport(), identifier: state.lastIdentifier, recentFailures: failures)
        do {
            let answer = try await call(.post, "connect/login/decision", body: body.json, token: nil, stage: .options, as: LoginDecisionAnswer.self)
            switch answer.decision.step {
            case "one-tap":
                if let identifier = answer.identifier { return .initOneTap(identifier: identifier) }
                return .initTextField(challenge: nil)
            case "text-field":
                pendingConditionalOptions = answer.options
                pendingConditionalOptionsReceived = .now
                return .initTextField(challenge: answer.options?.options.challenge)
            default:
                return .initFallback(reason: answer.decision.reason, identifier: state.lastIdentifier)
            }
        } catch {
            // Without the passkey server there is no passkey sign-in: the old login still works.
            return .initFallback(reason: error.server?.code.rawValue ?? error.code.rawValue, identifier: state.lastIdentifier)
        }
    }

    /// Signs in the account named by `identifier` (its passkeys in allowCredentials).
    public func loginWithIdentifier(_ identifier: String) async -> LoginStatus {
        let trimmed = identifier.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            return .error(PasskeyError(.invalidOptions, stage: .options, "the identifier is empty"), triggerFallback: false, identifier: nil)
        }
        return await login(query: [.init(name: "username", value: trimmed)], options: nil, mediation: .modal, identifier: trimmed)
    }

    /// Signs in the last account used on this device, with passkeys available right away (no QR code or other device).
    public func loginWithOneTap() async -> LoginStatus {
        guard let identifier = await store.load().lastIdentifier else { return .initSilentFallback(identifier: nil) }
        return await login(query: [.init(name: "username", value: identifier)], options: nil, mediation: .immediate, identifier: identifier)
    }

    /// Signs in with any passkey of this relying party; `conditionalUI` offers them in the identifier field's AutoFill
    /// and waits for a choice.
    public func loginWithoutIdentifier(conditionalUI: Bool) async -> LoginStatus {
        let options = conditionalUI ? pendingConditionalOptions : nil
        pendingConditionalOptions = nil
        return await login(
            query: [], options: options, optionsAge: .now - pendingConditionalOptionsReceived, mediation: conditionalUI ? .conditional : .modal)
    }

    /// Forgets the one-tap account (sign-out on a shared device, "not you?").
    public func signOut() async {
        // The last decision's append token and AutoFill options belong to the account signing out: the next person on
        // the device must not add a passkey to that account with them.
        pendingAppend = nil
        pendingConditionalOptions = nil
        signOuts += 1
        await store.update { state in
            state.lastIdentifier = nil
            state.lastCredentialID = nil
        }
    }

    /// `optionsAge`: how long ago the `provided` options were issued. `identifier`: the name the sign-in is for, which
    /// fallbacks carry so the old login can be filled in.
    func login(
        query: [RelyingPartyRequest.QueryItem], options provided: AuthenticationOptionsAnswer?, optionsAge: Duration = .zero, mediation: AssertionMediation,
        identifier: String? = nil
    ) async -> LoginStatus {
        /// The credential the authenticator signed with, once it has.
        var offered: String?
        do throws(PasskeyError) {
            let signed = try await AutoFillRenewal.sign(
                first: provided, firstAge: optionsAge, mediation: mediation, authenticator: authenticator
            ) { () throws(PasskeyError) in
                try await self.call(.get, "generate-authentication-options", query: query, token: nil, stage: .options)
            }
            let (options, assertion) = (signed.options, signed.assertion)
            offered = assertion.id
            let body = VerifyAuthenticationRequest(cred: assertion, challengeKey: signed.challengeKey)
            let verified: JSONObject
            do {
                verified = try await call(.post, "verify-authentication", body: body.json, token: nil, stage: .verification)
            } catch {
                // The server holds no such passkey: the device forgets it (WebAuthn L3 §5.1.10), so AutoFill and
                // usernameless sign-in stop offering it.
                await SignalledAccount.signalUnknown(after: error, options: options, assertion: assertion, to: authenticator)
                throw error
            }
            let answer = try VerifiedFields.signIn(verified)
            let fields = VerifiedFields(answer.account, counterRegressed: answer.counterRegressed, expectedCredentialId: assertion.id)
            guard let signed = fields.signedPasskeyData else {
                throw PasskeyError(.invalidResponse, stage: .verification, "the server's answer has no signedPasskeyData")
            }
            await SignalledAccount.signalSignedIn(answer, options: options, assertion: assertion, to: authenticator)
            await store.update { state in
                state.recentFailures = 0
                state.lastFailureAt = nil
                state.lastIdentifier = fields.username ?? state.lastIdentifier
                state.lastCredentialID = fields.credentialId
            }
            return .done(signedPasskeyData: signed, username: fields.username)
        } catch {
            return await loginFailure(error, mediation: mediation, offered: offered, identifier: identifier)
        }
    }

    /// Maps a failed sign-in to what the screen does next (docs/connect.md has the table). `offered` is the credential
    /// the authenticator signed with, when it got that far.
    func loginFailure(_ error: PasskeyError, mediation: AssertionMediation, offered: String? = nil, identifier: String? = nil) async -> LoginStatus {
        switch error.code {
        case .cancelled: return mediation == .conditional ? .ignore : .initRetry
        case .noCredentials: return .initSilentFallback(identifier: identifier)
        case .invalidChallenge, .timeout: return .initRetry
        case .network: return .error(error, triggerFallback: false, identifier: identifier)
        default: break
        }
        if let code = error.server?.code, code == .passkeyDeletedOnServer || code == .credentialUnknown {
            // The device offered a passkey the server no longer has. One-tap must not offer it again: forget the one-tap
            // account when that passkey was its own (or one-tap itself failed), not for some other account's passkey
            // picked in AutoFill.
            await store.update { state in
                if mediation == .immediate || offered == nil || offered == state.lastCredentialID {
                    state.lastIdentifier = nil
                    state.lastCredentialID = nil
                }
            }
            return .error(error, triggerFallback: true, identifier: identifier)
        }
        if Self.countsAsPasskeyFailure(error) {
            let now = now()
            await store.update { state in
                state.recentFailures = state.recentFailures(at: now, memory: Self.failureMemory) + 1
                state.lastFailureAt = now
            }
        }
        let configuration: Set<PasskeyError.Code> = [.notSupported, .domainNotAssociated]
        return .error(error, triggerFallback: configuration.contains(error.code), identifier: identifier)
    }

    /// Whether a failed sign-in says something about passkeys on this device (the server refused the assertion, the
    /// authenticator failed, passkeys are not set up for the app): those are counted towards the fallback. A disabled
    /// account is not counted either. A server
    /// that is overloaded or down (429, 5xx), options that could not be fetched, a ceremony already running or an app
    /// mistake (no presentation anchor) say nothing about the passkey and are not counted: three of them during a
    /// deploy would otherwise switch passkey sign-in off on the device.
    static func countsAsPasskeyFailure(_ error: PasskeyError) -> Bool {
        if let status = error.server?.httpStatus, status == 429 || status >= 500 { return false }
        if error.stage == .options || error.stage == .network { return false }
        // A disabled account is the service's decision about the account, not a failing passkey: counting it would
        // keep passkey sign-in off on the device for a day after the account is enabled again.
        return error.code != .ceremonyInProgress && error.code != .internalError && error.code != .accountDisabled
    }

    // MARK: Plumbing

    static func token(_ provider: ConnectTokenProvider, _ kind: ConnectTokenKind) async throws(PasskeyError) -> String {
        do { return try await provider(kind) } catch { throw tokenError(error) }
    }

    static func tokenError(_ error: any Error) -> PasskeyError {
        PasskeyError(.connectTokenUnavailable, stage: .options, "the app's backend gave no connect token: \(error)", recovery: .retry)
    }

    /// Runs calls made with a token the provider gave for `kind`: the server's `connect_token_wrong_type` becomes
    /// ``PasskeyError/Code/connectTokenWrongType``, saying which kind was asked (the provider returned another).
    func asked<T>(_ kind: ConnectTokenKind, _ body: () async throws(PasskeyError) -> T) async throws(PasskeyError) -> T {
        do { return try await body() } catch where error.server?.code == .connectTokenWrongType {
            throw Self.wrongKind(error, asked: kind)
        }
    }

    static func wrongKind(_ error: PasskeyError, asked kind: ConnectTokenKind) -> PasskeyError {
        PasskeyError(
            .connectTokenWrongType, stage: error.stage,
            "the connect token provider was asked for a \(kind.rawValue) token and returned another kind (the server: \(error.server?.message ?? error.reason))",
            recovery: .checkConfiguration, server: error.server)
    }

    /// Credential IDs are base64url: safe in a path as they are; anything else is refused by the server.
    static func pathSegment(_ id: String) -> String {
        RelyingPartyRequest.percentEncode(id)
    }

    func call(
        _ method: RelyingPartyRequest.Method, _ path: String, query: [RelyingPartyRequest.QueryItem] = [], body: JSONValue? = nil,
        token: String?, stage: PasskeyError.Stage
    ) async throws(PasskeyError) -> JSONObject {
        if Task.isCancelled { throw .cancelled(stage: stage, "the task was cancelled before the \(stage.rawValue) step") }
        let request = RelyingPartyRequest(
            method: method, path: path, query: query, body: body?.serializedBytes, authorization: token.map { "Bearer \($0)" })
        let response = try await transport.send(request)
        return try PasskeyAuthClient.interpret(response, path: path, stage: stage)
    }

    /// ``call(_:_:query:body:token:stage:)`` with the answer read as its type; an answer of another shape is
    /// ``PasskeyError/Code/invalidResponse``.
    func call<Answer: JSONRepresentable>(
        _ method: RelyingPartyRequest.Method, _ path: String, query: [RelyingPartyRequest.QueryItem] = [], body: JSONValue? = nil,
        token: String?, stage: PasskeyError.Stage, as type: Answer.Type
    ) async throws(PasskeyError) -> Answer {
        let answer = try await call(method, path, query: query, body: body, token: token, stage: stage)
        do { return try Answer(json: .object(answer)) } catch {
            throw PasskeyError(.invalidResponse, stage: stage, "\(path) answered in another shape: \(error)")
        }
    }
}

extension PasskeyInfo {
    /// A passkey of a list answer, its times read as dates.
    init(_ entry: PasskeyEntry) {
        let formatter = ISO8601DateFormatter()
        self.init(
            id: entry.id, name: entry.name, provider: entry.provider, createdAt: formatter.date(from: entry.createdAt),
            lastUsedAt: entry.lastUsedAt.flatMap(formatter.date(from:)), isSynced: entry.synced, isDeviceBound: entry.deviceBound,
            transports: entry.transports)
    }
}
