import Foundation
import PasskeyAPI
import PasskeyClient
import PasskeyRelyingParty
import PasskeyServer
import PasskeySoftwareAuthenticator
import PasskeyStorage
import PasskeyWire
import Testing
import PasskeyTestSupport

/// An authenticator that reports AutoFill support (the software authenticator has no text field), or cancels; with
/// `conditionalCreate`, it also reports conditional create (iOS 18).
struct AutoFillCapable: Authenticator {
    let inner: any Authenticator
    var cancelAssertions = false
    var conditionalCreate = false
    func makeCredential(_ request: RegistrationRequest) async throws(PasskeyError) -> RegistrationResponseJSON {
        try await inner.makeCredential(request)
    }
    func getAssertion(_ request: AssertionRequest) async throws(PasskeyError) -> AuthenticationResponseJSON {
        if cancelAssertions { throw .cancelled("the person closed the AutoFill suggestions") }
        return try await inner.getAssertion(request)
    }
    func capabilities() async -> AuthenticatorCapabilities {
        AuthenticatorCapabilities(
            isSupported: true, isPlatformAuthenticatorAvailable: true, supportsConditionalMediation: true,
            supportsConditionalCreate: conditionalCreate)
    }
}

/// Signs in with a broken signature, so the server refuses every assertion.
struct Tampering: Authenticator {
    let inner: any Authenticator
    func makeCredential(_ request: RegistrationRequest) async throws(PasskeyError) -> RegistrationResponseJSON {
        try await inner.makeCredential(request)
    }
    func getAssertion(_ request: AssertionRequest) async throws(PasskeyError) -> AuthenticationResponseJSON {
        var assertion = try await inner.getAssertion(request)
        var signature = Base64URL.decode(assertion.response.signature) ?? []
        if !signature.isEmpty { signature[signature.count - 1] ^= 0x01 }
        assertion.response.signature = Base64URL.encode(signature)
        return assertion
    }
}

/// The app's backend in these tests: mints connect tokens for its signed-in user with an API key, and verifies
/// signedPasskeyData, through the same routes a real backend calls.
struct AppBackend: Sendable {
    let transport: any RelyingPartyTransport
    let apiKey: String
    var userID = "app-user-1"
    var name = "ann@example.com"

    func call(_ path: String, _ body: JSONValue) async throws -> JSONObject {
        let response = try await transport.send(
            RelyingPartyRequest(method: .post, path: path, body: body.serializedBytes, authorization: "Bearer \(apiKey)"))
        let object = try #require(try JSONValue.parse(response.body).objectValue)
        if response.status != 200 { throw PasskeyError.server(code: ErrorCode(rawValue: object["error"]?.stringValue ?? "?"), message: "", httpStatus: response.status) }
        return object
    }

    var tokens: ConnectTokenProvider {
        { kind in
            try #require(try await call("connect/tokens", ["type": .string(kind.rawValue), "user": ["id": .string(userID), "name": .string(name)]])["token"]?.stringValue)
        }
    }

    func verify(_ signed: String) async throws -> JSONObject { try await call("connect/verify", ["signedPasskeyData": .string(signed)]) }
}

extension FlowServer {
    /// Runs `test` with an app backend holding a fresh API key.
    func runConnect<T: Sendable>(_ test: @Sendable (RouterTransport, AppBackend) async throws -> T) async throws -> T {
        let key = try await Administration.createAPIKey(name: "app", repository: repository).secret
        return try await run { transport in try await test(transport, AppBackend(transport: transport, apiKey: key)) }
    }
}

let iPhone = DeviceReport(platform: "iOS", osVersion: "17.4")

