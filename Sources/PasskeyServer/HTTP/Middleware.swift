import PasskeyAPI
import PasskeyRelyingParty
import Foundation
import Hummingbird
import HTTPTypes
import Logging

/// The security headers every answer carries: added by ``SecurityHeadersMiddleware`` to what the routes answer, and
/// written directly by the handlers that answer before the routes (unparseable requests, a refused `Expect`).
enum SecurityHeaders {
    static let fields: [HTTPField] = [
        HTTPField(name: .xContentTypeOptions, value: "nosniff"),
        HTTPField(name: .contentSecurityPolicy, value: "default-src 'none'; frame-ancestors 'none'"),
    ] + [("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"), ("Cross-Origin-Opener-Policy", "same-origin")].compactMap { name, value in
        HTTPField.Name(name).map { HTTPField(name: $0, value: value) }
    }

    /// The head of a JSON error answered below the routes, after which the connection closes; `requestID` is the one
    /// its log line names (``RequestLog/refused(_:status:code:method:path:)``).
    static func closingErrorFields(bodyCount: Int, requestID: String) -> HTTPFields {
        var fields: HTTPFields = [
            .contentType: "application/json; charset=utf-8", .contentLength: String(bodyCount), .connection: "close", .cacheControl: "no-store",
        ]
        if let name = RequestLog.requestIDHeader { fields[name] = requestID }
        fields.append(contentsOf: Self.fields)
        return fields
    }
}

/// Security headers on every response, and JSON bodies for errors the router raises itself (404, 405, 413…).
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Served over TLS directly (`--tls-cert`).
    let tls: Bool
    /// Behind a trusted proxy, whose `X-Forwarded-Proto: https` says the client used TLS.
    var trustProxy = false

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do { response = try await next(request, context) } catch { response = Self.response(for: error, logger: context.logger) }
        for field in SecurityHeaders.fields where field.name != .contentSecurityPolicy || response.headers[.contentSecurityPolicy] == nil {
            // A page's own policy (the demo page, the dashboard) stays.
            response.headers[field.name] = field.value
        }
        // HSTS only on answers that went out over TLS: a browser ignores it over plain HTTP anyway, and sending it on
        // http://localhost would pin nothing useful.
        if ServerConfiguration.cameOverTLS(request.headers, directTLS: tls, trustProxy: trustProxy) {
            response.headers[.strictTransportSecurity] = "max-age=31536000"
        }
        return response
    }

    /// The JSON error answer for whatever a handler or the router threw: the error's own code and status, or a bare
    /// `internal_error` (logged with its type only) for anything unexpected.
    static func response(for error: any Error, logger: Logger) -> Response {
        switch error {
        case let error as APIError:
            return Response.error(error)
        case let error as RelyingPartyError:
            return Response.error(APIError(error))
        case let error as HTTPError:
            let code: ErrorCode = switch error.status.code {
            case 404: .notFound
            case 405: .methodNotAllowed
            case 413: .requestTooLarge
            default: error.status.code < 500 ? .badRequest : .internalError
            }
            // The router's own 404 has no text: say what it means, in the words of the other "no such path" answers.
            let fallback = error.status.code == 404 ? "No such path." : error.status.reasonPhrase
            let message = error.status.code < 500 ? (error.body ?? fallback) : "The server failed. The error was logged."
            var response = Response.json(ErrorAnswer(error: code, message: message), status: error.status)
            for field in error.headers where field.name != .contentType && field.name != .contentLength { response.headers.append(field) }
            return response
        default:
            logger.error("unhandled error", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            return Response.json(
                ErrorAnswer(error: .internalError, message: "The server failed. The error was logged."), status: .internalServerError)
        }
    }
}

/// CORS for the configured web origins only (preflight included): other origins get no CORS headers.
struct CORSAllowListMiddleware<Context: RequestContext>: RouterMiddleware {
    let allowedOrigins: Set<String>

