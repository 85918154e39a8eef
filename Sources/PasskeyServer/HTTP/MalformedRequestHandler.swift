import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import PasskeyWire

/// Answers bytes the HTTP/1.1 parser rejects (a garbled request line, a header without a colon, a bad version) with
/// the JSON error every other 4xx carries, `request_malformed`, then closes the connection; a request line and header
/// section over the parser's limits gets 431 `request_headers_too_large` instead.
///
/// Hummingbird answers these with an empty 400 of its own; clients and proxies that log the body then have nothing to
/// show. The handler sits after the HTTP codec. A parse error between requests is answered here, after the responses
/// still owed to the requests before it on the connection (HTTP/1.1 answers in order), then the connection closes. A
/// parse error inside a request's body goes on as ``BrokenBody``: the route reading that body answers
/// `request_malformed` too (`request_incomplete` when the body was cut short), and one that answered without reading
/// it has already answered. Hummingbird answers only parser errors itself, so it never adds a second response to a
/// request that has one.
final class MalformedRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    static let body: [UInt8] = APIError(.requestMalformed, "The request is not valid HTTP/1.1.")
        .answer.json.serializedBytes
    /// For a request line and header section over the parser's limits (80 KiB in all, or too many fields): 431, which
    /// tells a client or proxy what to shorten (RFC 6585 §5), where a 400 would say the bytes were not HTTP.
    static let tooLargeBody: [UInt8] = APIError(
        .requestHeadersTooLarge,
        "The request line and headers are too large (over 80 KiB, or too many header fields)."
    ).answer.json.serializedBytes

    /// A request's head arrived and its end has not.
    private var readingRequest = false
    /// Requests whose head arrived and whose response has not ended yet.
    private var responsesOwed = 0
    /// A parse error came while responses were owed: answered when the last of them ends.
    private var answerWhenDone = false
    /// The connection was answered here and is closing: nothing more goes up or down.
    private var answered = false
    /// Requests whose head arrived on this connection so far: tells one request from the next.
    private var requestsSeen = 0
    /// The parse error to answer was a header section over the limits (431 rather than 400).
    private var headersTooLarge = false
    /// The response being written is a 413: the rest of its request's body is not wanted, and waiting for it would
    /// hold the connection until the idle timeout (a client may never send it), so the connection closes once it is sent.
    private var closeAfterResponse = false

    /// How long a request whose body is still coming when a graceful shutdown starts has to finish sending it.
    ///
    /// Hummingbird lets requests in progress finish before the server stops, and a body that stops coming counts as in
    /// progress until the idle timeout (75 s by default): one client holding a half-sent body kept a SIGTERM waiting for
    /// 75 s, past the 30 s most orchestrators give before they kill. Such a connection is closed after this grace (the
    /// request ends as `request_incomplete`); a body on its way arrives well within it.
    static let bodyGraceOnShutdown: TimeAmount = .seconds(2)

    /// The body limit, for ``ExpectContinueHandler``.
    let maximumBodySize: Int
    /// Where the requests answered here are logged (the server's logger).
    let logger: Logger

    /// How long a request may take to arrive (``RequestDeadlineHandler``).
    let requestDeadline: RequestDeadline

    init(maximumBodySize: Int, requestDeadline: RequestDeadline, logger: Logger) {
        self.maximumBodySize = maximumBodySize
        self.requestDeadline = requestDeadline
        self.logger = logger
    }

    /// Puts a ``ConnectionCloseHandler``, a ``FramingRulesHandler``, an ``ExpectContinueHandler`` and the
    /// ``RequestDeadlineHandler`` (with its ``RequestBytesCounter`` before the HTTP decoder) before the
    /// HTTP-types codec, the one place where the request's HTTP version is still known (Hummingbird adds only handlers
    /// that come after the codec).
    func handlerAdded(context: ChannelHandlerContext) {
        let pipeline = context.pipeline.syncOperations
        if let codec = try? pipeline.handler(type: HTTP1ToHTTPServerCodec.self) {
            try? pipeline.addHandler(ConnectionCloseHandler(), position: .before(codec))
            try? pipeline.addHandler(FramingRulesHandler(), position: .before(codec))
            try? pipeline.addHandler(ExpectContinueHandler(maximumBodySize: maximumBodySize, logger: logger), position: .before(codec))
            // Nearest the HTTP decoder, so its own 408 goes out past the handlers above, and its byte counter before
            // the decoder.
            if let decoder = try? pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self),
                let connectionClose = try? pipeline.handler(type: ConnectionCloseHandler.self)
            {
                let deadline = RequestDeadlineHandler(deadline: requestDeadline, logger: logger)
                try? pipeline.addHandler(deadline, position: .before(connectionClose))
                try? pipeline.addHandler(RequestBytesCounter(reportingTo: deadline), position: .before(decoder))
            }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        switch unwrapInboundIn(data) {
        case .head:
            readingRequest = true
            responsesOwed += 1
            requestsSeen += 1
        case .end: readingRequest = false
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !answered else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        let part = unwrapOutboundIn(data)
        if case .head(var head) = part, head.status == .contentTooLarge {
            closeAfterResponse = true
            head.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(head)), promise: promise)
            return
        }
        guard case .end = part else {
            context.write(data, promise: promise)
            return
        }
        responsesOwed = max(0, responsesOwed - 1)
        if closeAfterResponse {
            answered = true
            context.writeAndClose(data, promise: promise)
            return
        }
        context.write(data, promise: promise)
        if responsesOwed == 0, answerWhenDone { answer(context) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, readingRequest {
            let request = requestsSeen
            context.eventLoop.assumeIsolated().scheduleTask(in: Self.bodyGraceOnShutdown) { [self] in
                if readingRequest, requestsSeen == request { context.close(promise: nil) }
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// A request body the HTTP parser could not read to its end: cut short (the client closed its side before the
    /// announced length, `request_incomplete`), or with broken framing (a chunk size that is not hexadecimal,
    /// `request_malformed`).
    struct BrokenBody: Error {
        let cutShort: Bool
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, !answered, !answerWhenDone else {
            context.fireErrorCaught(error)
            return
        }
        // Bytes after a request that closes the connection (`Connection: close`, HTTP/1.0): the parser reads no more
        // requests, and the connection closes once that request is answered. Those bytes are not a request of theirs to
        // refuse: answering them with a 400 told the client its valid request was malformed, where the close alone
        // tells it to send that request again.
        if parserError == .closedConnection { return }
        guard !readingRequest else {
            context.fireErrorCaught(BrokenBody(cutShort: parserError == .invalidEOFState))
            return
        }
        if case .headerOverflow = parserError { headersTooLarge = true }
        if responsesOwed > 0 {
            answerWhenDone = true
        } else {
            answer(context)
        }
    }

    private func answer(_ context: ChannelHandlerContext) {
        answered = true
        let body = headersTooLarge ? Self.tooLargeBody : Self.body
        let status: HTTPResponse.Status = headersTooLarge ? .requestHeaderFieldsTooLarge : .badRequest
        let id = RequestLog.refused(logger, status: status.code, code: headersTooLarge ? .requestHeadersTooLarge : .requestMalformed)
        let head = HTTPResponse(status: status, headerFields: SecurityHeaders.closingErrorFields(bodyCount: body.count, requestID: id))
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: body))), promise: nil)
        context.writeAndClose(wrapOutboundOut(.end(nil)))
    }
}