@Suite("PasskeyConnect flows against the real server routes")
struct ConnectFlowTests {
    @Test("append: ask, complete, then excludeCredentials on the same device; the backend verifies the signed data of a later sign-in")
    func appendAndLogin() async throws {
        let server = FlowServer()
        let authenticator = server.authenticator()
        let state = MemoryConnectStateStore()
        try await server.runConnect { transport, backend in
            let connect = PasskeyConnect(transport: transport, authenticator: authenticator, stateStore: state, device: iPhone)
            #expect(await connect.isAppendAllowed(connectTokenProvider: backend.tokens) == .askUserForAppend(autoAppend: false))
            guard case .completed(let passkey) = await connect.completeAppend() else {
                Issue.record("append did not complete")
                return
            }
            #expect(passkey.isDeviceBound && !passkey.isSynced)
            #expect(await connect.state().lastIdentifier == "ann@example.com")
            #expect(await connect.state().lastCredentialID == passkey.id)

            // A device-bound passkey elsewhere would not count, but this device already has one: excludeCredentials.
            #expect(await connect.isAppendAllowed(connectTokenProvider: backend.tokens) == .askUserForAppend(autoAppend: false))
            #expect(await connect.completeAppend() == .excludeCredentialsMatch)
            guard case .error(let reused) = await connect.completeAppend() else {
                Issue.record("a decision's token is used once")
                return
            }
            #expect(reused.code == .invalidOptions)

            #expect(await connect.isLoginAllowed() == .initOneTap(identifier: "ann@example.com"))
            guard case .done(let signed, let username) = await connect.loginWithOneTap() else {
                Issue.record("one-tap did not sign in")
                return
            }
            #expect(username == "ann@example.com")
            let verified = try await backend.verify(signed)
            #expect(verified["success"] == true)
            #expect(verified["externalUserId"] == "app-user-1")
            #expect(verified["credentialId"] == .string(passkey.id))
            await #expect(throws: PasskeyError.self) { _ = try await backend.verify(signed) }

            // The account's display name changes on the server: the next sign-in brings it to the device (WebAuthn signals).
            let passkeyID = try #require(Base64URL.decode(passkey.id))
            let account = try #require(try await server.repository.credential(id: passkeyID))
            _ = try await server.repository.updateNames(userID: account.userID, username: nil, displayName: "Ann Lee")
            guard case .done = await connect.loginWithIdentifier("ANN@example.com") else {
                Issue.record("identifier sign-in failed")
                return
            }
            #expect(try await authenticator.store.allCredentials().map(\.userDisplayName) == ["Ann Lee"])
            guard case .done = await connect.loginWithoutIdentifier(conditionalUI: false) else {
                Issue.record("usernameless sign-in failed")
                return
            }
            // An unknown identifier gets fake allowCredentials; no passkey here answers them: quietly fall back.
            #expect(await connect.loginWithIdentifier("nobody@example.com") == .initSilentFallback(identifier: "nobody@example.com"))
        }
    }

    @Test("append: a declined prompt is not repeated; a cancelled sheet is .cancelled; conditional create is auto")
    func declineAndCancel() async throws {
        let server = FlowServer { $0.connect.rollout.autoAppend = true }
        try await server.runConnect { transport, backend in
            // An iOS 18 device: the server answers auto, and the passkey is created with the conditional style.
            let software = server.authenticator()
            let automatic = PasskeyConnect(
                transport: transport, authenticator: AutoFillCapable(inner: software, conditionalCreate: true), device: iPhone)
            #expect(await automatic.isAppendAllowed(connectTokenProvider: backend.tokens) == .askUserForAppend(autoAppend: true))
            guard case .completed = await automatic.completeAppend() else {
                Issue.record("conditional create failed")
                return
            }

            let cancelling = ScriptedAuthenticator(registration: .cancelled)
            let connect = PasskeyConnect(transport: transport, authenticator: cancelling, device: iPhone, now: { server.clock.now })
            #expect(await connect.isAppendAllowed(connectTokenProvider: backend.tokens) == .askUserForAppend(autoAppend: false))
            #expect(await connect.completeAppend() == .cancelled)
            await connect.declineAppend()
            #expect(await connect.isAppendAllowed(connectTokenProvider: backend.tokens) == .skip(reason: "declined_recently"))
            #expect(await connect.state().lastDeclinedAt != nil)
        }
    }

    @Test("append: rollout at 0% skips, at 50% each user stays on one side; token problems skip instead of failing")
    func rolloutAndTokens() async throws {
        let none = FlowServer { $0.connect.rollout.percentage = 0 }
        try await none.runConnect { transport, backend in
            let connect = PasskeyConnect(transport: transport, authenticator: none.authenticator(), device: iPhone)
            #expect(await connect.isAppendAllowed(connectTokenProvider: backend.tokens) == .skip(reason: "not_in_rollout"))
            let failing: ConnectTokenProvider = { _ in throw PasskeyError(.network, stage: .network, "backend down") }
            #expect(await connect.isAppendAllowed(connectTokenProvider: failing) == .skip(reason: "connect_token_unavailable"))
            // The management flows say the same with a code of their own (nothing reached the passkey server).
            guard case .error(let error) = await connect.deletePasskey(id: "AbC", connectTokenProvider: failing) else {
                Issue.record("a failing token provider must end the flow")
                return
            }
            #expect(error.code == .connectTokenUnavailable && error.server == nil)
            #expect(error.userMessage == "Passkeys cannot be managed right now.")
        }
        let half = FlowServer { $0.connect.rollout.percentage = 50 }
        try await half.runConnect { transport, backend in
            var seen: [AppendStep] = []
            for index in 0..<12 {
                var user = backend
                user.userID = "user-\(index)"
                user.name = "user-\(index)"
                let connect = PasskeyConnect(transport: transport, authenticator: half.authenticator(), device: iPhone)
                let first = await connect.isAppendAllowed(connectTokenProvider: user.tokens)
                #expect(await connect.isAppendAllowed(connectTokenProvider: user.tokens) == first, "stable per user")
                let ourID = try #require(await half.repository.user(externalID: "user-\(index)")?.id)
                #expect(first == (RolloutPolicy.bucket(userID: ourID) < 50 ? .askUserForAppend(autoAppend: false) : .skip(reason: "not_in_rollout")))
                seen.append(first)
            }
            #expect(Set(seen).count == 2, "12 users fall on both sides")
        }
        let server = FlowServer()
        try await server.runConnect { transport, backend in
            let connect = PasskeyConnect(transport: transport, authenticator: server.authenticator(), device: iPhone)
            // A backend that hands out the wrong kind of token.
            let wrongKind: ConnectTokenProvider = { _ in try await backend.tokens(.passkeyList) }
            _ = try await backend.tokens(.passkeyAppend)  // links the account so a list token can be minted
            #expect(await connect.isAppendAllowed(connectTokenProvider: wrongKind) == .skip(reason: "connect_token_wrong_type"))
            // A token that expires between the decision and the append.
            #expect(await connect.isAppendAllowed(connectTokenProvider: backend.tokens) == .askUserForAppend(autoAppend: false))
            server.clock.advance(301)
            guard case .error(let error) = await connect.completeAppend() else {
                Issue.record("an expired token must fail")
                return
            }
            #expect(error.server?.code == .connectTokenInvalid)
        }
    }

