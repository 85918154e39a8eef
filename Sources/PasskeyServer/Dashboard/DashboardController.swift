import PasskeyRelyingParty
import Foundation
import HTTPTypes
import Hummingbird
import PasskeyAPI
import Logging
import NIOCore
import PasskeyStorage
import PasskeyWire

/// The admin dashboard under `/dashboard` (docs/dashboard.md).
///
/// - Public: the sign-in and setup pages, their script and stylesheet, and the admin ceremony endpoints
///   (`/dashboard/api/login/…`, `/dashboard/api/setup/…`).
/// - Everything else needs an admin session cookie (or the break-glass token): pages redirect to the sign-in page,
///   data endpoints answer 401. State-changing requests with a cookie need the session's CSRF token in `X-CSRF-Token`;
///   deleting a passkey or a user also needs a passkey check from the last few minutes.
struct DashboardController<Repository: PasskeyRepository, Context: AdminRequestContext>: Sendable {
    let admins: AdminService<Repository>
    /// Every change to accounts, passkeys and links (the same service the backend API and the subcommands use).
    let accounts: AccountAdministration<Repository>
    let repository: Repository
    let configuration: ServerConfiguration
    let events: EventRecorder
    let broadcaster: EventBroadcaster
    /// Where a request came from, as events record it (the ceremony API's ``StepRecorder``).
    let steps: StepRecorder<Context>
    /// Names, icons and compromise reports of authenticator models.
    let catalog: InForce<AuthenticatorCatalog>
    let assets: [String: (bytes: [UInt8], type: String)]
    let now: @Sendable () -> Date
    /// Limits the unauthenticated admin ceremony options (sign-in, setup) per client.
    let throttle: ClientThrottle<Context>

    init(
        admins: AdminService<Repository>, accounts: AccountAdministration<Repository>, repository: Repository, configuration: ServerConfiguration,
        catalog: InForce<AuthenticatorCatalog>, events: EventRecorder,
        broadcaster: EventBroadcaster, steps: StepRecorder<Context>, throttle: ClientThrottle<Context>,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.throttle = throttle
        self.admins = admins
        self.accounts = accounts
        self.repository = repository
        self.configuration = configuration
        self.events = events
        self.broadcaster = broadcaster
        self.steps = steps
        self.now = now
        self.catalog = catalog
        var assets: [String: (bytes: [UInt8], type: String)] = [:]
        for (name, type) in [
            ("dashboard.js", "text/javascript; charset=utf-8"), ("qr.js", "text/javascript; charset=utf-8"), ("dashboard.css", "text/css; charset=utf-8"),
        ] {
            if let url = Bundle.module.url(forResource: "Public/" + name, withExtension: nil)
                ?? Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Public"),
                let data = try? Data(contentsOf: url)
            {
                assets[name] = ([UInt8](data), type)
            }
        }
        self.assets = assets
    }

    static var csrfHeader: HTTPField.Name? { HTTPField.Name("X-CSRF-Token") }
    static var contentSecurityPolicy: String {
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    }

    /// The session cookie's name for a request: `__Host-passkey_admin` (with `Secure`) when the client came over TLS,
    /// directly or through a trusted proxy that says so; `passkey_admin` over plain HTTP (localhost), where `__Host-`
    /// and `Secure` cannot be used. A `__Host-` cookie cannot be planted by a sibling subdomain or a plain-HTTP page.
    func cookieName(_ request: Request) -> String {
        configuration.cameOverTLS(request.headers) ? "__Host-passkey_admin" : "passkey_admin"
    }

    func cookie(_ value: String, maxAge: Int, for request: Request) -> String {
        let secure = configuration.cameOverTLS(request.headers)
        return "\(cookieName(request))=\(value); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(maxAge)" + (secure ? "; Secure" : "")
    }

    /// Every value the request carries under the session cookie's name, in order. A browser sends several cookies of
    /// one name when another site on the same host or a parent domain planted one (`Path=/dashboard` comes first):
    /// each is tried, so a planted value cannot lock an admin out.
    func sessionSecrets(_ request: Request) -> [String] { request.cookieValues(named: cookieName(request)) }

