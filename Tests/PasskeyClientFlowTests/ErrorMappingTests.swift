import Foundation
import PasskeyAPI
import PasskeyClient
import PasskeyServer
import PasskeySoftwareAuthenticator
import PasskeyStorage
import PasskeyWire
import Testing
import PasskeyTestSupport

@Suite("PasskeyAuthClient: every failure is a PasskeyError")
struct ErrorMappingTests {
    @Test("409 username_taken keeps the server's code and status, at the options stage")
    func usernameTaken() async throws {
        let server = FlowServer()
        try await server.run { transport in
            let client = PasskeyAuthClient(transport: transport, authenticator: server.authenticator())
            _ = try await client.register(username: "ann")
            let error = await expectPasskeyError { () async throws(PasskeyError) in try await client.register(username: "ann") }
            #expect(error?.code == .server)
            #expect(error?.stage == .options)
            #expect(error?.server?.code == .usernameTaken)
            #expect(error?.server?.httpStatus == 409)
            #expect(error?.server?.message.isEmpty == false)
        }
    }

    @Test("400 username_invalid and 429 rate_limited")
    func badRequestAndRateLimit() async throws {
        let server = FlowServer { $0.optionsPerMinute = 2 }
        try await server.run { transport in
            let client = PasskeyAuthClient(transport: transport, authenticator: server.authenticator())
            let invalid = await expectPasskeyError { () async throws(PasskeyError) in
                try await client.register(username: String(repeating: "x", count: 65))
            }
            #expect(invalid?.serverCode == .usernameInvalid && invalid?.server?.httpStatus == 400)
            _ = await expectPasskeyError { () async throws(PasskeyError) in try await client.authenticate(username: "nobody") }
            let limited = await expectPasskeyError { () async throws(PasskeyError) in try await client.authenticate() }
            #expect(limited?.code == .server && limited?.serverCode == .rateLimited && limited?.server?.httpStatus == 429)
        }
    }

    @Test("an expired challenge is challenge_invalid → invalidChallenge, with the server problem kept")
    func challengeExpired() async throws {
        let server = FlowServer()
        let clock = server.clock
        try await server.run { transport in
            // The person takes longer than the options' 60 s before the response reaches the server.
            let slow = transport.intercepting { request in
                if request.path.hasPrefix("verify-") { clock.advance(61) }
            }
            let client = PasskeyAuthClient(transport: slow, authenticator: server.authenticator())
            let error = await expectPasskeyError { () async throws(PasskeyError) in try await client.register(username: "ann") }
            #expect(error?.code == .invalidChallenge)
            #expect(error?.stage == .verification)
            #expect(error?.recovery == .requestNewOptions)
            #expect(error?.server?.code == .challengeInvalid && error?.server?.httpStatus == 400)
        }
    }

    @Test("a disabled account's sign-in is accountDisabled, recovery contactSupport, with the server problem kept")
    func accountDisabled() async throws {
        let server = FlowServer()
        try await server.run { transport in
            let client = PasskeyAuthClient(transport: transport, authenticator: server.authenticator())
            let registered = try await client.register(username: "ann")
            _ = try await server.repository.setUserDisabled(id: registered.userId, disabledAt: server.clock.now)
            let error = await expectPasskeyError { () async throws(PasskeyError) in try await client.authenticate() }
            #expect(error?.code == .accountDisabled && error?.stage == .verification)
            #expect(error?.recovery == .contactSupport)
            #expect(error?.userMessage == "This account is disabled.")
            #expect(error?.server?.code == .accountDisabled && error?.server?.httpStatus == 403)
        }
    }

    @Test("a verification failure keeps the verifier's code (origin_mismatch)")
    func verificationFailure() async throws {
        let server = FlowServer()
        try await server.run { transport in
            // A page on another origin under the same RP ID: the authenticator signs, the server refuses.
            let authenticator = server.authenticator { $0.origin = .web("http://evil.localhost:9999") }
            let client = PasskeyAuthClient(transport: transport, authenticator: authenticator)
            let error = await expectPasskeyError { () async throws(PasskeyError) in try await client.register(username: "ann") }
            #expect(error?.code == .server && error?.stage == .verification)
            #expect(error?.serverCode == .originMismatch)
        }
    }

