import PasskeyAPI
import Foundation
import PasskeyClient
import PasskeyServer
import PasskeySoftwareAuthenticator
import PasskeyStorage
import PasskeyWire
import Testing
import PasskeyTestSupport

@Suite("PasskeyAuthClient against the real server routes")
struct ClientFlowTests {
    @Test("named account: register, sign in with the username, then without it; the counter increments")
    func named() async throws {
        let server = FlowServer()
        let events = Collector<PasskeyClientEvent>()
        let authenticator = server.authenticator()
        let registered = try await server.run { transport in
            let client = PasskeyAuthClient(transport: transport, authenticator: authenticator, onEvent: { events.append($0) })
            let registered = try await client.register(username: "ann", displayName: "Ann Lee")
            #expect(registered.verified && registered.username == "ann" && !registered.isAnonymous)
            #expect(registered.credentialId == registered.response.id)

            let named = try await client.authenticate(username: "ann")
            #expect(named.verified && named.username == "ann" && named.userId == registered.userId)
            #expect(named.credentialId == registered.credentialId)
            let usernameless = try await client.authenticate()
            #expect(usernameless.username == "ann" && usernameless.userId == registered.userId)
            return registered
        }
        let id = try #require(Base64URL.decode(registered.credentialId))
        #expect(await server.repository.credential(id: id)?.signCount == 2)
        #expect(try await authenticator.store.allCredentials().first?.signCount == 2)
        #expect(await server.repository.user(username: "ann")?.displayName == "Ann Lee")

        #expect(
            events.values == [
                .registrationStarted(username: "ann"),
                .registrationSucceeded(userId: registered.userId, credentialId: registered.credentialId, isAnonymous: false),
                .authenticationStarted(username: "ann"),
                .authenticationSucceeded(userId: registered.userId, credentialId: registered.credentialId, isAnonymous: false),
                .authenticationStarted(username: nil),
                .authenticationSucceeded(userId: registered.userId, credentialId: registered.credentialId, isAnonymous: false),
            ])
    }

    @Test("a task cancelled while the person makes the passkey still has it verified: no passkey is left on the device unknown to the server")
    func cancelledDuringCreation() async throws {
        let server = FlowServer()
        let store = InMemoryCredentialStore()
        let device = CancelsItsCaller(inner: server.authenticator(store: store))
        let answer = try await server.run { transport in
            let client = PasskeyAuthClient(transport: transport, authenticator: device)
            return await Task { try? await client.register(username: "ann") }.value
        }
        #expect(answer?.verified == true && answer?.username == "ann", "the verification ran to its end")
        let stored = try #require(try await store.allCredentials().first)
        #expect(await server.repository.credential(id: stored.id) != nil, "the server holds the passkey the device made")
    }

    @Test("a sign-in the server accepted although the counter went back (--allow-counter-regression) says counterRegressed")
    func counterRegressed() async throws {
        let server = FlowServer { $0.allowCounterRegression = true }
        try await server.run { transport in
            // Two authenticators holding the same passkey: one counts, the other always says 0.
            let store = InMemoryCredentialStore()
            let counting = PasskeyAuthClient(transport: transport, authenticator: server.authenticator({ $0.counter = .incrementing }, store: store))
            _ = try await counting.register(username: "ann")
            let first = try await counting.authenticate()
            #expect(!first.counterRegressed)
            let zero = PasskeyAuthClient(transport: transport, authenticator: server.authenticator({ $0.counter = .alwaysZero }, store: store))
            let regressed = try await zero.authenticate()
            #expect(regressed.counterRegressed && regressed.userId == first.userId)
        }
    }

    @Test("anonymous account: none asked at registration; it is named by the name its passkey carries, which signs in too")
    func anonymous() async throws {
        let server = FlowServer()
        let authenticator = server.authenticator()
        try await server.run { transport in
            let client = PasskeyAuthClient(transport: transport, authenticator: authenticator)
            let registered = try await client.register(username: nil)
            #expect(registered.isAnonymous && registered.username?.hasPrefix("anonymous-") == true)
            let signedIn = try await client.authenticate(username: nil)
            #expect(signedIn.isAnonymous && signedIn.username == registered.username && signedIn.userId == registered.userId)
            let byName = try await client.authenticate(username: registered.username)
            #expect(byName.userId == registered.userId)
        }
    }

    @Test("authenticate(mediation:) hands AutoFill and immediate mediation to the authenticator, against the server's options")
    func mediation() async throws {
        let server = FlowServer()
        let recorder = MediationRecorder(inner: server.authenticator())
        try await server.run { transport in
            let client = PasskeyAuthClient(transport: transport, authenticator: recorder)
            let registered = try await client.register(username: "ann")
            let autoFill = try await client.authenticate(mediation: .conditional)
            #expect(autoFill.verified && autoFill.userId == registered.userId)
            let immediate = try await client.authenticate(username: "ann", mediation: .immediate)
            #expect(immediate.verified && immediate.username == "ann")
            _ = try await client.authenticate(username: "ann")
        }
        #expect(await recorder.mediations == [.conditional, .immediate, .modal])
    }

    @Test("AutoFill: a request still waiting as its options expire is renewed, and the passkey picked then signs in")
    func autoFillRenewal() async throws {
        // Options live 1 s: the SDK renews the waiting request after 0.9 s. The server's clock moves past the first
        // options' expiry when that request is cancelled, so only the renewed options can still succeed.
        let server = FlowServer { $0.challengeTTL = 1 }
        let picker = LatePicker(inner: server.authenticator(), whenCancelled: { server.clock.advance(5) })
        try await server.run { transport in
            let client = PasskeyAuthClient(transport: transport, authenticator: picker)
            let registered = try await client.register(username: "ann")
            let signedIn = try await client.authenticate(mediation: .conditional)
            #expect(signedIn.verified && signedIn.userId == registered.userId)
        }
        let challenges = await picker.requests.map(\.options.challenge)
        #expect(challenges.count == 2 && Set(challenges).count == 2, "\(challenges)")
        #expect(await picker.requests.allSatisfy { $0.mediation == .conditional })
    }

    @Test("AutoFill: new options that cannot be fetched for a renewal (offline) are fetched again, and the sign-in still works")
    func autoFillRenewalOffline() async throws {
        let server = FlowServer { $0.challengeTTL = 1 }
        let picker = LatePicker(inner: server.authenticator(), whenCancelled: { server.clock.advance(5) })
        try await server.run { transport in
            let registering = PasskeyAuthClient(transport: transport, authenticator: picker)
            let registered = try await registering.register(username: "ann")
            // The second options request (the renewal's) fails as if offline; the next one goes through.
            let flaky = FlakyTransport(inner: transport, failing: [2])
            let client = PasskeyAuthClient(transport: flaky, authenticator: picker)
            let signedIn = try await client.authenticate(mediation: .conditional)
            #expect(signedIn.userId == registered.userId)
            #expect(await flaky.optionsRequests == 3)
        }
        #expect(await picker.requests.count == 2)
    }

    @Test("AutoFill: cancelling the task ends the waiting request with cancelled; it is not renewed")
    func autoFillCancelled() async throws {
        // Options live 60 s (renewal after 55 s): any second request here would come from the cancellation.
        let server = FlowServer()
        let picker = LatePicker(inner: server.authenticator(), whenCancelled: {}, patience: .max)
        try await server.run { transport in
            let client = PasskeyAuthClient(transport: transport, authenticator: picker)
            let task = Task { () async throws(PasskeyError) -> PasskeyAuthenticationResult in try await client.authenticate(mediation: .conditional) }
            // Cancelled once the AutoFill request waits.
            for _ in 0..<400 where await picker.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
            task.cancel()
            let result = await task.result
            guard case .failure(let error) = result else {
                Issue.record("signed in: \(result)")
                return
            }
            #expect((error as? PasskeyError)?.code == .cancelled, "\(error)")
        }
        let asked = await picker.requests.count
        #expect(asked == 1)
    }

    @Test("PRF through the flows: outputs reach the app, the same input gives the same key, and the server never sees them")
    func prf() async throws {
        let server = FlowServer()
        let authenticator = server.authenticator()
        let sent = Collector<String>()
        try await server.run { transport in
            var recording = transport
            recording.beforeSend = { request in sent.append(String(decoding: request.body ?? [], as: UTF8.self)) }
            let client = PasskeyAuthClient(transport: recording, authenticator: authenticator)
            let salt = Array("vault key v1".utf8)
            let registered = try await client.register(username: "ann", prf: .evaluate(PRFValues(first: salt)))
            #expect(registered.prf?.enabled == true)
            let atCreation = try #require(registered.prf?.first)
            #expect(atCreation.count == 32)

            let signedIn = try await client.authenticate(prf: PRFValues(first: salt, second: Array("next key".utf8)))
            #expect(signedIn.prf?.first == atCreation, "the same passkey and input give the same output")
            #expect(signedIn.prf?.second?.count == 32 && signedIn.prf?.second != atCreation)
            #expect(signedIn.response.clientExtensionResults["prf"] == nil, "what was sent carries no outputs")

            let other = try await client.authenticate(username: "ann", prf: PRFValues(first: Array("other".utf8)))
            #expect(other.prf?.first != nil && other.prf?.first != atCreation)
            let without = try await client.authenticate()
            #expect(without.prf == nil)

            // No body sent to the server holds an output, base64url or otherwise: only `enabled` at registration.
            for output in [atCreation, signedIn.prf?.second ?? []] {
                #expect(!sent.values.contains { $0.contains(Base64URL.encode(output)) })
            }
            #expect(sent.values.contains { $0.contains(#""prf":{"enabled":true}"#) })
        }
    }

    @Test("a synced passkey keeps counter 0, and the server accepts 0 after 0")
    func counterZero() async throws {
        let server = FlowServer()
        let authenticator = server.authenticator { $0 = .syncedPasskey(origin: .web(server.origin)) }
        let registered = try await server.run { transport in
            let client = PasskeyAuthClient(transport: transport, authenticator: authenticator)
            let registered = try await client.register(username: "bo")
            _ = try await client.authenticate(username: "bo")
            _ = try await client.authenticate()
            return registered
        }
        let stored = await server.repository.credential(id: try #require(Base64URL.decode(registered.credentialId)))
        #expect(stored?.signCount == 0)
        #expect(stored?.backupEligible == true && stored?.backupState == true)
    }

    @Test("several accounts on one authenticator: the username picks the right passkey")
    func twoAccounts() async throws {
        let server = FlowServer()
        let authenticator = server.authenticator()
        try await server.run { transport in
            let client = PasskeyAuthClient(transport: transport, authenticator: authenticator)
            let ann = try await client.register(username: "ann")
            let bo = try await client.register(username: "bo")
            #expect(try await client.authenticate(username: "ann").credentialId == ann.credentialId)
            #expect(try await client.authenticate(username: "bo").credentialId == bo.credentialId)
        }
    }

    @Test("excludeCredentials: the low-level ceremony refuses a credential already on the authenticator")
    func excludeCredentials() async throws {
        let server = FlowServer()
        let authenticator = server.authenticator()
        try await server.run { transport in
            let client = PasskeyAuthClient(transport: transport, authenticator: authenticator)
            let registered = try await client.register(username: "ann")
            let stored = try #require(try await authenticator.store.allCredentials().first)
            let error = await expectPasskeyError { () async throws(PasskeyError) in
                try await client.register(
                    username: "ann", displayName: "ann", challenge: Base64URL.encode(Array(repeating: 7, count: 32)),
                    rp: PublicKeyCredentialRpEntity(id: "localhost", name: "Test"),
                    user: PublicKeyCredentialUserEntityJSON(id: Base64URL.encode(stored.userHandle), name: "ann", displayName: "ann"),
                    excludeCredentials: [PublicKeyCredentialDescriptorJSON(id: registered.credentialId)])
            }
            #expect(error?.code == .excludedCredentialExists)
            #expect(error?.stage == .authenticator)
            #expect(error?.recovery == .signInWithExistingPasskey)
        }
    }

    @Test("low-level ceremonies return credential JSON any backend can verify")
    func lowLevel() async throws {
        let server = FlowServer()
        let authenticator = server.authenticator()
        let client = PasskeyAuthClient(transport: CannedTransport(status: 500, body: ""), authenticator: authenticator)
        let challenge = Base64URL.encode(Array(repeating: 1, count: 32))
        let registration = try await client.register(
            username: "cy", displayName: "Cy", challenge: challenge, rp: PublicKeyCredentialRpEntity(id: "localhost", name: "Test"),
            timeout: 60_000, attestation: AttestationConveyancePreference.none,
            authenticatorSelection: AuthenticatorSelectionCriteria(residentKey: .required, userVerification: .required))
        #expect(registration.response.attestationObject.isEmpty == false)
        let assertion = try await client.authenticate(
            username: "cy", challenge: challenge, rpId: "localhost", allowCredentials: [PublicKeyCredentialDescriptorJSON(id: registration.id)],
            userVerification: .required)
        #expect(assertion.id == registration.id)
        #expect(assertion.response.userHandle != nil)
        #expect(await client.isSupported())
        #expect(await client.isPlatformAuthenticatorAvailable())
        let securityKey = PasskeyAuthClient(
            transport: CannedTransport(status: 500, body: ""),
            authenticator: server.authenticator { $0.attachment = .crossPlatform })
        #expect(await securityKey.isPlatformAuthenticatorAvailable() == false)
    }

    @Test("the event stream delivers started and failed events with the server's code")
    func eventStream() async throws {
        let server = FlowServer()
        try await server.run { transport in
            let client = PasskeyAuthClient(transport: transport, authenticator: server.authenticator())
            let stream = await client.events()
            _ = try await client.register(username: "ann")
            _ = await expectPasskeyError { () async throws(PasskeyError) in try await client.register(username: "ann") }
            var received: [PasskeyClientEvent] = []
            for await event in stream {
                received.append(event)
                if received.count == 4 { break }
            }
            #expect(received[0] == .registrationStarted(username: "ann"))
            #expect(received[2] == .registrationStarted(username: "ann"))
            #expect(received[3] == .registrationFailed(PasskeyClientFailure(code: .server, stage: .options, serverCode: .usernameTaken)))
        }
    }

    @Test("after a sign-in the device learns the account's current names (WebAuthn signals); an answer about another account changes nothing")
    func signInSignals() async throws {
        let server = FlowServer()
        let authenticator = server.authenticator()
        try await server.run { transport in
            let client = PasskeyAuthClient(transport: transport, authenticator: authenticator)
            let registered = try await client.register(username: "ann", displayName: "Ann Lee")
            let held = try #require(try await authenticator.store.allCredentials().first)
            #expect(held.userName == "ann" && held.userDisplayName == "Ann Lee")

            // Renamed on the server (the app's backend, support): the next sign-in brings the names to the device.
            _ = try await server.repository.updateNames(userID: registered.userId, username: nil, displayName: "Ann Smith")
            _ = try await client.authenticate(username: "ann")
            #expect(try await authenticator.store.allCredentials().map(\.userDisplayName) == ["Ann Smith"])
            _ = try await server.repository.updateNames(userID: registered.userId, username: "ann.smith", displayName: nil)
            _ = try await client.authenticate()
            let renamed = try #require(try await authenticator.store.allCredentials().first)
            #expect(renamed.userName == "ann.smith" && renamed.userDisplayName == "Ann Smith" && renamed.id == held.id)

            // Signals only for the account and RP ID the sign-in used, and only when the SDK can tell which they were.
            // A recorder sees what the SDK sends (the software authenticator would also ignore an RP ID its origin
            // may not use).
            _ = try await client.register(username: "bo", displayName: "Bo")
            let bos = try #require(try await authenticator.store.allCredentials().first { $0.userName == "bo" })
            let foreignUser = JSONValue.object(["id": .string(Base64URL.encode(bos.userHandle)), "name": "mallory", "displayName": "Mallory"])
            let cases: [(String, String, @Sendable (inout JSONObject) -> Void, Bool)] = [
                ("as answered", "verify-authentication", { _ in }, false),
                ("another account's user handle", "verify-authentication", { $0["user"] = foreignUser }, false),
                ("another RP ID", "verify-authentication", { $0["rpId"] = "other.example" }, false),
                ("options without an RP ID", "generate-authentication-options", { $0["rpId"] = nil }, false),
                ("an assertion without a user handle", "verify-authentication", { _ in }, true),
            ]
            for (what, path, rewrite, stripHandle) in cases {
                let recorder = SignalRecorder(inner: authenticator, stripUserHandle: stripHandle)
                let rewriting = AnswerRewriter(inner: transport, path: path, rewrite: rewrite)
                let signedIn = try await PasskeyAuthClient(transport: rewriting, authenticator: recorder).authenticate(username: "ann.smith")
                #expect(signedIn.verified && signedIn.username == "ann.smith", "\(what)")
                let expected = what == "as answered" ? [SignalRecorder.Details(rpID: "localhost", userHandle: held.userHandle, name: "ann.smith", displayName: "Ann Smith")] : []
                #expect(await recorder.details == expected, "\(what)")
            }
        }
    }
}

