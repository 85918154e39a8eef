import ArgumentParser
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import PasskeyServer

/// `passkey-server health`: asks the server these settings describe for `/health` on this machine and exits 0 when it
/// answers 200 (database reachable), 1 otherwise. Meant for a container's `HEALTHCHECK` and for probes: the image needs
/// neither a shell nor curl, and the check reads the port, address and TLS setting the server itself reads.
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Check that the server with these settings answers /health on this machine: exit 0 when it is healthy.",
        discussion: """
            Reads the same flags, PASSKEY_ variables and settings file as the server, connects to its port on this \
            machine (127.0.0.1 when it listens on all addresses; over TLS when --tls-cert is set, without checking the \
            certificate, as it only asks the local process whether it is up) and asks for /health. Exit status 0: the \
            server answered 200 and its database is reachable; 1: it answered something else, or nothing in time.
            """)

    @ParentCommand var server: PasskeyServerCommand
    @Option(help: "Seconds to wait for the answer.") var timeout: Double = 5

    func run() async throws {
        let configuration = try server.makeConfiguration()
        guard timeout.isFinite, (0.1...300).contains(timeout) else { throw ValidationError("--timeout must be 0.1 to 300 seconds") }
        let host =
            switch configuration.host {
            case "0.0.0.0", "": "127.0.0.1"
            case "::", "[::]": "::1"
            default: configuration.host
            }
        let useTLS = configuration.tlsCertificatePath != nil
        let target = "\(useTLS ? "https" : "http")://\(host):\(configuration.port)/health"
        let status: UInt
        do {
            status = try await Self.withTimeout(.milliseconds(Int64(timeout * 1000))) {
                try await Self.healthStatus(host: host, port: configuration.port, tls: useTLS)
            }
        } catch {
            FileHandle.standardError.write(Data("unhealthy: \(target) did not answer (\(error))\n".utf8))
            throw ExitCode(1)
        }
        guard status == 200 else {
            let reason = status == 503 ? "its database is unreachable" : "an unexpected answer"
            FileHandle.standardError.write(Data("unhealthy: \(target) answered \(status): \(reason)\n".utf8))
            throw ExitCode(1)
        }
        print("healthy: \(target) answered 200")
    }

    /// The status code of `GET /health` on `host:port`.
    static func healthStatus(host: String, port: Int, tls: Bool) async throws -> UInt {
        let sslContext: NIOSSLContext?
        if tls {
            var settings = TLSConfiguration.makeClientConfiguration()
            // The server's own process on this machine, asked whether it is up: no credentials are sent, and the
            // certificate names the public host, not the loopback address.
            settings.certificateVerification = .none
            sslContext = try NIOSSLContext(configuration: settings)
        } else {
            sslContext = nil
        }
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: sslContext, serverHostname: nil))
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/health")
            head.headers.add(name: "Host", value: host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)")
            head.headers.add(name: "Connection", value: "close")
            try await outbound.write(.head(head))
            try await outbound.write(.end(nil))
            for try await part in inbound {
                if case .head(let response) = part { return response.status.code }
            }
            throw HealthCheckFailure.closedWithoutAnswer
        }
    }

    /// `operation`'s result, or an error once `limit` has passed.
    static func withTimeout<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: limit)
                throw HealthCheckFailure.timedOut
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw HealthCheckFailure.timedOut }
            return first
        }
    }
}

enum HealthCheckFailure: Error, CustomStringConvertible {
    case closedWithoutAnswer, timedOut
    var description: String {
        switch self {
        case .closedWithoutAnswer: "the connection closed without an answer"
        case .timedOut: "no answer in time"
        }
    }
}