    @Test("a passkey the server deleted: passkey_deleted_on_server, and the device forgets it; credential_unknown too, unless the server says another may hold it")
    func credentialUnknown() async throws {
        let server = FlowServer()
        try await server.run { transport in
            let authenticator = server.authenticator()
            let client = PasskeyAuthClient(transport: transport, authenticator: authenticator)
            let registered = try await client.register(username: "ann")
            let id = try #require(Base64URL.decode(registered.credentialId))
            try await server.repository.deleteCredential(id: id, userID: registered.userId)
            let deleted = await expectPasskeyError { () async throws(PasskeyError) in try await client.authenticate() }
            #expect(deleted?.serverCode == .passkeyDeletedOnServer)
            // WebAuthn L3 §5.1.10: the authenticator was told, so the next usernameless sign-in does not offer it again.
            #expect(try await authenticator.store.allCredentials().isEmpty)
            let none = await expectPasskeyError { () async throws(PasskeyError) in try await client.authenticate() }
            #expect(none?.code == .noCredentials)

            // A credential no account holds (here: its account is gone): the server sends the signal, and the device
            // forgets it.
            let other = server.authenticator()
            let otherClient = PasskeyAuthClient(transport: transport, authenticator: other)
            let bob = try await otherClient.register(username: "bob")
            try await server.repository.deleteUser(id: bob.userId)
            let unknown = await expectPasskeyError { () async throws(PasskeyError) in try await otherClient.authenticate() }
            #expect(unknown?.serverCode == .credentialUnknown)
            #expect(unknown?.server?.unknownCredential?.rpID == "localhost")
            #expect(try await other.store.allCredentials().isEmpty)
        }

        // A server that shares its RP ID with another (--no-unknown-credential-signal) sends no signal for a passkey
        // whose account it never knew: it may be the other server's, so the device keeps it.
        let shared = FlowServer { $0.signalUnknownCredentials = false }
        try await shared.run { transport in
            let authenticator = shared.authenticator()
            let client = PasskeyAuthClient(transport: transport, authenticator: authenticator)
            let carol = try await client.register(username: "carol")
            try await shared.repository.deleteUser(id: carol.userId)
            let unknown = await expectPasskeyError { () async throws(PasskeyError) in try await client.authenticate() }
            #expect(unknown?.serverCode == .credentialUnknown && unknown?.server?.unknownCredential == nil)
            #expect(try await authenticator.store.allCredentials().count == 1)
        }
    }

    @Test("a passkey the server refused to register is forgotten by the device; one the server may hold is kept")
    func refusedRegistration() async throws {
        let server = FlowServer()
        try await server.run { (transport: RouterTransport) async throws in
            // The options expire between the authenticator's step and verification: 400 challenge_invalid.
            var late = transport
            late.beforeSend = { request in if request.path == "verify-registration" { server.clock.advance(120) } }
            let authenticator = server.authenticator()
            let client = PasskeyAuthClient(transport: late, authenticator: authenticator)
            let refused = await expectPasskeyError { () async throws(PasskeyError) in try await client.register(username: "ann") }
            #expect(refused?.code == .invalidChallenge)
            #expect(try await authenticator.store.allCredentials().isEmpty, "the orphan passkey is gone from the device")

            // A network failure on the way back says nothing about what the server stored: the passkey stays.
            let offline = FlakyRegistration(inner: transport)
            let kept = server.authenticator()
            let keeping = PasskeyAuthClient(transport: offline, authenticator: kept)
            let failed = await expectPasskeyError { () async throws(PasskeyError) in try await keeping.register(username: "bo") }
            #expect(failed?.code == .network)
            #expect(try await kept.store.allCredentials().count == 1)
        }
    }

