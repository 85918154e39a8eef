public import ServiceLifecycle

/// Closes the storage's connections once the server has stopped taking requests (graceful shutdown stops services in
/// reverse order, so the HTTP server is already gone).
public struct StorageShutdown: Service {
    let close: @Sendable () async -> Void

    public init(_ close: @escaping @Sendable () async -> Void) { self.close = close }

    public func run() async throws {
        try? await gracefulShutdown()
        await close()
    }
}
