public import Foundation
public import Hummingbird
public import HummingbirdTesting
public import Logging
public import PasskeyServer
public import PasskeyStorage

/// A settable clock for expiry tests.
public final class TestClock: @unchecked Sendable {
    // Guarded by `lock`: read from handlers, moved by tests.
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_800_000_000)

    public init() {}

    public var now: Date { lock.withLock { current } }
    public func advance(_ seconds: TimeInterval) { lock.withLock { current = current.addingTimeInterval(seconds) } }
}

/// The real server routes (`buildRouter`) over an in-memory repository and a settable clock: the harness of the
/// server's tests and of the client flows' tests alike.
public struct TestServer: Sendable {
    public var configuration: ServerConfiguration
    /// What passkey lists tell of authenticator models (a metadata BLOB's names, icons and compromise reports).
    public var catalog: AuthenticatorCatalog = .community
    public let repository = InMemoryRepository()
    public let clock = TestClock()
    /// The live event feed the dashboard's stream reads.
    public let broadcaster = EventBroadcaster()

    /// The default configuration on `memory:`, with a rate limit high enough for tests and receivers' names resolved by
    /// ``StaticHostResolver``, changed by `configure`.
    public init(_ configure: (inout ServerConfiguration) -> Void = { _ in }) {
        var configuration = ServerConfiguration()
        configuration.database = "memory:"
        configuration.optionsPerMinute = 1000
        // Webhook receivers' names resolve from a table, never through the machine's DNS.
        configuration.webhooks.resolver = StaticHostResolver()
        configure(&configuration)
        self.configuration = configuration
    }

    /// The origin a browser on the server's default origin reports.
    public var origin: String { configuration.defaultOrigin }

    public func router() -> Router<PasskeyRequestContext> {
        let clock = self.clock
        return buildRouter(configuration, repository: repository, now: { clock.now }, broadcaster: broadcaster, catalog: catalog)
    }

    /// Runs `test` against the router in process (no sockets).
    public func run<T: Sendable>(logger: Logger? = nil, _ test: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        try await Application(router: router(), logger: logger).test(.router, test)
    }
}