    @Test("authenticator errors pass through with their own code and stage")
    func authenticatorErrors() async throws {
        let server = FlowServer()
        try await server.run { transport in
            let empty = PasskeyAuthClient(transport: transport, authenticator: server.authenticator())
            let none = await expectPasskeyError { () async throws(PasskeyError) in try await empty.authenticate() }
            #expect(none?.code == .noCredentials && none?.stage == .authenticator)

            let scripted = ScriptedAuthenticator(registration: .cancelled, assertion: .noCredentials)
            let client = PasskeyAuthClient(transport: transport, authenticator: scripted)
            let cancelled = await expectPasskeyError { () async throws(PasskeyError) in try await client.register(username: "ann") }
            #expect(cancelled?.code == .cancelled && cancelled?.stage == .authenticator && cancelled?.recovery == PasskeyError.Recovery.none)
            #expect(await scripted.registrationRequests.first?.options.user.name == "ann")

            // Options for a website on another domain: refused before any sheet.
            let elsewhere = PasskeyAuthClient(
                transport: transport, authenticator: server.authenticator { $0.origin = .web("https://example.org") })
            let domain = await expectPasskeyError { () async throws(PasskeyError) in try await elsewhere.register(username: "bo") }
            #expect(domain?.code == .domainNotAssociated && domain?.stage == .options)
        }
    }

    @Test("cancelling the task while the sheet is up ends the flow with cancelled, and nothing is sent")
    func taskCancellation() async throws {
        let server = FlowServer()
        let sent = Collector<String>()
        try await server.run { transport in
            let recording = transport.intercepting { sent.append($0.path) }
            let scripted = ScriptedAuthenticator(delay: .seconds(30))
            let client = PasskeyAuthClient(transport: recording, authenticator: scripted)
            let task = startTask { () async throws(PasskeyError) in try await client.authenticate() }
            while await scripted.ceremonyInProgress == nil { try await Task.sleep(for: .milliseconds(5)) }
            task.cancel()
            let error = await task.value.failure
            #expect(error?.code == .cancelled && error?.stage == .authenticator)
        }
        #expect(sent.values == ["generate-authentication-options"])
    }

    @Test("a task cancelled before it starts stops at the options stage without a request")
    func cancelledBeforeStart() async throws {
        let client = PasskeyAuthClient(transport: CannedTransport(status: 200, body: "{}"), authenticator: ScriptedAuthenticator())
        let task = startTask { () async throws(PasskeyError) in
            while !Task.isCancelled { await Task.yield() }
            return try await client.register(username: "ann")
        }
        task.cancel()
        let error = await task.value.failure
        #expect(error?.code == .cancelled && error?.stage == .options)
    }