    /// Gives the app's user a passkey on `authenticator` through the append flow; false (and an issue) if it fails.
    static func appendPasskey(_ transport: RouterTransport, _ backend: AppBackend, _ authenticator: any Authenticator) async -> Bool {
        let setup = PasskeyConnect(transport: transport, authenticator: authenticator, device: iPhone)
        _ = await setup.isAppendAllowed(connectTokenProvider: backend.tokens)
        guard case .completed = await setup.completeAppend() else {
            Issue.record("append failed")
            return false
        }
        return true
    }

    @Test("login: AutoFill options that aged while the screen waited are not shown; a waiting request is renewed")
    func autoFillRenewal() async throws {
        // Options live 1 s: renewal is due 0.9 s after they arrive.
        let server = FlowServer { $0.challengeTTL = 1 }
        let software = server.authenticator()
        try await server.runConnect { transport, backend in
            guard await Self.appendPasskey(transport, backend, software) else { return }
            let picker = LatePicker(inner: software, whenCancelled: { server.clock.advance(5) })
            let connect = PasskeyConnect(transport: transport, authenticator: AutoFillCapable(inner: picker), device: iPhone)
            guard case .initTextField(let decided) = await connect.isLoginAllowed() else {
                Issue.record("expected a text field")
                return
            }
            try await Task.sleep(for: .milliseconds(950))
            guard case .done(_, let username) = await connect.loginWithoutIdentifier(conditionalUI: true) else {
                Issue.record("AutoFill sign-in failed")
                return
            }
            #expect(username == "ann@example.com")
            // The decision's options were too old to show; the first request shown waited and was renewed.
            let shown = await picker.requests.map(\.options.challenge)
            #expect(shown.count == 2 && Set(shown).count == 2, "\(shown)")
            #expect(!shown.contains { $0 == decided })
        }
    }

    @Test("login: AutoFill with the decision's challenge; a dismissed AutoFill is ignored; no passkey falls back silently")
    func autoFill() async throws {
        let server = FlowServer()
        let software = server.authenticator()
        try await server.runConnect { transport, backend in
            guard await Self.appendPasskey(transport, backend, software) else { return }
            // A fresh install: no one-tap account, AutoFill available.
            let connect = PasskeyConnect(transport: transport, authenticator: AutoFillCapable(inner: software), device: iPhone)
            guard case .initTextField(let challenge) = await connect.isLoginAllowed() else {
                Issue.record("expected a text field")
                return
            }
            #expect(challenge?.isEmpty == false)
            guard case .done(_, let username) = await connect.loginWithoutIdentifier(conditionalUI: true) else {
                Issue.record("AutoFill sign-in failed")
                return
            }
            #expect(username == "ann@example.com")

            let dismissed = PasskeyConnect(
                transport: transport, authenticator: AutoFillCapable(inner: software, cancelAssertions: true), device: iPhone)
            _ = await dismissed.isLoginAllowed()
            #expect(await dismissed.loginWithoutIdentifier(conditionalUI: true) == .ignore)
            #expect(await dismissed.loginWithIdentifier("ann@example.com") == .initRetry)

            let empty = PasskeyConnect(transport: transport, authenticator: server.authenticator(), device: iPhone)
            #expect(await empty.loginWithoutIdentifier(conditionalUI: false) == .initSilentFallback(identifier: nil))
            #expect(await empty.loginWithOneTap() == .initSilentFallback(identifier: nil), "no one-tap account stored")
        }
    }

