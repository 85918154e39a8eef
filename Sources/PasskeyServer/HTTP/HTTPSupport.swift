import Foundation
public import Hummingbird
import HTTPTypes
import NIOCore
import PasskeyAPI
import PasskeyWire

extension APIError: HTTPResponseError {
    public var status: HTTPResponse.Status { HTTPResponse.Status(code: statusCode) }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Response.json(answer, status: status)
    }
}

extension Response {
    /// An error's JSON answer, with `Retry-After` when the error says when to come back.
    static func error(_ error: APIError) -> Response {
        var response = json(error.answer, status: error.status)
        if let seconds = error.retryAfterSeconds { response.headers[.retryAfter] = String(seconds) }
        return response
    }

    /// An answer of the API's contract (`PasskeyAPI`), serialized by our own writer.
    static func json(_ answer: some JSONRepresentable, status: HTTPResponse.Status = .ok) -> Response {
        json(answer.json, status: status)
    }

    /// A JSON response (`application/json`), serialized by our own writer.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        let bytes = value.serializedBytes
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

extension Request {
    /// Every value the request's `Cookie` headers carry under `name`, in order. A browser sends several cookies of one
    /// name when another site on the same host or a parent domain planted one.
    func cookieValues(named name: String) -> [String] {
        var values: [String] = []
        for header in headers[values: .cookie] {
            for part in header.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0] == name { values.append(String(pair[1])) }
            }
        }
        return values
    }
}

extension Request {
    /// The body parsed as JSON, at most `limit` bytes. An empty body reads as `{}`.
    ///
    /// A body must say it is JSON (`Content-Type: application/json`, or a `+json` type), or the answer is 415
    /// `content_type_unsupported` before it is read: a browser sends a cross-site form or `text/plain` POST without
    /// asking the server first (no CORS preflight), so a JSON endpoint that parsed any body would accept requests
    /// another site's page made a person's browser send. A request without a body needs no type.
    mutating func jsonBody(limit: Int) async throws(APIError) -> JSONValue {
        try Self.requireJSONContentType(headers)
        let buffer: ByteBuffer
        do { buffer = try await collectBody(upTo: limit) } catch is NIOTooManyBytesError {
            throw APIError.requestTooLarge(limit: limit)
        } catch let broken as MalformedRequestHandler.BrokenBody where !broken.cutShort {
            // The body's framing is broken (a chunk size that is not hexadecimal): the bytes are not HTTP, as with a
            // garbled request line, rather than a body cut short.
            throw APIError(.requestMalformed, "The request body's chunked framing is not valid HTTP/1.1.")
        } catch {
            // The body stopped coming (the client went away, or the idle timeout closed the connection).
            throw APIError(.requestIncomplete, "The request body ended before its announced length.")
        }
        let bytes = Array(buffer.readableBytesView)
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }) { return .object([:]) }
        do { return try JSONValue.parse(bytes) } catch {
            // The parser's fixed words and the offset: JSON that is valid but refused (a member name given twice,
            // nesting too deep) must not send a developer hunting for a syntax error. Nothing of the body is quoted
            // back: the message is also the explanation the dashboard's event log shows.
            throw APIError(
                .jsonMalformed,
                "The request body is not JSON this server accepts: \(error.reason) (at byte \(error.offset)).", logDetail: error.description)
        }
    }
}

extension Request {
    /// The body read as the endpoint's request type (`PasskeyAPI`): a body that is not a JSON object, or whose members
    /// are missing or of the wrong type, is a 400 naming the member.
    mutating func decode<Body: JSONRepresentable>(_ type: Body.Type, limit: Int) async throws(APIError) -> Body {
        try RequestBody.decode(type, from: try await jsonBody(limit: limit))
    }

    /// 415 unless the request's body is declared JSON; a request that declares no body (no `Content-Length`, or 0, and
    /// no `Transfer-Encoding`) and no type passes.
    static func requireJSONContentType(_ headers: HTTPFields) throws(APIError) {
        if let contentType = headers[.contentType] {
            guard isJSONMediaType(contentType) else { throw APIError.contentTypeUnsupported(contentType) }
            return
        }
        let declaresBody = headers[.transferEncoding] != nil || (headers[.contentLength].map { $0.trimmingCharacters(in: .whitespaces) != "0" } ?? false)
        if declaresBody { throw APIError.contentTypeUnsupported(nil) }
    }

    /// `application/json` or `application/…+json` (RFC 6839), in any letter case, with any parameters.
    /// Read as bytes: the type ends at the first `;`, around it optional whitespace (RFC 9110 §5.6.3: spaces and tabs),
    /// compared in ASCII letter case. (Foundation's trimming and splitting cost a few microseconds on every request.)
    static func isJSONMediaType(_ value: String) -> Bool {
        var type = Array(value.utf8.prefix { $0 != UInt8(ascii: ";") })
        while let last = type.last, last == 0x20 || last == 0x09 { type.removeLast() }
        let start = type.firstIndex { $0 != 0x20 && $0 != 0x09 } ?? type.endIndex
        let lowered = type[start...].map { (0x41...0x5a).contains($0) ? $0 | 0x20 : $0 }
        let prefix = Array("application/".utf8)
        let suffix = Array("+json".utf8)
        return lowered.elementsEqual("application/json".utf8)
            || (lowered.starts(with: prefix) && lowered.count > prefix.count + suffix.count - 1 && lowered.suffix(suffix.count).elementsEqual(suffix))
    }
}

/// Runs a handler, turning its ``APIError`` into the JSON error answer.
func respond<Answer: JSONRepresentable>(_ body: () async throws(APIError) -> Answer) async -> Response {
    do { return Response.json(try await body()) } catch {
        return Response.error(error)
    }
}

extension ServerConfiguration {

    /// Whether the client reached this server over TLS: directly (`--tls-cert`), or through a trusted proxy that says
    /// so with `X-Forwarded-Proto: https`. Decides HSTS and the dashboard cookie's `Secure` flag alike.
    func cameOverTLS(_ headers: HTTPFields) -> Bool {
        Self.cameOverTLS(headers, directTLS: tlsCertificatePath != nil, trustProxy: trustProxyHeaders)
    }

    static func cameOverTLS(_ headers: HTTPFields, directTLS: Bool, trustProxy: Bool) -> Bool {
        if directTLS { return true }
        guard trustProxy, let name = HTTPField.Name("X-Forwarded-Proto") else { return false }
        return headers[name]?.lowercased() == "https"
    }
}
