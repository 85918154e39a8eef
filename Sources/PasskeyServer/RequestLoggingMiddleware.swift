public import Hummingbird
import HTTPTypes
import Logging
import Foundation

/// Gives every request an id (the caller's `X-Request-Id` when it is a short token, otherwise a new one), puts it in
/// the logger's metadata and the response, and logs one line per request: method, path (never the query, which can
/// hold a username), status and duration. Bodies are never logged: they hold challenges and credentials.
struct RequestLoggingMiddleware<Context: RequestContext>: RouterMiddleware {
    static var requestIDHeader: HTTPField.Name? { HTTPField.Name("X-Request-Id") }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let incoming = Self.requestIDHeader.flatMap { request.headers[$0] }
        let id = incoming.flatMap { $0.count <= 64 && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } ? $0 : nil }
            ?? UUID().uuidString.lowercased()
        context.logger[metadataKey: "request_id"] = .string(id)
        let start = ContinuousClock.now
        var response = try await next(request, context)
        if let header = Self.requestIDHeader { response.headers[header] = id }
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        context.logger.info(
            "request",
            metadata: [
                "method": .string(request.method.rawValue), "path": .string(request.uri.path),
                "status": .stringConvertible(response.status.code), "ms": .string(String(format: "%.1f", milliseconds)),
            ])
        return response
    }
}
