import Hummingbird
import HTTPTypes
import Logging
import PasskeyAPI
import Foundation

/// Gives every request an id (the caller's `X-Request-Id` when it is a short ASCII token, otherwise a new one), puts it
/// in the logger's metadata and the response, and logs one line per request: method, path (never the query, which can
/// hold a username, and `{id}` in place of the user id of the backend API's `/users/…` paths, which is often an email
/// address), status and duration. Bodies are never logged: they hold challenges and credentials.
struct RequestLoggingMiddleware<Context: RequestContext>: RouterMiddleware {
    /// ASCII letters, digits, `-`, `_` and `.`: what request ids from proxies and tracing systems are made of.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let incoming = RequestLog.requestIDHeader.flatMap { request.headers[$0] }
        let id = incoming.flatMap { $0.utf8.count <= 64 && $0.utf8.allSatisfy(Self.isTokenByte) ? $0 : nil }
            ?? RequestLog.newRequestID()
        context.logger[metadataKey: "request_id"] = .string(id)
        let start = ContinuousClock.now
        var response = try await next(request, context)
        if let header = RequestLog.requestIDHeader { response.headers[header] = id }
        let elapsed = ContinuousClock.now - start
        // A request that failed is a `notice` line: `--log-level notice` keeps failures and drops what went well.
        context.logger.log(
            level: response.status.code >= 400 ? .notice : .info, "request",
            metadata: [
                "method": .string(request.method.rawValue), "path": .string(RequestLog.loggedPath(request.uri.path)),
                "status": .stringConvertible(response.status.code), "ms": .string(RequestLog.milliseconds(elapsed)),
            ])
        return response
    }
}

/// What every request's log line shares, for the lines the routes write (``RequestLoggingMiddleware``) and those of the
/// requests answered below them.
enum RequestLog {
    static var requestIDHeader: HTTPField.Name? { HTTPField.Name("X-Request-Id") }

    /// `path` as logged, without the ids in it: a user id is often an email address, and a credential id is not for logs
    /// either. The segment after `users` becomes `{id}`, the one after `passkeys` `{credentialId}`, wherever they are:
    /// `/users/ann@example.com/passkeys/AbC` is `/users/{id}/passkeys/{credentialId}`, and so are the dashboard's and
    /// the connect API's paths.
    static func loggedPath(_ path: String) -> String {
        guard containsBytes(path, "/users/") || containsBytes(path, "/passkeys/") else { return path }
        var segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for index in segments.indices.dropFirst() where !segments[index].isEmpty {
            switch segments[index - 1] {
            case "users": segments[index] = "{id}"
            case "passkeys": segments[index] = "{credentialId}"
            default: break
            }
        }
        return segments.joined(separator: "/")
    }

    /// Whether `path` contains `part`, compared as bytes: Foundation's `contains` (this file imports Foundation) goes
    /// through `NSString` on Linux, which cost more than the rest of the request's line.
    static func containsBytes(_ path: String, _ part: StaticString) -> Bool {
        part.withUTF8Buffer { needle in
            let bytes = path.utf8
            guard let first = needle.first, bytes.count >= needle.count else { return false }
            var start = bytes.startIndex
            while let found = bytes[start...].firstIndex(of: first) {
                if bytes[found...].starts(with: needle) { return true }
                start = bytes.index(after: found)
            }
            return false
        }
    }

    /// A random (version 4) UUID, lowercased. From the system generator (`getrandom`): Foundation's `UUID()` opens
    /// `/dev/urandom` for each id on Linux, a file open per request; written here as hex without Foundation's formatter.
    static func newRequestID() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = (generator.next() as UInt64) & 0xFFFF_FFFF_FFFF_0FFF | 0x0000_0000_0000_4000  // version 4
        let low = (generator.next() as UInt64) & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000  // variant 10
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var index = 0
            for nibble in 0..<32 {
                if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                    buffer[index] = UInt8(ascii: "-")
                    index += 1
                }
                let word = nibble < 16 ? high : low
                let value = Int(truncatingIfNeeded: word >> UInt64(60 - 4 * (nibble % 16))) & 0xF
                buffer[index] = digits.withUTF8Buffer { $0[value] }
                index += 1
            }
            return index
        }
    }

    /// A duration in milliseconds with one decimal (`12.3`), as the request line has always shown it, without
    /// Foundation's `String(format:)`.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let tenths = max(0, seconds) * 10_000 + (max(0, attoseconds) + 50_000_000_000_000) / 100_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// Logs a request answered below the routes (bytes that are not HTTP, a header section over the limits, a body
    /// refused before it was sent), which ``RequestLoggingMiddleware`` never sees: the same `request` line with its
    /// status, the error code, and the method and path when the request got that far. Returns the new request id, for
    /// the answer's `X-Request-Id`, so that a client's report can be found in the log.
    static func refused(_ logger: Logger, status: Int, code: ErrorCode, method: String? = nil, path: String? = nil) -> String {
        let id = newRequestID()
        var metadata: Logger.Metadata = ["request_id": .string(id), "status": .stringConvertible(status), "error": .string(code.rawValue)]
        if let method { metadata["method"] = .string(method) }
        if let path { metadata["path"] = .string(loggedPath(path)) }
        logger.notice("request", metadata: metadata)
        return id
    }
}
