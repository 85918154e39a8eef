public import Hummingbird
import HTTPTypes

/// Security headers on every response, and JSON bodies for errors the router raises itself (404, 405, 413…).
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    let tls: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as APIError {
            response = Response.json(error.body, status: error.status)
        } catch let error as HTTPError {
            let code = switch error.status.code {
            case 404: "not_found"
            case 405: "method_not_allowed"
            case 413: "request_too_large"
            default: error.status.code < 500 ? "bad_request" : "internal_error"
            }
            let message = error.status.code < 500 ? (error.body ?? error.status.reasonPhrase) : "The server failed. The error was logged."
            response = Response.json(.object(["error": .string(code), "message": .string(message)]), status: error.status)
        } catch {
            context.logger.error("unhandled error", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            response = Response.json(
                .object(["error": "internal_error", "message": "The server failed. The error was logged."]), status: .internalServerError)
        }
        response.headers[.xContentTypeOptions] = "nosniff"
        for (name, value) in [("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"), ("Cross-Origin-Opener-Policy", "same-origin")] {
            if let field = HTTPField.Name(name) { response.headers[field] = value }
        }
        if response.headers[.contentSecurityPolicy] == nil {
            response.headers[.contentSecurityPolicy] = "default-src 'none'; frame-ancestors 'none'"
        }
        if tls { response.headers[.strictTransportSecurity] = "max-age=31536000" }
        return response
    }
}

/// CORS for the configured web origins only (preflight included): other origins get no CORS headers.
struct CORSAllowListMiddleware<Context: RequestContext>: RouterMiddleware {
    let allowedOrigins: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], allowedOrigins.contains(origin) else {
            return try await next(request, context)
        }
        var response: Response
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            response = Response(status: .noContent)
            response.headers[.accessControlAllowMethods] = "GET, POST, OPTIONS"
            response.headers[.accessControlAllowHeaders] = request.headers[.accessControlRequestHeaders] ?? "content-type"
            response.headers[.accessControlMaxAge] = "600"
        } else {
            response = try await next(request, context)
        }
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.vary] = "Origin"
        return response
    }
}
