import PasskeyRelyingParty
public import Hummingbird
public import Logging
import HummingbirdCore
import HummingbirdTLS
import HTTPTypes
import NIOCore
import NIOSSL
public import ServiceLifecycle
public import PasskeyCore
public import PasskeyStorage
import PasskeyAttestation
public import Foundation
import PasskeyAPI

/// The application type `buildApplication` returns.
public typealias PasskeyApplication = Application<RouterResponder<PasskeyRequestContext>>

/// The server over `repository`: routes, the HTTP edge, the background services (purging expired challenges and
/// events), and TLS when the configuration has a certificate. The executable opens the repository (its database
/// driver) and passes what the driver adds: `eventSink` and `services` (on PostgreSQL, the live log across
/// instances and closing the connections); tests pass the in-memory repository.
///
/// `onServerRunning` is called once the server listens, with the port it listens on (the one the system chose for
/// `--port 0`).
public func buildApplication<Repository: PasskeyRepository>(
    _ configuration: ServerConfiguration, repository: Repository, logger: Logger? = nil,
    onServerRunning: (@Sendable (Int) async -> Void)? = nil, broadcaster: EventBroadcaster = EventBroadcaster(), eventSink: (any EventSink)? = nil,
    services extra: [any Service] = []
) async throws -> PasskeyApplication {
    try configuration.validate()
    // A logger given is used at its own level (`--log-level`); the default one logs from info up.
    let logger = logger ?? Logger(label: "passkey-server", factory: { LogLineHandler(label: $0) })
    let router = buildRouter(configuration, repository: repository, broadcaster: broadcaster, eventSink: eventSink)
    await UsernameCollisionReport.log(repository, logger: logger)
    let address = BindAddress.hostname(configuration.host, port: configuration.port)
    let appConfiguration = ApplicationConfiguration(address: address, serverName: "passkey-server")
    var setupLink: String?
    if configuration.dashboard.printSetupLink,
        let token = try await AdminService(repository: repository, relyingParty: makeRelyingParty(configuration, forAdmins: true), configuration: configuration)
            .firstSetupToken()
    {
        // The link is a secret: printed once on the console (after what the server serves), never logged.
        let base = configuration.linkBase
        let hours = Int(configuration.dashboard.inviteLifetime / 3600)
        setupLink = "No dashboard admin yet. Open this one-time link within \(hours) hours to create one:\n  \(base)/dashboard/setup?token=\(token)\n\n"
    }
    let running: @Sendable (any Channel) async -> Void = { [setupLink] channel in
        await onServerRunning?(channel.localAddress?.port ?? configuration.port)
        if let setupLink { FileHandle.standardOutput.write(Data(setupLink.utf8)) }
    }
    let purger = ChallengePurger(
        repository: repository, logger: logger, dashboard: configuration.dashboard, broadcaster: broadcaster,
        events: EventRecorder(repository: repository, sink: eventSink ?? broadcaster))
    var services: [any Service] = [purger] + extra
    if configuration.webhooks.deliver {
        services.append(
            WebhookDelivery(
                repository: repository, settings: configuration.webhooks,
                events: EventRecorder(repository: repository, sink: eventSink ?? broadcaster), logger: logger))
    }
    let http1 = HTTPServerBuilder.http1(
        configuration: .init(
            additionalChannelHandlers: [MalformedRequestHandler(maximumBodySize: configuration.maximumBodySize, requestDeadline: RequestDeadline(configuration), logger: logger)], idleTimeout: .milliseconds(Int64(configuration.idleTimeout * 1000))))
    if let certificate = configuration.tlsCertificatePath, let key = configuration.tlsKeyPath {
        let chain: [NIOSSLCertificateSource]
        let privateKey: NIOSSLPrivateKey
        do { chain = try NIOSSLCertificate.fromPEMFile(certificate).map { NIOSSLCertificateSource.certificate($0) } } catch {
            throw ConfigurationError("--tls-cert \(certificate): not a readable PEM certificate chain (\(error))")
        }
        do { privateKey = try NIOSSLPrivateKey(file: key, format: .pem) } catch {
            throw ConfigurationError("--tls-key \(key): not a readable PEM private key (\(error))")
        }
        guard !chain.isEmpty else { throw ConfigurationError("--tls-cert \(certificate): no certificate in the file") }
        let tlsConfiguration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(privateKey))
        // A context made now checks the key against the certificate (BoringSSL), which would otherwise happen when the
        // server starts listening and say only "failedToLoadPrivateKey".
        do { _ = try NIOSSLContext(configuration: tlsConfiguration) } catch {
            throw ConfigurationError("--tls-key \(key) does not go with the certificate in --tls-cert \(certificate) (\(error))")
        }
        let server: HTTPServerBuilder = try .tls(http1, tlsConfiguration: tlsConfiguration)
        return Application(
            router: router, server: server, configuration: appConfiguration, services: services, onServerRunning: running, logger: logger)
    }
    return Application(
        router: router, server: http1, configuration: appConfiguration, services: services, onServerRunning: running, logger: logger)
}