    @Test("answers that are not the API's: HTML errors, non-JSON success, options without a challenge")
    func malformedAnswers() async throws {
        let authenticator = ScriptedAuthenticator()
        let proxy = PasskeyAuthClient(transport: CannedTransport(status: 502, body: "<html>Bad Gateway</html>"), authenticator: authenticator)
        let gateway = await expectPasskeyError { () async throws(PasskeyError) in try await proxy.authenticate() }
        #expect(gateway?.code == .server && gateway?.serverCode == .httpStatus(502) && gateway?.server?.httpStatus == 502)
        // Markup is described, not shown: a wrong address must not print a page of HTML as the server's message.
        #expect(
            gateway?.server?.message
                == "HTTP 502 with an HTML page, not a passkey server's JSON error: is this the passkey server's address?")
        let text = PasskeyAuthClient(transport: CannedTransport(status: 502, body: "Bad Gateway\n"), authenticator: authenticator)
        let textError = await expectPasskeyError { () async throws(PasskeyError) in try await text.authenticate() }
        #expect(textError?.server?.message == "HTTP 502: Bad Gateway")
        let other = PasskeyAuthClient(transport: CannedTransport(status: 404, body: #"{"detail":"Not Found"}"#), authenticator: authenticator)
        let otherError = await expectPasskeyError { () async throws(PasskeyError) in try await other.authenticate() }
        #expect(otherError?.server?.message.hasPrefix("HTTP 404 with JSON without an \"error\" member") == true)

        let html = PasskeyAuthClient(transport: CannedTransport(status: 200, body: "<html></html>"), authenticator: authenticator)
        #expect(await expectPasskeyError { () async throws(PasskeyError) in try await html.authenticate() }?.code == .invalidResponse)

        let empty = PasskeyAuthClient(transport: CannedTransport(status: 200, body: "{}"), authenticator: authenticator)
        let options = await expectPasskeyError { () async throws(PasskeyError) in try await empty.register(username: "ann") }
        #expect(options?.code == .invalidOptions && options?.stage == .options)
    }
}

@Suite("URLSessionRelyingPartyTransport over real sockets", .serialized)
struct HTTPTransportTests {
    @Test("the whole flow over HTTP against the live server")
    func live() async throws {
        // The authenticator acts as an iOS app (origin https://<rp id>), so the server's URL needs no RP ID match.
        let server = FlowServer { $0.origins = ["https://localhost"] }
        try await server.runLive { url in
            let authenticator = server.authenticator { $0.origin = .appleApp }
            let client = PasskeyAuthClient(serverURL: url, authenticator: authenticator)
            let registered = try await client.register(username: "ann.lee+1", displayName: "Ann")
            #expect(registered.username == "ann.lee+1")
            let signedIn = try await client.authenticate(username: "ann.lee+1")
            #expect(signedIn.userId == registered.userId)
            let taken = await expectPasskeyError { () async throws(PasskeyError) in try await client.register(username: "ann.lee+1") }
            #expect(taken?.serverCode == .usernameTaken && taken?.server?.httpStatus == 409)
        }
    }

    @Test("prepare adapts every request after the transport's own headers; what it throws ends the request")
    func prepare() async throws {
        let server = FlowServer { $0.origins = ["https://localhost"] }
        try await server.runLive { url in
            let authenticator = server.authenticator { $0.origin = .appleApp }
            let seen = Collector<String>()
            let adapted = PasskeyAuthClient(serverURL: url, authenticator: authenticator, prepare: { request in
                seen.append("\(request.httpMethod ?? "") \(request.url?.path ?? "") \(request.value(forHTTPHeaderField: "Accept") ?? "")")
                request.setValue("app-trace-1", forHTTPHeaderField: "X-Trace")
            })
            _ = try await adapted.register(username: "ann")
            #expect(seen.values == ["GET /generate-registration-options application/json", "POST /verify-registration application/json"])
            // The app's headers win: a body said to be text is refused by the server.
            let text = PasskeyAuthClient(serverURL: url, authenticator: authenticator, prepare: { request in
                if request.httpMethod == "POST" { request.setValue("text/plain", forHTTPHeaderField: "Content-Type") }
            })
            let refused = await expectPasskeyError { () async throws(PasskeyError) in try await text.register(username: "bo") }
            #expect(refused?.server?.httpStatus == 415, "\(String(describing: refused))")
            struct NoSession: Error {}
            let failing = PasskeyAuthClient(serverURL: url, authenticator: authenticator, prepare: { _ in throw NoSession() })
            let failed = await expectPasskeyError { () async throws(PasskeyError) in try await failing.authenticate(username: "ann") }
            #expect(failed?.code == .network && failed?.reason.hasPrefix("the app's request adapter failed") == true, "\(String(describing: failed))")
            let own = PasskeyAuthClient(serverURL: url, authenticator: authenticator, prepare: { _ in throw PasskeyError.cancelled(stage: .network) })
            #expect(await expectPasskeyError { () async throws(PasskeyError) in try await own.authenticate(username: "ann") }?.code == .cancelled)
        }
    }

    @Test("a refused connection is network, at the options stage's transport")
    func refused() async throws {
        // Port 9 (discard) on loopback: nothing listens there on a test machine.
        let client = PasskeyAuthClient(serverURL: URL(string: "http://127.0.0.1:9")!, authenticator: ScriptedAuthenticator(), timeout: 5)
        let error = await expectPasskeyError { () async throws(PasskeyError) in try await client.register(username: "ann") }
        #expect(error?.code == .network && error?.stage == .network)
        #expect(error?.recovery == .checkConnection)
        #expect(error?.reason == "cannot reach 127.0.0.1:9: connection refused", "the port says which server was meant")
    }