    @Test("login: a disabled account is account_disabled, not counted as the passkey's failure")
    func disabledAccount() async throws {
        let server = FlowServer()
        try await server.runConnect { transport, backend in
            let software = server.authenticator()
            guard await Self.appendPasskey(transport, backend, software) else { return }
            let user = try #require(try await server.repository.user(username: "ann@example.com"))
            _ = try await server.repository.setUserDisabled(id: user.id, disabledAt: server.clock.now)
            let state = MemoryConnectStateStore(ConnectState(lastIdentifier: "ann@example.com"))
            let connect = PasskeyConnect(transport: transport, authenticator: software, stateStore: state, device: iPhone)
            for _ in 1...3 {
                guard case .error(let error, let triggerFallback, let identifier) = await connect.loginWithIdentifier("ann@example.com") else {
                    Issue.record("a disabled account's sign-in should fail")
                    return
                }
                #expect(error.code == .accountDisabled && error.recovery == .contactSupport && !triggerFallback)
                #expect(identifier == "ann@example.com")
            }
            #expect(await connect.state().recentFailures == 0)
            #expect(await connect.isLoginAllowed() != .initFallback(reason: "too_many_failures", identifier: "ann@example.com"))
        }
    }

    @Test("login: repeated failures and a disabled rollout fall back to the old login")
    func fallbacks() async throws {
        let server = FlowServer()
        try await server.runConnect { transport, backend in
            let software = server.authenticator()
            guard await Self.appendPasskey(transport, backend, software) else { return }
            // Every sign-in fails the server's verification (a broken signature).
            let misconfigured = Tampering(inner: software)
            let state = MemoryConnectStateStore(ConnectState(lastIdentifier: "ann@example.com"))
            let connect = PasskeyConnect(transport: transport, authenticator: misconfigured, stateStore: state, device: iPhone)
            for attempt in 1...3 {
                guard case .error(let error, let triggerFallback, _) = await connect.loginWithIdentifier("ann@example.com") else {
                    Issue.record("attempt \(attempt) should fail")
                    return
                }
                #expect(error.server?.code == .signatureInvalid)
                #expect(!triggerFallback)
                #expect(await connect.state().recentFailures == attempt)
            }
            #expect(await connect.isLoginAllowed() == .initFallback(reason: "too_many_failures", identifier: "ann@example.com"))
            #expect(await connect.state().lastFailureAt != nil)

            // A day later the failures are forgotten and passkeys are offered again.
            let later = PasskeyConnect(
                transport: transport, authenticator: misconfigured, stateStore: state, device: iPhone,
                now: { Date().addingTimeInterval(PasskeyConnect.failureMemory + 60) })
            #expect(await later.isLoginAllowed() == .initOneTap(identifier: "ann@example.com"))
            // The next failure after that counts from 1 again.
            _ = await later.loginWithIdentifier("ann@example.com")
            #expect(await later.state().recentFailures == 1)

            // A passkey added on the device starts it clean.
            let shared = PasskeyConnect(transport: transport, authenticator: server.authenticator(), stateStore: state, device: iPhone)
            guard case .allowed = await shared.completePasskeyListAppend(connectTokenProvider: backend.tokens) else {
                Issue.record("adding a passkey failed")
                return
            }
            let cleared = await shared.state()
            #expect(cleared.recentFailures == 0 && cleared.lastFailureAt == nil)

            // The passkey signed, then the server failed to verify (a deploy, overload): not the passkey's failure.
            for status in [503, 429] {
                let failing = PasskeyConnect(
                    transport: FailingVerification(inner: transport, status: status), authenticator: software,
                    stateStore: MemoryConnectStateStore(), device: iPhone)
                guard case .error(let error, _, _) = await failing.loginWithIdentifier("ann@example.com") else {
                    Issue.record("the verification answered \(status)")
                    return
                }
                #expect(error.stage == .verification && error.server?.httpStatus == status)
                #expect(await failing.state().recentFailures == 0, "HTTP \(status) is not counted")
            }
        }
        let off = FlowServer { $0.connect.rollout.enabled = false }
        try await off.runConnect { transport, _ in
            let connect = PasskeyConnect(transport: transport, authenticator: off.authenticator(), device: iPhone)
            #expect(await connect.isLoginAllowed() == .initFallback(reason: "rollout_disabled", identifier: nil))
        }
        // No server at all: fall back rather than fail.
        let unreachable = PasskeyConnect(transport: CannedTransport(status: 503, body: #"{"error":"storage_unavailable","message":"down"}"#),
            authenticator: ScriptedAuthenticator(), device: iPhone)
        #expect(await unreachable.isLoginAllowed() == .initFallback(reason: "storage_unavailable", identifier: nil))
        // Sign-ins that fail because the server is down say nothing about passkeys on the device: not counted, or three
        // of them during a deploy would switch passkey sign-in off.
        let outageState = MemoryConnectStateStore(ConnectState(lastIdentifier: "ann@example.com"))
        let outage = PasskeyConnect(
            transport: CannedTransport(status: 503, body: #"{"error":"storage_unavailable","message":"down"}"#),
            authenticator: ScriptedAuthenticator(), stateStore: outageState, device: iPhone)
        for _ in 1...3 { _ = await outage.loginWithIdentifier("ann@example.com") }
        #expect(await outageState.load().recentFailures == 0)
    }

    @Test("sign-out drops the append token of the last decision: the next person cannot add a passkey to that account")
    func signOutDropsPendingAppend() async throws {
        let server = FlowServer()
        try await server.runConnect { transport, backend in
            let connect = PasskeyConnect(transport: transport, authenticator: server.authenticator(), device: iPhone)
            guard case .askUserForAppend = await connect.isAppendAllowed(connectTokenProvider: backend.tokens) else {
                Issue.record("an account without passkeys is asked")
                return
            }
            await connect.signOut()
            guard case .error(let error) = await connect.completeAppend() else {
                Issue.record("the append must not run after sign-out")
                return
            }
            #expect(error.code == .invalidOptions)
        }
    }

    /// The list a management outcome carries; nil for any other outcome.
    static func passkeys(_ status: ManageStatus) -> [PasskeyInfo]? {
        switch status {
        case .allowed(let passkeys), .notAllowed(let passkeys): passkeys
        default: nil
        }
    }

    /// Corbado's guide writes each provider for its call: the closure ignores the kind it is asked for and returns the
    /// one that call needs (`.PasskeyList` for the list, `.PasskeyAppend` for adding, `.PasskeyDelete` for deleting).
    @Test("providers written as Corbado's guide writes them (one kind per call) reach every outcome; a wrong kind is an error naming the kind asked")
    func corbadoStyleProviders() async throws {
        let server = FlowServer()
        try await server.runConnect { transport, backend in
            let software = server.authenticator({ $0.backup = .synced }, store: InMemoryCredentialStore())
            let connect = PasskeyConnect(transport: transport, authenticator: software, device: iPhone)
            let listProvider: ConnectTokenProvider = { _ in try await backend.tokens(.passkeyList) }
            let appendProvider: ConnectTokenProvider = { _ in try await backend.tokens(.passkeyAppend) }
            let deleteProvider: ConnectTokenProvider = { _ in try await backend.tokens(.passkeyDelete) }

            // After the old login: the decision and the append, each with an append token.
            #expect(await connect.isAppendAllowed(connectTokenProvider: appendProvider) == .askUserForAppend(autoAppend: false))
            guard case .completed(let first) = await connect.completeAppend() else {
                Issue.record("the append failed")
                return
            }
            // Settings: the list with a list token, adding with an append token, deleting with a delete token.
            let listed = try #require(Self.passkeys(await connect.isManageAppendAllowed(connectTokenProvider: listProvider)), "the list failed")
            #expect(listed.map(\.id) == [first.id])
            #expect(await connect.completePasskeyListAppend(connectTokenProvider: appendProvider) == .excludeCredentialsMatch)
            guard case .allowed(let left) = await connect.deletePasskey(id: first.id, connectTokenProvider: deleteProvider) else {
                Issue.record("the delete failed, or its answer did not offer adding one again")
                return
            }
            #expect(left.isEmpty)
            let added = try #require(Self.passkeys(await connect.completePasskeyListAppend(connectTokenProvider: appendProvider)), "adding failed")
            #expect(added.count == 1)
            let renamed = try #require(
                Self.passkeys(await connect.renamePasskey(id: added[0].id, name: "Phone", connectTokenProvider: listProvider)), "the rename failed")
            #expect(renamed.map(\.name) == ["Phone"])

            // A provider that returns another kind than its call needs: an error that says which kind was asked.
            for (status, asked) in [
                (await connect.isManageAppendAllowed(connectTokenProvider: appendProvider), "passkey-list"),
                (await connect.completePasskeyListAppend(connectTokenProvider: listProvider), "passkey-append"),
                (await connect.deletePasskey(id: added[0].id, connectTokenProvider: listProvider), "passkey-delete"),
                (await connect.renamePasskey(id: added[0].id, name: "X", connectTokenProvider: deleteProvider), "passkey-list"),
            ] {
                guard case .error(let error) = status else {
                    Issue.record("a wrong kind must be an error, not \(status)")
                    continue
                }
                #expect(error.code == .connectTokenWrongType && error.reason.contains("asked for a \(asked) token"), "\(error)")
            }
            #expect(await connect.isAppendAllowed(connectTokenProvider: listProvider) == .skip(reason: "connect_token_wrong_type"))
        }
    }

    @Test("against a server from before one token per step (no list in the delete and append answers, the decision only for append tokens), the manage flows still end with the list")
    func olderServer() async throws {
        let server = FlowServer()
        try await server.runConnect { transport, backend in
            let listTokens = TokenLog()
            let legacy = LegacyConnectTransport(inner: transport, listTokens: listTokens)
            let software = server.authenticator({ $0.backup = .synced }, store: InMemoryCredentialStore())
            let connect = PasskeyConnect(transport: legacy, authenticator: software, device: iPhone)
            let tokens: ConnectTokenProvider = { kind in
                let token = try await backend.tokens(kind)
                if kind == .passkeyList { await listTokens.add(token) }
                return token
            }
            // The decision refuses list tokens there: the list still comes, without the offer to add.
            guard case .notAllowed(let none) = await connect.isManageAppendAllowed(connectTokenProvider: tokens) else {
                Issue.record("the list must come without the decision")
                return
            }
            #expect(none.isEmpty)
            guard case .notAllowed(let added) = await connect.completePasskeyListAppend(connectTokenProvider: tokens), added.count == 1 else {
                Issue.record("after an append whose answer has no list, the list comes with a list token")
                return
            }
            guard case .notAllowed(let left) = await connect.deletePasskey(id: added[0].id, connectTokenProvider: tokens) else {
                Issue.record("after a delete whose answer has no list, the list comes with a list token")
                return
            }
            #expect(left.isEmpty)
        }
    }

    @Test("manage: list, rename, delete; a passkey deleted on the server is reported at sign-in and forgotten for one-tap")
    func manage() async throws {
        let server = FlowServer()
        try await server.runConnect { transport, backend in
            let software = server.authenticator({ $0.backup = .synced }, store: InMemoryCredentialStore())
            let connect = PasskeyConnect(transport: transport, authenticator: software, device: iPhone)
            guard case .allowed(let before) = await connect.isManageAppendAllowed(connectTokenProvider: backend.tokens) else {
                Issue.record("an account without passkeys may add one")
                return
            }
            #expect(before.isEmpty)
            guard case .allowed(let after) = await connect.completePasskeyListAppend(connectTokenProvider: backend.tokens) else {
                Issue.record("adding from the list failed")
                return
            }
            let passkey = try #require(after.first)
            #expect(after.count == 1 && passkey.isSynced)
            guard case .allowed(let renamed) = await connect.renamePasskey(id: passkey.id, name: "My phone", connectTokenProvider: backend.tokens) else {
                Issue.record("rename failed")
                return
            }
            #expect(renamed.map(\.name) == ["My phone"])
            // The same device again: excluded, a manage outcome of its own.
            #expect(await connect.completePasskeyListAppend(connectTokenProvider: backend.tokens) == .excludeCredentialsMatch)

            // Deleted from the list: the one-tap account goes too, and so does the passkey on this device, which held it.
            #expect(await connect.state().lastCredentialID == passkey.id)
            guard case .allowed(let none) = await connect.deletePasskey(id: passkey.id, connectTokenProvider: backend.tokens) else {
                Issue.record("delete failed")
                return
            }
            #expect(none.isEmpty)
            #expect(await connect.state().lastIdentifier == nil, "one-tap forgets the account")
            guard case .error(let gone) = await connect.deletePasskey(id: passkey.id, connectTokenProvider: backend.tokens) else {
                Issue.record("deleting twice must fail")
                return
            }
            #expect(gone.server?.code == .passkeyNotFound)
            #expect(try await software.store.allCredentials().isEmpty, "the device forgets the passkey it deleted")
            #expect(await connect.loginWithoutIdentifier(conditionalUI: false) == .initSilentFallback(identifier: nil))

            // Deleted elsewhere (another device's manage screen, an admin): this device learns it at sign-in, and
            // forgets the passkey then, so AutoFill does not offer it again.
            _ = await connect.completePasskeyListAppend(connectTokenProvider: backend.tokens)
            let second = try #require(try await software.store.allCredentials().first)
            let entry = try #require(try await server.repository.credential(id: second.id))
            try await server.repository.deleteCredential(id: second.id, userID: entry.userID)
            guard case .error(let error, let triggerFallback, let identifier) = await connect.loginWithoutIdentifier(conditionalUI: false) else {
                Issue.record("a deleted passkey must not sign in")
                return
            }
            #expect(error.code == .passkeyDeletedOnServer && error.recovery == .useAnotherDeviceOrMethod)
            #expect(error.server?.code == .passkeyDeletedOnServer && error.server?.message.isEmpty == false)
            #expect(triggerFallback && identifier == nil)
            #expect(try await software.store.allCredentials().isEmpty)
            #expect(await connect.state().lastIdentifier == nil, "it was the one-tap account's passkey")
            #expect(await connect.loginWithoutIdentifier(conditionalUI: false) == .initSilentFallback(identifier: nil))
        }
    }

    @Test("manage: listing tells the device which passkeys the account still has and its current names (WebAuthn signals)")
    func listingSignals() async throws {
        let server = FlowServer()
        try await server.runConnect { transport, backend in
            let software = server.authenticator({ $0.backup = .synced }, store: InMemoryCredentialStore())
            let connect = PasskeyConnect(transport: transport, authenticator: software, device: iPhone)
            let bob = AppBackend(transport: transport, apiKey: backend.apiKey, userID: "app-user-2", name: "bob@example.com")
            _ = await connect.completePasskeyListAppend(connectTokenProvider: backend.tokens)
            _ = await connect.completePasskeyListAppend(connectTokenProvider: bob.tokens)
            let held = try await software.store.allCredentials()
            #expect(Set(held.map(\.userName)) == ["ann@example.com", "bob@example.com"])
            let anns = try #require(held.first { $0.userName == "ann@example.com" })
            let bobs = try #require(held.first { $0.userName == "bob@example.com" })

            // Ann's passkey is deleted on the server (another device's manage screen, support): the next list on this
            // device drops it here too. Bob's passkey, another account's, stays.
            let entry = try #require(try await server.repository.credential(id: anns.id))
            try await server.repository.deleteCredential(id: anns.id, userID: entry.userID)
            guard case .allowed(let listed) = await connect.isManageAppendAllowed(connectTokenProvider: backend.tokens) else {
                Issue.record("listing failed")
                return
            }
            #expect(listed.isEmpty)
            #expect(try await software.store.allCredentials().map(\.id) == [bobs.id])

            // Bob's display name changes in the app: the backend's next token carries it, and the list brings it here.
            let renamed: ConnectTokenProvider = { kind in
                try #require(
                    try await bob.call(
                        "connect/tokens",
                        ["type": .string(kind.rawValue), "user": ["id": "app-user-2", "name": "bob@example.com", "displayName": "Bob Builder"]]
                    )["token"]?.stringValue)
            }
            guard case .allowed(let bobsList) = await connect.isManageAppendAllowed(connectTokenProvider: renamed) else {
                Issue.record("listing failed")
                return
            }
            #expect(bobsList.map(\.id) == [Base64URL.encode(bobs.id)])
            let updated = try await software.store.allCredentials()
            #expect(updated.map(\.userDisplayName) == ["Bob Builder"] && updated.map(\.userName) == ["bob@example.com"])
        }
    }