/// The relying party a configuration describes.
/// `forAdmins`: the dashboard's own passkeys, which the attestation settings (end users' authenticators) do not cover,
/// so an operator is never locked out by a policy meant for the app's users.
public func makeRelyingParty(_ configuration: ServerConfiguration, origins: [String]? = nil, forAdmins: Bool = false) -> RelyingParty {
    let attestation =
        forAdmins
        ? AttestationPolicy()
        : AttestationPolicy(
            requireTrustedAttestation: configuration.requireTrustedAttestation,
            allowedAAGUIDs: configuration.allowedAAGUIDs.isEmpty ? nil : Set(configuration.allowedAAGUIDs.compactMap { AAGUID($0) }))
    return RelyingParty(
        id: configuration.rpID, name: configuration.rpName, origins: origins ?? configuration.effectiveOrigins,
        policy: CeremonyPolicy(
            userVerification: configuration.userVerification, algorithms: configuration.algorithms, attestation: attestation,
            counter: forAdmins || !configuration.allowCounterRegression ? .rejectRegression : .reportRegression,
            backup: BackupPolicy(requireUnchangedBackupEligibility: forAdmins || !configuration.allowBackupEligibilityChange)),
        attestationVerifiers: .standard(trustAnchors: forAdmins ? .empty : configuration.attestationTrustAnchors))
}

/// The address a request is counted under for rate limits and shown in the event log.
///
/// Behind a trusted proxy it is the last `X-Forwarded-For` entry: the address the proxy itself saw and appended (or
/// wrote, for proxies that replace the header). Earlier entries come from the client and prove nothing. IPv6 addresses
/// count by their /64 prefix, the block one subscriber usually holds, so one machine cannot spread its requests over
/// 2⁶⁴ addresses. A last entry that is not an IP address (`garbage-not-ip`, a client's text a misconfigured proxy
/// passed on) is not taken: it would be a fresh key for every request. The request then counts under the proxy's own
/// address, as all such requests do.
func clientKey(forwardedFor: [String], peer: String?) -> String {
    if let last = forwardedFor.flatMap({ $0.split(separator: ",") }).last, let key = addressKey(last.trimmingCharacters(in: .whitespaces)) {
        return key
    }
    guard let peer else { return "unknown" }
    return addressKey(peer) ?? peer
}

/// The rate-limit key of an address as proxies write it: an IPv4 address without the `:port` some proxies append
/// (and IPv4-mapped IPv6 addresses, `::ffff:a.b.c.d`, as IPv4), an IPv6 address (`[…]:port` too) as its /64
/// (`2001:db8:1:2::/64`); nil for anything that is neither.
func addressKey(_ address: String) -> String? {
    var text = Substring(address)
    if text.hasPrefix("["), let end = text.firstIndex(of: "]") { text = text[text.index(after: text.startIndex)..<end] }
    if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
    var ipv4 = in_addr()
    // `a.b.c.d` or `a.b.c.d:port`.
    let host = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
    if host.count <= 2, String(host[0]).withCString({ inet_pton(AF_INET, $0, &ipv4) }) == 1 { return String(host[0]) }
    var bytes = [UInt8](repeating: 0, count: 16)
    guard String(text).withCString({ inet_pton(AF_INET6, $0, &bytes) }) == 1 else { return nil }
    if bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
        return bytes.suffix(4).map(String.init).joined(separator: ".")
    }
    let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
    return groups.joined(separator: ":") + "::/64"
}