extension ClientFlowTests {
    @Test("after a sign-in the device hears which passkeys the account still has, when the list is about that sign-in")
    func acceptedCredentialsSignal() async throws {
        let server = FlowServer()
        let authenticator = server.authenticator()
        try await server.run { transport in
            let client = PasskeyAuthClient(transport: transport, authenticator: authenticator)
            let registered = try await client.register(username: "dana", displayName: "Dana")
            let held = try #require(try await authenticator.store.allCredentials().first)
            let id = try #require(Base64URL.decode(registered.credentialId))
            let elsewhere = Base64URL.encode([9, 9, 9])
            let cases: [(String, @Sendable (inout JSONObject) -> Void, [[UInt8]]?)] = [
                ("as answered", { _ in }, [id]),
                // A list without the passkey that just signed in is not about this sign-in: it would drop a working passkey.
                ("a list without the passkey used", { $0["signalAllAcceptedCredentials"] = ["rpId": "localhost", "userId": .string(Base64URL.encode(held.userHandle)), "allAcceptedCredentialIds": [.string(elsewhere)]] }, nil),
                ("a list for another account", { $0["signalAllAcceptedCredentials"] = ["rpId": "localhost", "userId": "AAAA", "allAcceptedCredentialIds": [.string(registered.credentialId)]] }, nil),
                ("a list for another RP ID", { $0["signalAllAcceptedCredentials"] = ["rpId": "other.example", "userId": .string(Base64URL.encode(held.userHandle)), "allAcceptedCredentialIds": [.string(registered.credentialId)]] }, nil),
                ("no list (an older server)", { $0["signalAllAcceptedCredentials"] = nil }, nil),
            ]
            for (what, rewrite, expected) in cases {
                let recorder = SignalRecorder(inner: authenticator, stripUserHandle: false)
                let rewriting = AnswerRewriter(inner: transport, path: "verify-authentication", rewrite: rewrite)
                let signedIn = try await PasskeyAuthClient(transport: rewriting, authenticator: recorder).authenticate(username: "dana")
                #expect(signedIn.verified, "\(what)")
                #expect(await recorder.accepted == expected.map { [SignalRecorder.Accepted(rpID: "localhost", userHandle: held.userHandle, credentialIDs: $0)] } ?? [], "\(what)")
                // The names are signalled in every case: they concern the account that signed in.
                #expect(await recorder.details.map(\.name) == ["dana"], "\(what)")
            }
        }
    }
}

