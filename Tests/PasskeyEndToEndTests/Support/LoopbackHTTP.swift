import Foundation
import PasskeyTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal HTTP/1.1 client for servers on 127.0.0.1: one connection per request (`Connection: close`), JSON bodies.
///
/// Why not URLSession: on Linux, FoundationNetworking's libcurl backend rejects chromedriver's responses ("Failed
/// writing header": chromedriver writes `Content-Length:249` with no space after the colon), see
/// https://github.com/swiftlang/swift-corelibs-foundation/issues/4965. Both chromedriver and `passkey-server` are
/// reached through this client, so the test has one HTTP path on every platform.
enum LoopbackHTTP {
    struct Response: Sendable {
        let status: Int
        let body: [UInt8]
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Sends one request and returns the status and body. The blocking socket work runs on its own thread, so it never
    /// holds up Swift concurrency's shared threads; `timeout` bounds each send and each receive.
    /// `bearer`: sent as `Authorization: Bearer …` (the backend API's key).
    static func request(
        _ method: String, port: Int, path: String, body: [UInt8]? = nil, bearer: String? = nil, timeout: TimeInterval
    ) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try exchange(method, port: port, path: path, body: body, bearer: bearer, timeout: timeout) })
            }
            thread.start()
        }
    }

    static func exchange(_ method: String, port: Int, path: String, body: [UInt8]?, bearer: String? = nil, timeout: TimeInterval) throws -> Response {
        let fd = Loopback.tcpSocket()
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var interval = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif

        guard Loopback.connect(fd, port: port) == 0 else {
            throw Failure(description: "connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
        }

        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nAccept: application/json\r\n"
        if let body { head += "Content-Type: application/json; charset=utf-8\r\nContent-Length: \(body.count)\r\n" }
        if let bearer { head += "Authorization: Bearer \(bearer)\r\n" }
        try writeAll(fd, Array((head + "\r\n").utf8) + (body ?? []), port: port)

        // Read until the server closes the connection or the announced body is complete.
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let response = try parse(received), response.complete { return Response(status: response.status, body: response.body) }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += buffer[0..<count]
            } else if count == 0 {
                guard let response = try parse(received, closed: true) else {
                    throw Failure(description: "\(method) \(path): connection closed before a full response")
                }
                return Response(status: response.status, body: response.body)
            } else if errno != EINTR || Date() > deadline {
                throw Failure(description: "\(method) \(path) on port \(port): no response within \(Int(timeout)) s (\(String(cString: strerror(errno))))")
            }
        }
    }

    #if canImport(Darwin)
    static let noSignal: Int32 = 0  // Darwin has no MSG_NOSIGNAL: the socket has SO_NOSIGPIPE instead
    #else
    static let noSignal = Int32(MSG_NOSIGNAL)
    #endif

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], port: Int) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, noSignal) }
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "writing to 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    /// The status and body once the head is in; `complete` when `Content-Length` bytes arrived (or, without one, when
    /// the connection closed). Nil while the head is incomplete.
    static func parse(_ bytes: [UInt8], closed: Bool = false) throws -> (status: Int, body: [UInt8], complete: Bool)? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.indices.dropLast(3).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else { return nil }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw Failure(description: "not an HTTP response: \(lines[0])")
        }
        var contentLength: Int?
        for line in lines.dropFirst() {
            // Lenient about the space after the colon: chromedriver omits it.
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "content-length" { contentLength = Int(value) }
            if name == "transfer-encoding" && value.lowercased() != "identity" {
                throw Failure(description: "unsupported Transfer-Encoding \(value)")
            }
        }
        let body = Array(bytes[(end + 4)...])
        if let contentLength {
            return (status, Array(body.prefix(contentLength)), body.count >= contentLength)
        }
        return (status, body, closed)
    }
}
