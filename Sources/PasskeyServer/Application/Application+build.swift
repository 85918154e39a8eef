import PasskeyRelyingParty
public import Hummingbird
public import Logging
import HummingbirdCore
import HummingbirdTLS
import HTTPTypes
import NIOCore
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
    let logger = logger ?? defaultLogger()
    let base = configuration
    let (configuration, catalog, metadataNumber) = try await MetadataLoading.load(into: base, from: repository, logger: logger)
    let relyingParty = RelyingPartyInForce(makeRelyingParty(configuration))
    let catalogInForce = InForce(catalog)
    // One event log for the routes and the background services: stored, then shown live (through `eventSink` on
    // PostgreSQL, which feeds the broadcaster with every instance's events).
    let events = EventRecorder(repository: repository, sink: eventSink ?? broadcaster)
    let router = buildRouter(
        configuration, repository: repository, relyingParty: relyingParty, catalog: catalogInForce, now: Date.init, random: .system, metrics: CeremonyMetrics(),
        broadcaster: broadcaster, events: events, logger: logger)
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
    let purger = ChallengePurger(repository: repository, logger: logger, dashboard: configuration.dashboard, broadcaster: broadcaster, events: events)
    var services: [any Service] = [purger, MetadataRefresh(
            base: base, repository: repository, relyingParty: relyingParty, catalog: catalogInForce, loaded: metadataNumber, logger: logger)] + extra
    if configuration.webhooks.deliver {
        services.append(
            WebhookDelivery(repository: repository, settings: configuration.webhooks, events: events, logger: logger))
    }
    let http1 = HTTPServerBuilder.http1(
        configuration: .init(
            additionalChannelHandlers: [MalformedRequestHandler(maximumBodySize: configuration.maximumBodySize, requestDeadline: RequestDeadline(configuration), logger: logger)], idleTimeout: .milliseconds(Int64(configuration.idleTimeout * 1000))))
    if let tls = try TLSServer.configuration(configuration) {
        let server: HTTPServerBuilder = try .tls(http1, tlsConfiguration: tls)
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
            allowedAAGUIDs: configuration.allowedAAGUIDs.isEmpty ? nil : Set(configuration.allowedAAGUIDs.compactMap { AAGUID($0) }),
            compromisedAAGUIDs: configuration.allowCompromisedAuthenticators ? [] : configuration.compromisedAAGUIDs,
            keyCompromisedAAGUIDs: configuration.allowCompromisedAuthenticators ? [] : configuration.keyCompromisedAAGUIDs,
            // A policy with no BLOB to judge by admits nothing.
            admittedAAGUIDs: configuration.admitAuthenticators == .any ? nil : configuration.admittedAAGUIDs ?? [],
            deniedAAGUIDs: Set(configuration.deniedAAGUIDs.compactMap { AAGUID($0) }), modelStatements: configuration.modelStatements)
    return RelyingParty(
        id: configuration.rpID, name: configuration.rpName, origins: origins ?? configuration.effectiveOrigins,
        policy: CeremonyPolicy(
            userVerification: configuration.userVerification, algorithms: configuration.algorithms, attestation: attestation,
            counter: forAdmins || !configuration.allowCounterRegression ? .rejectRegression : .reportRegression,
            backup: BackupPolicy(
                allowBackupEligible: forAdmins || !configuration.requireDeviceBound,
                requireUnchangedBackupEligibility: forAdmins || !configuration.allowBackupEligibilityChange)),
        attestationVerifiers: .standard(trustAnchors: forAdmins ? .empty : configuration.attestationTrustAnchors))
}

/// Every route, over any repository (tests pass the in-memory one).
public func buildRouter<Repository: PasskeyRepository>(
    _ configuration: ServerConfiguration, repository: Repository, now: @escaping @Sendable () -> Date = Date.init,
    random: RandomSource = .system, metrics: CeremonyMetrics = CeremonyMetrics(), broadcaster: EventBroadcaster = EventBroadcaster(),
    eventSink: (any EventSink)? = nil, catalog: AuthenticatorCatalog = .community
) -> Router<PasskeyRequestContext> {
    buildRouter(
        configuration, repository: repository, relyingParty: RelyingPartyInForce(makeRelyingParty(configuration)), catalog: InForce(catalog),
        now: now, random: random,
        metrics: metrics, broadcaster: broadcaster, events: EventRecorder(repository: repository, sink: eventSink ?? broadcaster, now: now),
        logger: defaultLogger())
}

/// The server's log when none is given: its own line format (``LogLineHandler``), from info up.
func defaultLogger() -> Logger { Logger(label: "passkey-server", factory: { LogLineHandler(label: $0) }) }