/// Changes the JSON object a path answers, before the client reads it.
struct AnswerRewriter: RelyingPartyTransport {
    let inner: any RelyingPartyTransport
    let path: String
    let rewrite: @Sendable (inout JSONObject) -> Void

    func send(_ request: RelyingPartyRequest) async throws(PasskeyError) -> RelyingPartyResponse {
        var response = try await inner.send(request)
        guard request.path == path, var object = (try? JSONValue.parse(response.body))?.objectValue else { return response }
        rewrite(&object)
        response.body = JSONValue.object(object).serializedBytes
        return response
    }
}

/// Passes ceremonies to another authenticator and records the user-details signals it gets instead of passing them
/// on; `stripUserHandle` drops the user handle from assertions, as a security key's non-discoverable credential may.
actor SignalRecorder: Authenticator {
    struct Details: Hashable {
        let rpID: String
        let userHandle: [UInt8]
        let name: String
        let displayName: String
    }

    struct Accepted: Hashable {
        let rpID: String
        let userHandle: [UInt8]
        let credentialIDs: [[UInt8]]
    }

    let inner: any Authenticator
    let stripUserHandle: Bool
    private(set) var details: [Details] = []
    private(set) var accepted: [Accepted] = []

    init(inner: any Authenticator, stripUserHandle: Bool) {
        self.inner = inner
        self.stripUserHandle = stripUserHandle
    }

    func makeCredential(_ request: RegistrationRequest) async throws(PasskeyError) -> RegistrationResponseJSON {
        try await inner.makeCredential(request)
    }

    func getAssertion(_ request: AssertionRequest) async throws(PasskeyError) -> AuthenticationResponseJSON {
        var assertion = try await inner.getAssertion(request)
        if stripUserHandle { assertion.response.userHandle = nil }
        return assertion
    }

    func signalCurrentUserDetails(rpID: String, userHandle: [UInt8], name: String, displayName: String) async {
        details.append(Details(rpID: rpID, userHandle: userHandle, name: name, displayName: displayName))
    }

    func signalAllAcceptedCredentials(rpID: String, userHandle: [UInt8], credentialIDs: [[UInt8]]) async {
        accepted.append(Accepted(rpID: rpID, userHandle: userHandle, credentialIDs: credentialIDs))
    }
}