    /// The admin the request's session cookie or break-glass token names (``AdminSessionMiddleware`` asks once per
    /// request); nil without one.
    func principal(_ request: Request) async throws(APIError) -> AdminPrincipal? {
        let bearer = BearerSecrets.bearer(request.headers[.authorization])
        // At most a few values: more than that is not a browser's doing.
        for secret in sessionSecrets(request).prefix(4) {
            if let principal = try await admins.authenticate(sessionSecret: secret, bearer: bearer) { return principal }
        }
        return try await admins.authenticate(sessionSecret: nil, bearer: bearer)
    }

    // MARK: Responses

    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        var response = Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        response.headers[.contentSecurityPolicy] = contentSecurityPolicy
        return response
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// A page: redirects to sign-in without a session.
    func page(_ request: Request, _ context: Context, _ render: (AdminPrincipal) async throws(APIError) -> String) async -> Response {
        do throws(APIError) {
            guard let principal = try context.adminPrincipal() else { return Self.redirect("/dashboard/login") }
            return Self.html(try await render(principal))
        } catch {
            return Self.html(DashboardPages.layout(
                title: "Error", page: "error", principal: nil,
                body: "<section class=\"card narrow\"><h1>\(error.statusCode)</h1><p>\(DashboardPages.escape(error.message))</p></section>"),
                status: error.status)
        }
    }

    /// A data endpoint: 401 without a session; CSRF check for state-changing requests with a cookie; a fresh passkey
    /// check when `fresh`.
    func data<Answer: JSONRepresentable>(
        _ request: Request, _ context: Context, fresh: Bool = false, _ body: (AdminPrincipal) async throws(APIError) -> Answer
    ) async -> Response {
        await respond { () throws(APIError) -> Answer in try await body(try authorized(request, context, fresh: fresh)) }
    }

    /// The admin a data request comes from, once its session, CSRF token and (when `fresh`) passkey check pass.
    func authorized(_ request: Request, _ context: Context, fresh: Bool) throws(APIError) -> AdminPrincipal {
        guard let principal = try context.adminPrincipal() else { throw DashboardErrors.unauthorized }
        if request.method != .get && request.method != .head, let expected = principal.csrfToken {
            let sent = Self.csrfHeader.flatMap { request.headers[$0] } ?? ""
            guard BearerSecrets.hash(sent) == BearerSecrets.hash(expected) else { throw DashboardErrors.csrf }
        }
        if fresh, !admins.isFresh(principal) { throw DashboardErrors.freshCheckRequired }
        return principal
    }

    /// The admin behind a change, for its audit entry, with where the request came from.
    func actor(_ principal: AdminPrincipal, _ request: Request, _ context: Context) -> AuditActor {
        AuditActor.admin(named: principal.name).at(steps.metadata(request, context))
    }

    /// Records a dashboard action other than a change to an account (``AccountAdministration`` records those):
    /// signing in and out, set-up, webhooks. A refused one records its code and explanation.
    func recordAdmin(_ action: String, _ request: Request, _ context: Context, principal: AdminPrincipal?, error: APIError? = nil, detail: String? = nil) async {
        let actor = principal.map { AuditActor.admin(named: $0.name) } ?? AuditActor(description: nil)
        var entry = actor.at(steps.metadata(request, context)).entry(action, detail: error?.message ?? detail, rpID: configuration.rpID, time: now())
        if let error {
            entry.result = .failure
            entry.code = error.code.rawValue
            entry.expected = error.expected
            entry.received = error.received
        }
        await events.record(entry, logger: context.logger)
    }

    var bodyLimit: Int { configuration.maximumBodySize }

    // MARK: Routes

    func addRoutes(to router: Router<Context>) {
        addAssetRoutes(to: router)
        // Routes that act as a signed-in admin learn who from the middleware; the sign-in and set-up pages, their
        // ceremonies and the assets are public.
        let signedIn = router.group().add(middleware: AdminSessionMiddleware(dashboard: self))
        addCeremonyRoutes(to: router, signedIn: signedIn)
        addPageRoutes(to: signedIn)
        addDataRoutes(to: signedIn)
        addWebhookRoutes(to: signedIn)
        addOpenIDClientRoutes(to: signedIn)
    }

