public import Hummingbird
public import NIOCore

/// The request context of every route: Hummingbird's core storage plus the peer address (for rate limiting).
public struct PasskeyRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