    @Test("the software authenticator acts on the signals for the named account and RP ID only")
    func softwareSignals() async throws {
        let server = FlowServer()
        try await server.runConnect { transport, backend in
            let software = server.authenticator({ $0.backup = .synced }, store: InMemoryCredentialStore())
            let connect = PasskeyConnect(transport: transport, authenticator: software, device: iPhone)
            _ = await connect.completePasskeyListAppend(connectTokenProvider: backend.tokens)
            let held = try #require(try await software.store.allCredentials().first)
            // Another RP ID, another user handle, or a list that holds the passkey: nothing changes.
            await software.signalAllAcceptedCredentials(rpID: "other.example", userHandle: held.userHandle, credentialIDs: [])
            await software.signalAllAcceptedCredentials(rpID: held.rpID, userHandle: held.userHandle + [0], credentialIDs: [])
            await software.signalAllAcceptedCredentials(rpID: held.rpID, userHandle: held.userHandle, credentialIDs: [[1, 2], held.id])
            await software.signalCurrentUserDetails(rpID: held.rpID, userHandle: held.userHandle, name: "", displayName: "Nobody")
            await software.signalCurrentUserDetails(rpID: "other.example", userHandle: held.userHandle, name: "x", displayName: "X")
            #expect(try await software.store.allCredentials() == [held])
            await software.signalCurrentUserDetails(rpID: held.rpID, userHandle: held.userHandle, name: "ann@new.example", displayName: "")
            let renamed = try #require(try await software.store.allCredentials().first)
            #expect(renamed.userName == "ann@new.example" && renamed.userDisplayName == held.userDisplayName && renamed.id == held.id)
            await software.signalAllAcceptedCredentials(rpID: held.rpID, userHandle: held.userHandle, credentialIDs: [[1, 2]])
            #expect(try await software.store.allCredentials().isEmpty)
        }
    }

