import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1

/// Bounds how long one request may take to arrive, headers and body: from its first byte, ``RequestDeadline/base``
/// plus one second for every ``RequestDeadline/minimumRate`` bytes it has sent so far (Apache's `mod_reqtimeout` rule).
/// A request still arriving at its deadline gets `408 request_timeout` and its connection is closed.
///
/// The idle timeout alone did not bound a request: it closes a connection that sends nothing for 75 s, so a body sent
/// one byte every 40 s held a connection (and a task waiting for the body) for as long as the client liked, and many
/// such connections cost the server what many real clients would. A client sending at least the minimum rate always
/// finishes (its deadline moves faster than the clock); one below it is cut at `base / (1 − rate sent / minimumRate)`;
/// one that stops is cut at `base` plus its bytes' credit.
///
/// Two handlers share the work: ``RequestBytesCounter`` before the HTTP decoder sees the bytes (where a request's
/// first byte and the headers' trickle are visible), and this one after it sees where a request ends and where an
/// answer is written. Time between requests on a kept-alive connection is the idle timeout's. While an earlier
/// request's answer is still being made (a pipelined request waits for it), the clock of the next one does not run.
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    let deadline: RequestDeadline
    let logger: Logger

    private var context: ChannelHandlerContext?
    /// A request's bytes are arriving: its first byte came, its end has not.
    private var receiving = false
    private var started = NIODeadline.now()
    private var received = 0
    /// The request being received has its head (so it is one of ``responsesOwed``), and has been answered already (a
    /// route that answered without reading the body: nothing more may be written for it).
    private var headArrived = false
    private var answeredEarly = false
    /// Requests whose head arrived and whose answer has not ended.
    private var responsesOwed = 0
    /// The pending check and when it runs. It outlives the request it was set for: the next request that starts later
    /// keeps it when it is due no later than that request's own deadline (the check then looks at whichever request is
    /// arriving), so a keep-alive connection does not schedule and cancel a timer for every request.
    private var timer: Scheduled<Void>?
    private var timerDue: NIODeadline?
    /// The connection was answered here and is closing.
    private var timedOut = false

    init(deadline: RequestDeadline, logger: Logger) {
        self.deadline = deadline
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        self.context = nil
    }

    /// Bytes came from the client (``RequestBytesCounter``).
    func bytesArrived(_ count: Int) {
        guard !timedOut, count > 0 else { return }
        if !receiving {
            receiving = true
            started = .now()
            received = 0
            headArrived = false
            answeredEarly = false
            let due = started + deadline.base
            if timerDue.map({ $0 > due }) ?? true { schedule(at: due) }
        }
        received += count
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !timedOut else { return }
        switch unwrapInboundIn(data) {
        case .head:
            headArrived = true
            responsesOwed += 1
        case .end:
            receiving = false  // the pending check, if any, stays for the next request (``timer``)
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code >= 200:
            // The answer to the request still arriving, when no earlier one is owed: a route that answered first.
            if receiving, headArrived, responsesOwed == 1 { answeredEarly = true }
        case .end:
            responsesOwed = max(0, responsesOwed - 1)
        default: break
        }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        timerDue = nil
        context.fireChannelInactive()
    }

    private func schedule(at time: NIODeadline) {
        timer?.cancel()
        guard let context else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: time) { [self] in check() }
        timerDue = time
    }

    private func check() {
        timer = nil
        timerDue = nil
        guard receiving, !timedOut, let context else { return }
        // An earlier request is still being answered: a client that pipelines may wait for it before it sends on.
        if responsesOwed > (headArrived ? 1 : 0) {
            started = .now()
            received = 0
            schedule(at: started + deadline.base)
            return
        }
        let due = deadline.due(startedAt: started, received: received)
        if due > .now() {
            schedule(at: due)
            return
        }
        timedOut = true
        let error = APIError.requestTimeout(deadline)
        let id = RequestLog.refused(logger, status: 408, code: error.code)
        // Answered already (a route that did not wait for the body): nothing more may be written for it.
        guard !answeredEarly else {
            context.close(promise: nil)
            return
        }
        let body = error.answer.json.serializedBytes
        let headers = HTTPHeaders(SecurityHeaders.closingErrorFields(bodyCount: body.count, requestID: id).map { ($0.name.rawName, $0.value) })
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .requestTimeout, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        context.writeAndClose(wrapOutboundOut(.end(nil)))
    }
}

/// Counts the bytes of requests for ``RequestDeadlineHandler``, before the HTTP decoder: the only place a request's
/// first byte, and headers that trickle in, can be seen.
final class RequestBytesCounter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let deadline: RequestDeadlineHandler

    init(reportingTo deadline: RequestDeadlineHandler) { self.deadline = deadline }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        deadline.bytesArrived(unwrapInboundIn(data).readableBytes)
        context.fireChannelRead(data)
    }
}

/// How long a request may take to arrive (``ServerConfiguration/requestTimeout``,
/// ``ServerConfiguration/requestMinimumRate``).
struct RequestDeadline: Sendable {
    /// What every request gets from its first byte.
    var base: TimeAmount
    /// Bytes per second that earn one more second; 0 earns none.
    var minimumRate: Int

    init(_ configuration: ServerConfiguration) {
        base = .milliseconds(Int64(configuration.requestTimeout * 1000))
        minimumRate = configuration.requestMinimumRate
    }

    /// When a request that started at `start` and has sent `received` bytes must have ended.
    func due(startedAt start: NIODeadline, received: Int) -> NIODeadline {
        guard minimumRate > 0 else { return start + base }
        return start + base + .milliseconds(Int64(received) * 1000 / Int64(minimumRate))
    }
}