/// Every route, over any repository (tests pass the in-memory one).
public func buildRouter<Repository: PasskeyRepository>(
    _ configuration: ServerConfiguration, repository: Repository, now: @escaping @Sendable () -> Date = Date.init,
    random: RandomSource = .system, metrics: CeremonyMetrics = CeremonyMetrics(), broadcaster: EventBroadcaster = EventBroadcaster(),
    eventSink: (any EventSink)? = nil
) -> Router<PasskeyRequestContext> {
    // HEAD answers wherever GET does (monitors and link checkers probe with it), with the same headers and no body;
    // except where a GET starts a ceremony (``RouteTable/withoutHead``).
    let router = Router(context: PasskeyRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: RequestLoggingMiddleware())
    router.add(middleware: SecurityHeadersMiddleware(tls: configuration.tlsCertificatePath != nil, trustProxy: configuration.trustProxyHeaders))
    router.add(middleware: CORSAllowListMiddleware(allowedOrigins: Set(configuration.webOrigins)))
    router.add(middleware: FramingRulesMiddleware())
    router.add(middleware: CanonicalPathMiddleware())
    let routeTable = RouteTable(withoutHead: ["/generate-registration-options", "/generate-authentication-options"])
    router.add(middleware: MethodNotAllowedMiddleware(table: routeTable))
    let service = CeremonyService(
        repository: repository, relyingParty: makeRelyingParty(configuration), configuration: configuration.ceremonies, now: now, random: random)
    let trustProxy = configuration.trustProxyHeaders
    let issuer = TokenIssuer(
        repository: repository, issuer: configuration.connect.tokenIssuer ?? configuration.effectiveOrigins.first ?? configuration.defaultOrigin,
        audience: configuration.connect.tokenAudience ?? configuration.rpID, lifetime: configuration.connect.signedDataLifetime, now: now,
        random: random)
    let connect = ConnectService(ceremonies: service, issuer: issuer, settings: configuration.connect)
    let clientAddress: @Sendable (Request, PasskeyRequestContext) -> String = { request, context in
        let forwarded = trustProxy ? HTTPField.Name("X-Forwarded-For").map { request.headers[values: $0] } ?? [] : []
        return clientKey(forwardedFor: forwarded, peer: context.remoteAddress?.ipAddress)
    }
    // Recorded events go to the live streams: straight to this instance's broadcaster, or through `eventSink` (which
    // feeds it, with the other instances' events, on PostgreSQL).
    let events = EventRecorder(repository: repository, sink: eventSink ?? broadcaster, now: now)
    let steps = StepRecorder<PasskeyRequestContext>(metrics: metrics, events: events, rpID: configuration.rpID, clientAddress: clientAddress)
    let throttle = ClientThrottle<PasskeyRequestContext>(
        limiter: RateLimiter(perMinute: configuration.optionsPerMinute, now: now), clientAddress: clientAddress)
    let bodyLimit = configuration.maximumBodySize
    let ceremonies = CeremonyController<Repository, PasskeyRequestContext>(
        service: service, bodyLimit: bodyLimit, steps: steps, throttle: throttle,
        signer: { subject throws(RelyingPartyError) in try await issuer.sign(subject).token })
    // One way to change accounts, passkeys and links, for the backend API, the app and the dashboard alike.
    let accounts = AccountAdministration(
        repository: repository, audit: EventAuditLog(events: events, logger: Logger(label: "passkey-server.audit")), rpID: configuration.rpID,
        now: now, random: random)
    ceremonies.addRoutes(to: router)
    ConnectController(service: connect, accounts: accounts, steps: steps, throttle: throttle, bodyLimit: bodyLimit).addRoutes(to: router)
    AccountLinkController(service: connect, accounts: accounts, steps: steps, throttle: throttle, bodyLimit: bodyLimit, linkBase: configuration.linkBase)
        .addRoutes(to: router)
    let webhookEndpoints = WebhookEndpoints(
        repository: repository, receivers: configuration.webhooks.receivers, resolver: configuration.webhooks.resolver, now: now, random: random)
    WebhookController(endpoints: webhookEndpoints, connect: connect, steps: steps, bodyLimit: bodyLimit).addRoutes(to: router)
    WellKnownController<PasskeyRequestContext>(configuration: configuration).addRoutes(to: router)
    // The served OpenAPI document names this server: its public URL, or its default address; when both are unknown
    // (web origins given, no --public-url), "/", which readers resolve against where they fetched the document.
    DemoPageController<PasskeyRequestContext>(servers: [configuration.linkBaseIsGuessed ? "/" : configuration.linkBase]).addRoutes(to: router)
    DashboardController<Repository, PasskeyRequestContext>(
        admins: AdminService(
            repository: repository, relyingParty: makeRelyingParty(configuration, origins: configuration.dashboardOrigins, forAdmins: true),
            configuration: configuration, now: now, random: random),
        accounts: accounts, repository: repository, configuration: configuration, events: events, broadcaster: broadcaster, steps: steps,
        throttle: ClientThrottle(limiter: RateLimiter(perMinute: configuration.optionsPerMinute, now: now), clientAddress: clientAddress), now: now
    ).addRoutes(to: router)
    let metricsTokenHash = configuration.metricsToken.map(BearerSecrets.hash)
    router.get("metrics") { request, _ in
        if let metricsTokenHash {
            // Compares hashes: equal-length values, no early exit on the secret's bytes.
            let sent = BearerSecrets.bearer(request.headers[.authorization]).map(BearerSecrets.hash)
            guard sent == metricsTokenHash else {
                var response = Response.error(
                    APIError(.metricsTokenInvalid, "Send the metrics token as Authorization: Bearer <token>."))
                response.headers[.wwwAuthenticate] = #"Bearer realm="metrics""#
                return response
            }
        }
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
    }
    let health = DatabaseHealth { _ = try await repository.challengeCount() }
    router.get("health") { _, context in
        guard await health.probe(logger: context.logger) else {
            return Response.json(HealthAnswer.databaseUnreachable, status: .serviceUnavailable)
        }
        return Response.json(HealthAnswer.healthy)
    }
    routeTable.set(router.routes.map { (path: $0.path.description, method: $0.method.rawValue) })
    return router
}