/// Passes ceremonies to another authenticator and records the mediation of each sign-in.
actor MediationRecorder: Authenticator {
    let inner: any Authenticator
    private(set) var mediations: [AssertionMediation] = []

    init(inner: any Authenticator) { self.inner = inner }

    func makeCredential(_ request: RegistrationRequest) async throws(PasskeyError) -> RegistrationResponseJSON {
        try await inner.makeCredential(request)
    }

    func getAssertion(_ request: AssertionRequest) async throws(PasskeyError) -> AuthenticationResponseJSON {
        mediations.append(request.mediation)
        return try await inner.getAssertion(request)
    }
}

/// An authenticator whose person picks a passkey only late: the first `patience` AutoFill requests wait until they
/// are cancelled (`whenCancelled` runs then); later ones are answered by `inner`.
actor LatePicker: Authenticator {
    let inner: any Authenticator
    let whenCancelled: @Sendable () -> Void
    let patience: Int
    private(set) var requests: [AssertionRequest] = []

    init(inner: any Authenticator, whenCancelled: @escaping @Sendable () -> Void, patience: Int = 1) {
        self.inner = inner
        self.whenCancelled = whenCancelled
        self.patience = patience
    }

    func makeCredential(_ request: RegistrationRequest) async throws(PasskeyError) -> RegistrationResponseJSON {
        try await inner.makeCredential(request)
    }

    func getAssertion(_ request: AssertionRequest) async throws(PasskeyError) -> AuthenticationResponseJSON {
        requests.append(request)
        guard requests.count <= patience else { return try await inner.getAssertion(request) }
        do { try await Task.sleep(for: .seconds(60)) } catch {}
        whenCancelled()
        throw .cancelled("the AutoFill request was cancelled")
    }
}