    @Test("manage: an answer that is not the server's (another service on the address) is invalidResponse, not success")
    func manageAnswersChecked() async throws {
        let connect = PasskeyConnect(transport: CannedTransport(status: 200, body: #"{"hello":"world"}"#), authenticator: ScriptedAuthenticator())
        let listed = await #expect(throws: PasskeyError.self) { try await connect.listPasskeys(connectToken: "pct_x") }
        #expect(listed?.code == .invalidResponse)
        let deleted = await #expect(throws: PasskeyError.self) { try await connect.deletePasskey(id: "AAAA", connectToken: "pct_x") }
        #expect(deleted?.code == .invalidResponse)
        let odd = PasskeyConnect(transport: CannedTransport(status: 200, body: #"{"passkeys":[{"x":1}]}"#), authenticator: ScriptedAuthenticator())
        let entries = await #expect(throws: PasskeyError.self) { try await odd.listPasskeys(connectToken: "pct_x") }
        #expect(entries?.code == .invalidResponse)
    }

    @Test("an iCloud Keychain passkey already covers an iPhone: managing offers no second one there")
    func coveredPlatform() async throws {
        let server = FlowServer()
        try await server.runConnect { transport, backend in
            let apple = server.authenticator({
                $0.backup = .synced
                $0.aaguid = [0xfb, 0xfc, 0x30, 0x07, 0x15, 0x4e, 0x4e, 0xcc, 0x8c, 0x0b, 0x6e, 0x02, 0x05, 0x57, 0xd7, 0xbd]
            })
            let connect = PasskeyConnect(transport: transport, authenticator: apple, device: iPhone)
            _ = await connect.completePasskeyListAppend(connectTokenProvider: backend.tokens)
            guard case .notAllowed(let passkeys) = await connect.isManageAppendAllowed(connectTokenProvider: backend.tokens) else {
                Issue.record("expected notAllowed")
                return
            }
            #expect(passkeys.first?.provider == "Apple Passwords")
            let android = PasskeyConnect(transport: transport, authenticator: apple, device: DeviceReport(platform: "Android", osVersion: "14"))
            guard case .allowed = await android.isManageAppendAllowed(connectTokenProvider: backend.tokens) else {
                Issue.record("an Android phone still gets the offer")
                return
            }
        }
    }

    @Test("state updates from flows running at once are all kept (read and write in one step)")
    func concurrentUpdates() async throws {
        let folder = temporaryPath("connect")
        defer { try? FileManager.default.removeItem(at: folder) }
        let stores: [any ConnectStateStore] = [MemoryConnectStateStore(), FileConnectStateStore(url: folder.appendingPathComponent("state.json"))]
        for store in stores {
            await withTaskGroup(of: Void.self) { group in
                for _ in 1...50 { group.addTask { await store.update { $0.recentFailures += 1 } } }
            }
            #expect(await store.load().recentFailures == 50, "\(type(of: store))")
        }
    }

    @Test("the connect state file is private (0600), round-trips, and sign-out forgets the account")
    func stateFile() async throws {
        let folder = temporaryPath("connect")
        let url = folder.appendingPathComponent("state.json")
        let store = FileConnectStateStore(url: url)
        #expect(await store.load() == ConnectState())
        let saved = ConnectState(lastIdentifier: "ann@example.com", lastCredentialID: "AbC", lastDeclinedAt: Date(timeIntervalSince1970: 1_800_000_000), recentFailures: 2)
        await store.save(saved)
        #expect(await FileConnectStateStore(url: url).load() == saved)
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let connect = PasskeyConnect(transport: CannedTransport(status: 500, body: ""), authenticator: ScriptedAuthenticator(), stateStore: store)
        await connect.signOut()
        let after = await store.load()
        #expect(after.lastIdentifier == nil && after.lastCredentialID == nil && after.recentFailures == 2)
        try "not json".write(to: url, atomically: true, encoding: .utf8)
        #expect(await store.load() == ConnectState(), "an unreadable file is an empty state, not a failure")
    }
}

/// Passes requests on, but answers the sign-in's verification with `status`: the server in trouble after it gave options.
struct FailingVerification: RelyingPartyTransport {
    let inner: any RelyingPartyTransport
    let status: Int

    func send(_ request: RelyingPartyRequest) async throws(PasskeyError) -> RelyingPartyResponse {
        guard request.path == "verify-authentication" else { return try await inner.send(request) }
        return RelyingPartyResponse(status: status, body: Array(#"{"error":"storage_unavailable","message":"down"}"#.utf8))
    }
}

/// The list tokens an app's backend handed out, so a test can play a server that tells token kinds apart.
actor TokenLog {
    private(set) var tokens: Set<String> = []
    func add(_ token: String) { tokens.insert(token) }
}

/// Answers as a server before one token per management step did: the delete and append answers carry no list, and the
/// append decision refuses a list token (`connect_token_wrong_type`).
struct LegacyConnectTransport: RelyingPartyTransport {
    let inner: any RelyingPartyTransport
    let listTokens: TokenLog

    func send(_ request: RelyingPartyRequest) async throws(PasskeyError) -> RelyingPartyResponse {
        if request.path == "connect/append/decision", let bearer = request.authorization?.dropFirst("Bearer ".count),
            await listTokens.tokens.contains(String(bearer))
        {
            let body: JSONValue = ["error": "connect_token_wrong_type", "message": "This connect token is for passkey-list, not passkey-append."]
            return RelyingPartyResponse(status: 403, body: body.serializedBytes)
        }
        var response = try await inner.send(request)
        let trimmed = request.path == "connect/append/verify" || (request.method == .delete && request.path.hasPrefix("connect/passkeys/"))
        if trimmed, response.status == 200, case .object(var object)? = try? JSONValue.parse(response.body) {
            for name in ["passkeys", "append", "rpId", "user"] { object[name] = nil }
            response.body = JSONValue.object(object).serializedBytes
        }
        return response
    }
}