    @Test("a URL error is said in words: the SDK's sentence for the codes it names; on Linux curl's sentence for the others, with a fix for an untrusted certificate")
    func urlErrorWords() {
        #expect(URLError(.cannotConnectToHost).plainDescription == "connection refused")
        let certificate = URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "SSL certificate problem: self-signed certificate"])
        let plainHTTP = URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "error:0A00010B:SSL routines::wrong version number"])
        #if canImport(Darwin)
        #expect(!certificate.plainDescription.isEmpty)
        #else
        #expect(certificate.plainDescription.hasPrefix("SSL certificate problem: self-signed certificate (this machine does not trust"))
        #expect(certificate.plainDescription.contains("update-ca-certificates"))
        #expect(plainHTTP.plainDescription == "error:0A00010B:SSL routines::wrong version number (is it an https:// URL for a server that speaks plain HTTP?)")
        #expect(URLError(.unknown).plainDescription == "network error -1", "without curl's sentence, the code")
        #endif
    }

    @Test("a server that does not answer in time is timeout; cancelling during the request is cancelled")
    func timeoutAndCancel() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let url = URL(string: "http://127.0.0.1:\(listener.port)")!
        let slow = PasskeyAuthClient(serverURL: url, authenticator: ScriptedAuthenticator(), timeout: 0.5)
        let timedOut = await expectPasskeyError { () async throws(PasskeyError) in try await slow.authenticate() }
        #expect(timedOut?.code == .timeout && timedOut?.stage == .network)

        let patient = PasskeyAuthClient(serverURL: url, authenticator: ScriptedAuthenticator(), timeout: 30)
        let task = startTask { () async throws(PasskeyError) in try await patient.authenticate() }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        let cancelled = await task.value.failure
        #expect(cancelled?.code == .cancelled && cancelled?.stage == .network)
    }
}

@Suite("Values that carry secrets")
struct RedactedDescriptionTests {
    @Test("a request's connect token and a result's signedPasskeyData never appear in their descriptions")
    func redacted() {
        let request = RelyingPartyRequest(
            method: .post, path: "connect/append/options", body: Array("{}".utf8), authorization: "Bearer pct_secret-token")
        for text in [String(describing: request), String(reflecting: request), "\(request)"] {
            #expect(!text.contains("secret-token"), "\(text)")
        }
        #expect(String(describing: request) == "POST connect/append/options (authorization: redacted, body: 2 bytes)")

        let status = LoginStatus.done(signedPasskeyData: "eyJhbGciOiJFUzI1NiJ9.payload.signature", username: "ann")
        for text in [String(describing: status), String(reflecting: status)] {
            #expect(!text.contains("eyJ") && text.contains("redacted"), "\(text)")
        }
        let result = PasskeyAuthenticationResult(
            verified: true, username: "ann", userId: "u1", credentialId: "AbC", isAnonymous: false,
            response: AuthenticationResponseJSON(
                id: "AbC", rawId: "AbC",
                response: AuthenticatorAssertionResponseJSON(clientDataJSON: "e30", authenticatorData: "AA", signature: "AA", userHandle: nil)),
            signedPasskeyData: "eyJhbGciOiJFUzI1NiJ9.payload.signature")
        for text in [String(describing: result), String(reflecting: result)] {
            #expect(!text.contains("eyJ") && text.contains("redacted") && text.contains("AbC"), "\(text)")
        }
    }
}

/// Passes requests on, but reports a network failure for `verify-registration` after the server answered it.
struct FlakyRegistration: RelyingPartyTransport {
    let inner: any RelyingPartyTransport
    func send(_ request: RelyingPartyRequest) async throws(PasskeyError) -> RelyingPartyResponse {
        let response = try await inner.send(request)
        if request.path == "verify-registration" { throw PasskeyError(.network, stage: .network, "connection lost (scripted)") }
        return response
    }
}