/// Passes requests on, except that the options requests numbered in `failing` (1-based) fail as a network error.
actor FlakyTransport: RelyingPartyTransport {
    let inner: any RelyingPartyTransport
    let failing: Set<Int>
    private(set) var optionsRequests = 0

    init(inner: any RelyingPartyTransport, failing: Set<Int>) {
        self.inner = inner
        self.failing = failing
    }

    func send(_ request: RelyingPartyRequest) async throws(PasskeyError) -> RelyingPartyResponse {
        if request.path == "generate-authentication-options" {
            optionsRequests += 1
            if failing.contains(optionsRequests) { throw PasskeyError(.network, stage: .network, "offline (scripted)") }
        }
        return try await inner.send(request)
    }
}

/// An authenticator that makes the credential, then cancels the task that asked for it: the view that started a
/// registration went away while the person was using Face ID.
struct CancelsItsCaller: Authenticator {
    let inner: SoftwareAuthenticator

    func makeCredential(_ request: RegistrationRequest) async throws(PasskeyError) -> RegistrationResponseJSON {
        let credential = try await inner.makeCredential(request)
        withUnsafeCurrentTask { $0?.cancel() }
        return credential
    }

    func getAssertion(_ request: AssertionRequest) async throws(PasskeyError) -> AuthenticationResponseJSON { try await inner.getAssertion(request) }
    func capabilities() async -> AuthenticatorCapabilities { await inner.capabilities() }
}