    func addAssetRoutes(to router: some RouterMethods<Context>) {
        let assets = assets
        for name in ["dashboard.js", "qr.js", "dashboard.css"] {
            router.get(RouterPath("dashboard/\(name)")) { _, _ in
                guard let asset = assets[name] else {
                    return Response.error(APIError(.notFound, "The dashboard's files are missing from this build."))
                }
                return Response(
                    status: .ok, headers: [.contentType: asset.type, .cacheControl: "no-cache"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
            }
        }
    }

    static func filter(_ request: Request) -> EventFilter {
        let query = request.formQuery
        func value(_ name: String) -> String? {
            guard let raw = query[name]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
            return String(raw.prefix(128))
        }
        return EventFilter(result: value("result").flatMap(EventRecord.Result.init(rawValue:)), user: value("user"), code: value("code"))
    }

    static var usersPerPage: Int { 25 }

    func usersPage(search rawSearch: String?, page: Int) async throws(APIError) -> (users: [(UserRecord, Int)], hasMore: Bool) {
        let search = rawSearch.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : String($0.prefix(64)) }
        do {
            let found = try await repository.users(matching: search, limit: Self.usersPerPage + 1, offset: (page - 1) * Self.usersPerPage)
            let shown = Array(found.prefix(Self.usersPerPage))
            let counts = try await repository.credentialCounts(userIDs: shown.map(\.id))
            return (shown.map { ($0, counts[$0.id] ?? 0) }, found.count > Self.usersPerPage)
        } catch { throw APIError(error) }
    }

    func findUser(_ id: String?) async throws(APIError) -> (UserRecord, [CredentialRecordEntry]) {
        do {
            guard let id, let user = try await repository.user(id: id) else { throw DashboardErrors.userNotFound }
            return (user, try await repository.credentials(userID: user.id))
        } catch let error as APIError { throw error } catch let error as StorageError { throw APIError(error) } catch {
            throw DashboardErrors.userNotFound
        }
    }

    func hours() async throws(APIError) -> [EventHourCount] {
        let end = now()
        let start = EventHourCount.hourStart(end.addingTimeInterval(-7 * 86_400 + 3600))
        do { return EventHourCount.filled(try await repository.eventCounts(from: start, to: end.addingTimeInterval(1)), from: start, to: end) } catch {
            throw APIError(error)
        }
    }

    static func pageNumber(_ request: Request) -> Int { max(1, min(request.formQuery["page"].flatMap(Int.init) ?? 1, 100_000)) }

    /// Server-Sent Events: each new event matching the request's filter as `event: ceremony` with the event's JSON.
    /// `?max=N` ends the stream after N events (tests, scripts). At each keep-alive the session is checked again: the
    /// stream ends once its admin signed out or the session passed its absolute timeout.
    func stream(_ request: Request, principal: AdminPrincipal) async -> Response {
        let admins = admins
        let filter = Self.filter(request)
        let limit = request.formQuery["max"].flatMap(Int.init)
        let broadcaster = broadcaster
        let (id, updates) = await broadcaster.subscribe(session: principal.sessionHash)
        var response = Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: ": connected\n\n"))
                var sent = 0
                updates: for await update in updates {
                    switch update {
                    case .keepAlive:
                        guard await admins.isStillValid(principal) else { break updates }
                        // A comment line: EventSource ignores it; a write to a client that left fails and ends the stream.
                        do { try await writer.write(ByteBuffer(string: ": keep-alive\n\n")) } catch {
                            await broadcaster.unsubscribe(id)
                            throw error
                        }
                    case .event(let event) where filter.matches(event):
                        let json = DashboardJSON.event(event).json.serialized()
                        do { try await writer.write(ByteBuffer(string: "id: \(event.id)\nevent: ceremony\ndata: \(json)\n\n")) } catch {
                            await broadcaster.unsubscribe(id)
                            throw error
                        }
                        sent += 1
                    case .event: continue
                    }
                    if let limit, sent >= limit { break }
                }
                await broadcaster.unsubscribe(id)
                try await writer.finish(nil)
            })
        if let field = HTTPField.Name("X-Accel-Buffering") { response.headers[field] = "no" }
        return response
    }

}