/// ``buildRouter(_:repository:now:random:metrics:broadcaster:eventSink:)`` with the application's event log, and its
/// logger for what is not a request's (an audit entry that could not be stored).
func buildRouter<Repository: PasskeyRepository>(
    _ configuration: ServerConfiguration, repository: Repository, relyingParty: RelyingPartyInForce, catalog: InForce<AuthenticatorCatalog>,
    now: @escaping @Sendable () -> Date,
    random: RandomSource, metrics: CeremonyMetrics, broadcaster: EventBroadcaster, events: EventRecorder, logger: Logger
) -> Router<PasskeyRequestContext> {
    // HEAD answers wherever GET does (monitors and link checkers probe with it), with the same headers and no body;
    // except where a GET starts a ceremony (``RouteTable/withoutHead``).
    let router = Router(context: PasskeyRequestContext.self, options: .autoGenerateHeadEndpoints)
    let routeTable = addEdgeMiddleware(to: router, configuration)
    let service = CeremonyService(
        repository: repository, relyingParty: relyingParty, configuration: configuration.ceremonies, now: now, random: random)
    let issuer = TokenIssuer(
        repository: repository, issuer: configuration.connect.tokenIssuer ?? configuration.effectiveOrigins.first ?? configuration.defaultOrigin,
        audience: configuration.connect.tokenAudience ?? configuration.rpID, lifetime: configuration.connect.signedDataLifetime, now: now,
        random: random)
    let connect = ConnectService(ceremonies: service, issuer: issuer, settings: configuration.connect)
    let clientAddress = clientAddressReader(trustProxy: configuration.trustProxyHeaders)
    let steps = StepRecorder<PasskeyRequestContext>(metrics: metrics, events: events, rpID: configuration.rpID, clientAddress: clientAddress)
    let throttle = ClientThrottle<PasskeyRequestContext>(
        limiter: RateLimiter(perMinute: configuration.optionsPerMinute, now: now), clientAddress: clientAddress)
    let bodyLimit = configuration.maximumBodySize
    let ceremonies = CeremonyController<Repository, PasskeyRequestContext>(
        service: service, bodyLimit: bodyLimit, steps: steps, throttle: throttle,
        signer: { subject throws(RelyingPartyError) in try await issuer.sign(subject).token })
    // One way to change accounts, passkeys and links, for the backend API, the app and the dashboard alike.
    let accounts = AccountAdministration(
        repository: repository, audit: EventAuditLog(events: events, logger: logger), rpID: configuration.rpID,
        now: now, random: random)
    ceremonies.addRoutes(to: router)
    ConnectController(service: connect, accounts: accounts, catalog: catalog, steps: steps, throttle: throttle, bodyLimit: bodyLimit).addRoutes(to: router)
    AccountLinkController(service: connect, accounts: accounts, steps: steps, throttle: throttle, bodyLimit: bodyLimit, linkBase: configuration.linkBase)
        .addRoutes(to: router)
    let webhookEndpoints = WebhookEndpoints(
        repository: repository, receivers: configuration.webhooks.receivers, resolver: configuration.webhooks.resolver, now: now, random: random)
    WebhookController(endpoints: webhookEndpoints, connect: connect, steps: steps, bodyLimit: bodyLimit).addRoutes(to: router)
    OpenIDClientController<Repository, PasskeyRequestContext>(
        clients: OpenIDClients(repository: repository, audit: EventAuditLog(events: events, logger: logger), now: now, random: random), connect: connect,
        steps: steps, bodyLimit: bodyLimit
    ).addRoutes(to: router)
    if let oidcIssuer = configuration.oidcIssuer {
        let provider = OpenIDProvider(
            settings: OpenIDSettings(issuer: oidcIssuer, sessionLifetime: configuration.oidcSessionLifetime), ceremonies: service,
            signer: OpenIDSigner(tokens: issuer, repository: repository))
        OpenIDController<Repository, PasskeyRequestContext>(
            provider: provider, configuration: configuration, steps: steps, bodyLimit: bodyLimit
        ).addRoutes(to: router)
    }
    WellKnownController<PasskeyRequestContext>(configuration: configuration).addRoutes(to: router)
    // The served OpenAPI document names this server: its public URL, or its default address; when both are unknown
    // (web origins given, no --public-url), "/", which readers resolve against where they fetched the document.
    DemoPageController<PasskeyRequestContext>(servers: [configuration.linkBaseIsGuessed ? "/" : configuration.linkBase]).addRoutes(to: router)
    DashboardController<Repository, PasskeyRequestContext>(
        admins: AdminService(
            repository: repository, relyingParty: makeRelyingParty(configuration, origins: configuration.dashboardOrigins, forAdmins: true),
            configuration: configuration, now: now, random: random),
        accounts: accounts, repository: repository, configuration: configuration, catalog: catalog, events: events, broadcaster: broadcaster, steps: steps,
        throttle: ClientThrottle(limiter: RateLimiter(perMinute: configuration.optionsPerMinute, now: now), clientAddress: clientAddress), now: now
    ).addRoutes(to: router)
    OperationsController<PasskeyRequestContext>(metrics: metrics, metricsToken: configuration.metricsToken, health: DatabaseHealth { _ = try await repository.challengeCount() })
        .addRoutes(to: router)
    routeTable.set(router.routes.map { (path: $0.path.description, method: $0.method.rawValue) })
    return router
}

/// The middleware every request passes, outermost first: the request log, security headers, CORS, framing rules,
/// canonical paths, and 405 for a known path with another method (its table is filled once the routes are added).
func addEdgeMiddleware(to router: Router<PasskeyRequestContext>, _ configuration: ServerConfiguration) -> RouteTable {
    router.add(middleware: RequestLoggingMiddleware())
    router.add(middleware: SecurityHeadersMiddleware(tls: configuration.tlsCertificatePath != nil, trustProxy: configuration.trustProxyHeaders))
    router.add(middleware: CORSAllowListMiddleware(allowedOrigins: Set(configuration.webOrigins)))
    router.add(middleware: FramingRulesMiddleware())
    router.add(middleware: CanonicalPathMiddleware())
    let routeTable = RouteTable(withoutHead: ["/generate-registration-options", "/generate-authentication-options"])
    router.add(middleware: MethodNotAllowedMiddleware(table: routeTable))
    return routeTable
}

/// The address a request counts under (``clientKey(forwardedFor:peer:)``): the peer's, or behind a trusted proxy the
/// last `X-Forwarded-For` entry.
func clientAddressReader(trustProxy: Bool) -> @Sendable (Request, PasskeyRequestContext) -> String {
    { request, context in
        let forwarded = trustProxy ? HTTPField.Name("X-Forwarded-For").map { request.headers[values: $0] } ?? [] : []
        return clientKey(forwardedFor: forwarded, peer: context.remoteAddress?.ipAddress)
    }
}
