public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A built `passkey-server` that a test runs as a process of its own, on a port of its own: the one launcher of every
/// test target (the server's, the CLI's), so waiting for it, a taken port and a failed start are handled once.
public struct LaunchedServer: Sendable {
    public let process: Process
    public let port: Int
    /// Where its standard output and error go, for a failing test's message: the path given, or a temporary file.
    public let logPath: String
    public var url: String { "http://localhost:\(port)" }

    /// The `passkey-server` built beside the running test bundle.
    public static var executable: URL { builtProduct("passkey-server") }

    /// A product built beside the running test bundle (`passkey`, `passkey-server`).
    public static func builtProduct(_ name: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Starts the server with `arguments` (after `--port`), without waiting for it (``waitUntilHealthy(attempts:)``).
    /// - Parameter launcher: a command that runs the server (`unshare …`), given the executable's path and arguments
    ///   after its own; none: the server itself.
    public static func launch(
        port: Int, arguments: [String], logPath: String? = nil, environment: [String: String] = [:], launcher: [String] = []
    ) throws -> LaunchedServer {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw LaunchFailed("passkey-server is not built at \(executable.path): run `swift build` first")
        }
        let process = Process()
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let all = ["--port", String(port)] + arguments
        if launcher.isEmpty {
            process.executableURL = executable
            process.arguments = all
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = launcher + [executable.path] + all
        }
        // Always kept: a server that exits at start says why only there.
        let logPath = logPath ?? FileManager.default.temporaryDirectory.appendingPathComponent("passkey-server-\(port)-\(UUID().uuidString).log").path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return LaunchedServer(process: process, port: port, logPath: logPath)
    }

    /// ``launch(port:arguments:logPath:environment:launcher:)``, then ``waitUntilHealthy(attempts:)``.
    public static func start(
        port: Int, arguments: [String], logPath: String? = nil, environment: [String: String] = [:], launcher: [String] = []
    ) async throws -> LaunchedServer {
        let server = try launch(port: port, arguments: arguments, logPath: logPath, environment: environment, launcher: launcher)
        do { try await server.waitUntilHealthy() } catch {
            server.stop()
            throw error
        }
        return server
    }

    /// Polls `/health` every 100 ms until it answers 200 (at most `attempts` times), and checks the server still runs a
    /// moment later: the answer may have come from another test's server that holds the port while ours fails to bind
    /// it (a failed bind ends it within milliseconds).
    public func waitUntilHealthy(attempts: Int = 300) async throws {
        let port = port
        for _ in 0..<attempts {
            guard process.isRunning else { throw LaunchFailed("passkey-server exited with status \(process.terminationStatus)\(logTail)") }
            if try await onOwnThread({ Self.healthStatus(port: port) }) == 200 {
                try await Task.sleep(for: .milliseconds(300))
                guard process.isRunning else {
                    throw LaunchFailed("passkey-server exited with status \(process.terminationStatus) after /health answered on port \(port) (another server's?)\(logTail)")
                }
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw LaunchFailed("passkey-server did not become healthy on port \(port)\(logTail)")
    }

    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// The end of the server's log, for a failure's message.
    var logTail: String {
        guard let log = try? String(contentsOfFile: logPath, encoding: .utf8), !log.isEmpty else { return "" }
        return ": " + String(log.suffix(2000))
    }

    /// The status of `GET /health` on 127.0.0.1:`port`, over a socket of its own (no HTTP library, no shared session);
    /// nil when nothing answers within 2 s. Blocking.
    static func healthStatus(port: Int) -> Int? {
        let fd = Loopback.tcpSocket()
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard Loopback.connect(fd, port: port) == 0 else { return nil }
        let request = Array("GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)
        #if canImport(Darwin)
        let flags: Int32 = 0
        #else
        let flags = Int32(MSG_NOSIGNAL)  // a server that closed must not end the test run with SIGPIPE
        #endif
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, flags) }) == request.count else { return nil }
        var buffer = [UInt8](repeating: 0, count: 64)
        var received: [UInt8] = []
        while received.count < 12 {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer.prefix(count)
        }
        // "HTTP/1.1 200 OK": the three digits after the first space.
        let line = String(decoding: received, as: UTF8.self)
        guard let space = line.firstIndex(of: " ") else { return nil }
        return Int(line[line.index(after: space)...].prefix(3))
    }
}

/// Why a server a test launched is not there.
public struct LaunchFailed: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
