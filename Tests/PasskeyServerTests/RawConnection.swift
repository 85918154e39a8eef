import Foundation
import Logging
import Hummingbird
import HummingbirdTesting
import PasskeyServer
import PasskeyStorage
import PasskeyTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Bytes on a TCP connection of the test's own: for what an HTTP client library would not send (half requests,
/// garbage, pipelined requests).
enum RawConnection {
    /// A TCP connection to 127.0.0.1:`port` that has sent `bytes` and times reads out after `limit` seconds, or nil.
    /// The caller closes it.
    static func open(port: Int, sending bytes: String, limit: Int) -> Int32? {
        let socket = Loopback.tcpSocket()
        guard socket >= 0 else { return nil }
        guard Loopback.connect(socket, port: port) == 0 else {
            close(socket)
            return nil
        }
        _ = bytes.withCString { send(socket, $0, strlen($0), 0) }
        var timeout = timeval(tv_sec: limit, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return socket
    }

    /// Reads from `socket` until the server closes the connection or a read times out: what arrived, and whether the
    /// server closed it (a timeout means it was still open).
    static func readUntilClosed(_ socket: Int32) -> (received: String, closedByServer: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            // A reset is the server closing too (it closed with bytes of ours unread); a timeout is not.
            if count == 0 || (count < 0 && errno == ECONNRESET) { return (String(decoding: received, as: UTF8.self), true) }
            if count < 0 { return (String(decoding: received, as: UTF8.self), false) }
            received += buffer.prefix(count)
        }
    }

    /// Reads from `socket` until `marker` has arrived `count` times, the server closed the connection, or a read timed out.
    static func read(_ socket: Int32, untilCount count: Int, of marker: String) -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while String(decoding: received, as: UTF8.self).components(separatedBy: marker).count <= count {
            let read = recv(socket, &buffer, buffer.count, 0)
            if read <= 0 { break }
            received += buffer.prefix(read)
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Sends `bytes` on a fresh connection, closes the sending side and returns everything the server wrote until it
    /// closed the connection.
    static func exchange(port: Int, _ bytes: String) -> String {
        // 20 s: the server closes at once after its answer, so this bounds only a server slow to answer on a loaded
        // machine (the suite starts about a hundred tests at once; 5 s was sometimes too short for the first ones).
        guard let socket = open(port: port, sending: bytes, limit: 20) else { return "" }
        defer { close(socket) }
        shutdown(socket, Int32(SHUT_WR))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer.prefix(count)
        }
        return String(decoding: received, as: UTF8.self)
    }
}

/// Runs `body` with the port of a live in-process server on the in-memory repository.
func withLiveServer(
    logger: Logger? = nil, repository: InMemoryRepository = InMemoryRepository(), _ configure: (inout ServerConfiguration) -> Void = { _ in },
    _ body: @escaping @Sendable (Int) async throws -> Void
) async throws {
    var configuration = ServerConfiguration()
    configuration.port = 0
    configuration.origins = ["https://localhost"]  // port 0: the default origin cannot follow the chosen port
    configuration.database = "memory:"
    configure(&configuration)
    let app = try await buildApplication(configuration, repository: repository, logger: logger)
    try await app.test(.live) { client in try await body(try #require(client.port)) }
}