    /// The methods and request headers the API uses (the connect endpoints add PATCH, DELETE and `Authorization`).
    static var allowedMethods: String { "GET, POST, PATCH, DELETE, OPTIONS" }
    static var allowedHeaders: String { "content-type, authorization" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let allowed = request.headers[.origin].flatMap { allowedOrigins.contains($0) ? $0 : nil }
        var response: Response
        if allowed == nil, let origin = request.headers[.origin], request.method == .options,
            request.headers[.accessControlRequestMethod] != nil
        {
            // A preflight from an origin not configured: say so, instead of the 405 the router would give OPTIONS.
            response = Response.error(
                APIError(
                    .originNotAllowed,
                    "Cross-origin requests from \(APIError.clipped(origin)) are not allowed: it is not one of this server's web origins (--origin)."))
        } else if allowed != nil, request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            response = Response(status: .noContent)
            response.headers[.accessControlAllowMethods] = Self.allowedMethods
            response.headers[.accessControlAllowHeaders] = Self.allowedHeaders
            response.headers[.accessControlMaxAge] = "600"
        } else {
            // Errors too (404, 413, …) get their JSON answer here, so they carry the CORS headers, or browser code could
            // not read them.
            do { response = try await next(request, context) } catch {
                response = SecurityHeadersMiddleware<Context>.response(for: error, logger: context.logger)
            }
        }
        if let allowed {
            response.headers[.accessControlAllowOrigin] = allowed
            // Browser code may read when to come back after a 429.
            if response.headers[.retryAfter] != nil { response.headers[.accessControlExposeHeaders] = "Retry-After" }
        }
        // The answer depends on Origin (errors too): a shared cache must not hand one origin's answer to another.
        response.headers.append(HTTPField(name: .vary, value: "Origin"))
        return response
    }
}

/// 404 for a path written other than its one canonical way: a trailing slash (`/metrics/`) or an empty component
/// (`//metrics`, `/metrics//`).
///
/// Hummingbird's router skips empty components, so these reached the route they resemble, past any proxy rule written
/// for the exact path: behind nginx's `location = /metrics { deny all; }`, `/metrics/` answered with the metrics.
struct CanonicalPathMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path == "/" || (!path.hasSuffix("/") && !path.contains("//")) else {
            throw HTTPError(.notFound, message: "No such path. Paths have no trailing slash and no empty segment.")
        }
        return try await next(request, context)
    }
}

/// 405 with `Allow` for a path that exists under other methods (the router alone answers 404 for any mismatch), so a
/// client that used the wrong method is told so. Also for HEAD on a path whose GET changes state (``RouteTable/withoutHead``).
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    let table: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .head, table.withoutHead.contains(request.uri.path) {
            let allowed = table.methods(forPath: request.uri.path)
            throw HTTPError(
                .methodNotAllowed, headers: [.allow: allowed.joined(separator: ", ")],
                message: "HEAD is not answered here: a GET makes a new ceremony. Use \(allowed.joined(separator: " or ")).")
        }
        do { return try await next(request, context) } catch let error as HTTPError where error.status == .notFound {
            let allowed = table.methods(forPath: request.uri.path)
            guard !allowed.isEmpty, !allowed.contains(request.method.rawValue) else { throw error }
            throw HTTPError(
                .methodNotAllowed, headers: [.allow: allowed.joined(separator: ", ")],
                message: "\(request.method.rawValue) is not allowed here; use \(allowed.joined(separator: " or ")).")
        }
    }
}

/// The routes' paths and methods, filled in once the router has all its routes (before it serves).
final class RouteTable: @unchecked Sendable {
    // Guarded by `lock`: written once by `buildRouter`, read by every unmatched request.
    private let lock = NSLock()
    private var routes: [(components: [String], method: String)] = []

    func set(_ descriptions: [(path: String, method: String)]) {
        let parsed = descriptions.map { (Self.components($0.path), $0.method) }
        lock.withLock { routes = parsed }
    }

    /// Paths whose GET changes state: the options endpoints store a challenge and count against the client's rate
    /// limit, so a HEAD (which monitors and link checkers send freely) is refused with 405 there instead of running it.
    let withoutHead: Set<String>

    init(withoutHead: Set<String> = []) { self.withoutHead = withoutHead }

    /// The methods routed for `path` (HEAD wherever GET is, except on ``withoutHead``), sorted.
    func methods(forPath path: String) -> [String] {
        let wanted = Self.components(path)
        var methods = Set<String>()
        for route in lock.withLock({ routes }) where Self.matches(route.components, wanted) {
            methods.insert(route.method)
            if route.method == "GET", !withoutHead.contains(path) { methods.insert("HEAD") }
        }
        return methods.sorted()
    }

    static func components(_ path: String) -> [String] { path.split(separator: "/").map(String.init) }

    /// A route's components against a request's: `{name}` and `*` match one component, `**` the rest.
    static func matches(_ pattern: [String], _ path: [String]) -> Bool {
        for (index, element) in pattern.enumerated() {
            if element == "**" { return true }
            guard index < path.count else { return false }
            let isCapture = (element.hasPrefix("{") && element.hasSuffix("}")) || element.hasPrefix(":") || element == "*"
            if !isCapture && element != path[index] { return false }
        }
        return pattern.count == path.count
    }
}
