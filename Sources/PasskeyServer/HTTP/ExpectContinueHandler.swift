import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import PasskeyWire

/// Answers `Expect: 100-continue` (RFC 9110 §10.1.1): `100 Continue` when the announced body fits, so the client sends
/// it at once. A request whose `Content-Length` is over the limit gets a final 413 `request_too_large` without waiting
/// for its body, with or without the expectation, so the client never sends the body.
///
/// Without this handler nobody answered the expectation: curl (which asks for it on bodies over 1 MiB, and whenever
/// told to) waited a second for a `100 Continue` before sending the body anyway, and a body too large was refused only
/// after it had been sent. It sits before the HTTP-types codec, where the request's version is known: an HTTP/1.0
/// request's expectation is ignored, as the RFC says. The 413 is written here and the connection closed after it: the
/// request never reaches the routes, and the body the client may still send has nowhere to go. HTTP/1.1 answers in
/// order (RFC 9112 §9.3.2): when requests pipelined before it still owe their answers, the 413 waits until the last of
/// them has been written, so a refusal never costs an earlier request its answer.
final class ExpectContinueHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    let maximumBodySize: Int
    /// Where the requests refused here are logged (the server's logger).
    let logger: Logger
    /// A request was refused here: what else arrives on the connection is dropped while it closes.
    private var refused = false
    /// Requests passed on whose response has not ended yet.
    private var responsesOwed = 0
    /// The refused request, while it waits for the responses owed before it.
    private var waitingRefusal: HTTPRequestHead?
    /// The version of the last request's `100 Continue`, while it waits for the answers owed before it.
    private var waitingContinue: HTTPVersion?

    init(maximumBodySize: Int, logger: Logger) {
        self.maximumBodySize = maximumBodySize
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        guard case .head(let head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        responsesOwed += 1
        // A body announced over the limit is refused before any of it comes, with or without an expectation: waiting
        // for it would let a client hold the connection until the request deadline by announcing 10 MB and sending
        // nothing.
        let announced = head.headers["content-length"].first.flatMap { Int($0) ?? Int($0.trimmingCharacters(in: .whitespaces)) }
        if let announced, announced > maximumBodySize {
            refused = true
            responsesOwed -= 1
            if responsesOwed == 0 {
                refuse(context, head: head)
            } else {
                waitingRefusal = head
            }
            return
        }
        guard head.isHTTP11OrLater,
            head.headers["expect"].contains(where: { $0.trimmingCharacters(in: .whitespaces).lowercased() == "100-continue" })
        else {
            context.fireChannelRead(data)
            return
        }
        // Interim answers keep the order too: a 100 for a request pipelined behind others waits for their answers.
        if responsesOwed == 1 {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
        } else {
            waitingContinue = head.version
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // A final response's end (an interim 100 Continue has no end part): one answer owed fewer.
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        responsesOwed = max(0, responsesOwed - 1)
        context.write(data, promise: promise)
        if responsesOwed == 0, let head = waitingRefusal {
            waitingRefusal = nil
            refuse(context, head: head)
        } else if responsesOwed == 1, let version = waitingContinue {
            waitingContinue = nil
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .continue))), promise: nil)
        }
    }

    private func refuse(_ context: ChannelHandlerContext, head request: HTTPRequestHead) {
        let error = APIError.requestTooLarge(limit: maximumBodySize)
        let body = error.answer.json.serializedBytes
        let path = String(request.uri.prefix { $0 != "?" })  // never the query: it can hold a username
        let id = RequestLog.refused(logger, status: 413, code: error.code, method: request.method.rawValue, path: path)
        let headers = HTTPHeaders(SecurityHeaders.closingErrorFields(bodyCount: body.count, requestID: id).map { ($0.name.rawName, $0.value) })
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: .payloadTooLarge, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        context.writeAndClose(wrapOutboundOut(.end(nil)))
    }
}
