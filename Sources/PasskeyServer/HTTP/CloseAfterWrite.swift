import NIOCore

extension ChannelHandlerContext {
    /// Writes and flushes the last part of an answer, then closes the connection once it is sent (or could not be):
    /// for answers after which the connection must not be read again (an error that ends it, a 413 whose body is not
    /// wanted, a request that asked to close). `promise` completes with the write.
    func writeAndClose(_ data: NIOAny, promise: EventLoopPromise<Void>? = nil) {
        let sent = eventLoop.makePromise(of: Void.self)
        if let promise { sent.futureResult.cascade(to: promise) }
        writeAndFlush(data, promise: sent)
        sent.futureResult.assumeIsolated().whenComplete { _ in self.close(promise: nil) }
    }
}
