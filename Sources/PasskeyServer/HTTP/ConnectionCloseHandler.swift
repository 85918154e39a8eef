import NIOCore
import NIOHTTP1

/// Closes the connection after answering a request that did not ask to keep it open: an HTTP/1.0 request without
/// `Connection: keep-alive`, or any request whose `Connection` header lists `close` in any letter case; and after
/// answering a `CONNECT` or a request that asks to switch protocols (`Connection: upgrade` with `Upgrade`).
///
/// Hummingbird reads requests through HTTP types that carry no protocol version, and it closes a connection only when
/// the `Connection` header is exactly `close`. An HTTP/1.0 client (ApacheBench, simple health checkers, scripts reading
/// to the end of the stream) then waited for the idle timeout, 75 s by default, before its read ended. This handler
/// sits before the HTTP-types codec, where the version is still known: it rewrites such a request's `Connection`
/// header to the exact `close` Hummingbird understands, and says `Connection: close` in the answer (RFC 9112 §9.6). An
/// HTTP/1.0 request that asks to keep the connection gets `Connection: keep-alive` in the answer, which an HTTP/1.0
/// client needs to see before it reuses the connection (RFC 9112 §9.3).
final class ConnectionCloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// For each request whose final answer has not started yet, in order: the `Connection` header its answer carries
    /// (nil to leave the answer's headers as they are), and whether the request was HTTP/1.0.
    private var pending: [(connection: String?, http10: Bool)] = []
    /// The answer being written goes to an HTTP/1.0 client that asked to keep the connection, without a length: the
    /// connection closes once it ends, the only end an HTTP/1.0 client can see.
    private var closeAfterAnswer = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        // This server tunnels nothing. NIO's encoder sends the answer to a CONNECT without its body and without a length
        // (a 2xx would open a tunnel, RFC 9110 §9.3.6), so a client reads an answer without a length until the
        // connection closes (RFC 9112 §6.3): it closes at once instead of at the idle timeout.
        // A request that asks to switch protocols: NIO's parser reads no more HTTP on the connection after it (what
        // follows would be the new protocol's), and this server switches to none, so a request pipelined behind it was
        // never answered. It is answered as any request and the connection closes: the client sends the rest anew.
        let upgrade = head.headers.contains(name: "upgrade")
            && head.headers["connection"].contains { $0.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "upgrade" } }
        let keepAlive = head.isKeepAlive && head.method != .CONNECT && !upgrade
        let http10 = head.version.major == 1 && head.version.minor == 0
        pending.append((keepAlive ? (http10 ? "keep-alive" : nil) : "close", http10))
        if !keepAlive {
            head.headers.replaceOrAdd(name: "connection", value: "close")
            context.fireChannelRead(wrapInboundOut(.head(head)))
        } else {
            context.fireChannelRead(data)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        if case .end = part, closeAfterAnswer {
            closeAfterAnswer = false
            context.writeAndClose(data, promise: promise)
            return
        }
        // An informational answer (100 Continue) comes before the final one and does not end the request.
        guard case .head(var head) = part, head.status.code >= 200, !pending.isEmpty else {
            context.write(data, promise: promise)
            return
        }
        let (connection, http10) = pending.removeFirst()
        guard var connection else {
            context.write(data, promise: promise)
            return
        }
        if http10, !head.headers.contains(name: "content-length") {
            // A streamed answer: the codec would send it chunked, which an HTTP/1.0 client cannot read (RFC 9112 §6.1:
            // no Transfer-Encoding in answer to a request that does not indicate HTTP/1.1). Answered as HTTP/1.0, the
            // body goes as it is and the connection's end delimits it.
            head.version = .http1_0
            if connection == "keep-alive" {
                connection = "close"
                closeAfterAnswer = true
            }
        }
        head.headers.replaceOrAdd(name: "connection", value: connection)
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}
