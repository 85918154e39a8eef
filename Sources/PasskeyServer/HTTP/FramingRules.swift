import Hummingbird
import HTTPTypes
import NIOCore
import NIOHTTP1

/// Request heads that HTTP's framing rules refuse, though the parser lets them through: no `Host` in an HTTP/1.1
/// request, more than one `Host`, a transfer coding other than `chunked`, a compressed body.
///
/// The server reads none of these itself, but a proxy in front of it may read them differently: one that routes on the
/// first `Host` while another hop reads the second, or one that decodes `gzip, chunked` while the server sees gzip
/// bytes. RFC 9112 §3.2 says to answer 400 to a missing or repeated `Host`; RFC 9112 §6.1 says a transfer coding the
/// server does not know is refused (with 501, which this server answers as 400 `transfer_coding_unsupported`, the
/// fault being the client's); RFC 9110 §15.5.16 answers a content coding the server does not accept with 415 and the
/// codings it does accept in `Accept-Encoding`. Before, such requests reached the routes, and a compressed body came
/// back as `json_invalid`, which hid the cause.
enum FramingRules {
    /// What is wrong with a request head, as the refusal's stable code; `nil` for a head that keeps the rules.
    static func refusal(_ head: HTTPRequestHead) -> Refusal? {
        let hosts = head.headers["host"].count
        if hosts > 1 { return .repeatedHost }
        // HTTP/1.0 may leave it out: old health checks do.
        if hosts == 0, head.isHTTP11OrLater { return .missingHost }
        let transferCodings = codings(head.headers["transfer-encoding"])
        if !transferCodings.isEmpty, transferCodings != ["chunked"] { return .transferCoding }
        if codings(head.headers["content-encoding"]).contains(where: { $0 != "identity" }) { return .contentCoding }
        return nil
    }

    /// The codings of comma-separated header lines, lowercased, without whitespace or empty members.
    static func codings(_ lines: [String]) -> [String] {
        lines.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    enum Refusal: String {
        case missingHost = "missing-host", repeatedHost = "repeated-host", transferCoding = "transfer-coding",
            contentCoding = "content-coding"

        var error: APIError {
            switch self {
            case .missingHost:
                APIError(.requestMalformed, "An HTTP/1.1 request needs a Host header.")
            case .repeatedHost:
                APIError(.requestMalformed, "A request has one Host header, not several.")
            case .transferCoding:
                APIError(
                    .transferCodingUnsupported,
                    "The only transfer coding accepted is chunked (Transfer-Encoding: chunked).")
            case .contentCoding:
                APIError(
                    .contentEncodingUnsupported,
                    "Request bodies are not accepted compressed: send them without Content-Encoding.")
            }
        }
    }

    /// The field that carries a refusal from ``FramingRulesHandler`` to ``FramingRulesMiddleware``. A client's own
    /// field of this name is removed first, so it cannot forge or hide one.
    static let fieldName = "passkey-framing-refusal"
    static let field = HTTPField.Name(fieldName)
}

extension HTTPRequestHead {
    /// HTTP/1.1 or a later version: what `Host` and `Expect` rules apply to (HTTP/1.0 has neither).
    var isHTTP11OrLater: Bool { version.major > 1 || (version.major == 1 && version.minor >= 1) }
}

/// Reads each request head before the HTTP-types codec, where the HTTP version and every `Host` line are still known
/// (the codec folds the first `Host` into the authority), and marks a head that breaks ``FramingRules``.
///
/// It does not answer by itself: on a connection with requests still being answered, HTTP/1.1 answers in order, and
/// the routes' middleware (``FramingRulesMiddleware``) answers in its turn, with the CORS and security headers every
/// answer carries.
final class FramingRulesHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        let refusal = FramingRules.refusal(head)
        let forged = head.headers.contains(name: FramingRules.fieldName)
        // The usual head goes on as it came: rewriting it would copy every header line of every request.
        guard refusal != nil || forged else {
            context.fireChannelRead(data)
            return
        }
        head.headers.remove(name: FramingRules.fieldName)
        if let refusal { head.headers.add(name: FramingRules.fieldName, value: refusal.rawValue) }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}

/// Answers a request ``FramingRulesHandler`` marked, before any route sees it.
struct FramingRulesMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let name = FramingRules.field, let mark = request.headers[name],
            let refusal = FramingRules.Refusal(rawValue: mark)
        else { return try await next(request, context) }
        var response = Response.error(refusal.error)
        if refusal == .contentCoding { response.headers[.acceptEncoding] = "identity" }
        return response
    }
}