/// Removes expired challenges, tokens, retired keys, timed-out admin sessions, expired invites and events past their
/// retention every 30 seconds, so storage stays bounded. At shutdown it ends the live event streams, so open dashboard
/// tabs do not hold the server up.
struct ChallengePurger<Repository: PasskeyRepository>: Service {
    let repository: Repository
    let logger: Logger
    let dashboard: DashboardConfiguration
    let broadcaster: EventBroadcaster
    /// Where the expiry of unused recovery and onboarding links is reported (`link.expire`).
    let events: EventRecorder

    func run() async throws {
        await withGracefulShutdownHandler {
            await purgeLoop()
        } onGracefulShutdown: {
            Task { await broadcaster.close() }
        }
        await broadcaster.close()
    }

    func purgeLoop() async {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            // The wait ends at once when the server shuts down.
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(30)) }
            } catch { return }
            await broadcaster.keepAlive()
            do {
                let purged = try await repository.purgeExpiredChallenges(now: Date())
                if purged > 0 { logger.debug("purged expired challenges", metadata: ["count": "\(purged)"]) }
                // Unused links that expired are reported, one event each, before the other expired tokens go.
                let expiredLinks = try await repository.takeExpiredConnectTokens(types: ConnectTokenType.accountLinks.map(\.rawValue), now: Date())
                for link in expiredLinks { await events.record(Self.expiryEvent(link), logger: logger) }
                try await repository.purgeExpiredTokens(now: Date())
                try await repository.deleteRetiredSigningKeys(now: Date())
                let now = Date()
                try await repository.deleteEvents(olderThan: now.addingTimeInterval(-Double(dashboard.eventRetentionDays) * 86_400))
                // Delivered and failed webhook messages are kept as long as events, for the dashboard.
                try await repository.purgeWebhookDeliveries(before: now.addingTimeInterval(-Double(dashboard.eventRetentionDays) * 86_400))
                try await repository.purgeAdminSessions(
                    createdBefore: now.addingTimeInterval(-dashboard.sessionAbsoluteTimeout),
                    idleBefore: now.addingTimeInterval(-dashboard.sessionIdleTimeout), now: now)
            } catch {
                logger.warning("could not purge expired challenges", metadata: ["error": "\(error.code)"])
            }
        }
    }
}

extension ChallengePurger {
    /// The event of a recovery or onboarding link that expired unused: the account it was for, and when.
    static func expiryEvent(_ link: ConnectTokenRecord) -> EventRecord {
        let kind = link.type == ConnectTokenType.accountLinkReset.rawValue ? "recovery link (replacing the passkeys)" : "link"
        return EventRecord(
            time: link.expiresAt, kind: "link.expire", result: .success, explanation: "\(kind) expired unused", userID: link.userID)
    }
}

/// Closes the storage's connections once the server has stopped taking requests (graceful shutdown stops services in
/// reverse order, so the HTTP server is already gone).
public struct StorageShutdown: Service {
    let close: @Sendable () async -> Void

    public init(_ close: @escaping @Sendable () async -> Void) { self.close = close }

    public func run() async throws {
        try? await gracefulShutdown()
        await close()
    }
}
