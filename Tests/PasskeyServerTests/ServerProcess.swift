import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import PasskeyWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the built `passkey-server` binary (RP ID example.com, origin https://example.com).
struct ServerProcess: Sendable {
    let process: Process
    let port: Int
    /// Where its standard output and error go, for a failing test's message.
    let logPath: String?

    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("passkey-server")
    }

    /// - Parameter launcher: a command that runs the server (`unshare …`), given the executable's path and arguments
    ///   after its own; none: the server itself.
    static func start(
        database: String, port: Int, extraArguments: [String] = [], logPath: String? = nil, environment: [String: String] = [:],
        launcher: [String] = []
    ) async throws -> ServerProcess {
        let process = Process()
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let arguments = ["--port", String(port), "--database", database, "--origin", "https://example.com", "--rp-id", "example.com"] + extraArguments
        if launcher.isEmpty {
            process.executableURL = executable
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = launcher + [executable.path] + arguments
        }
        if let logPath {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
            process.standardOutput = handle
            process.standardError = handle
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        for _ in 0..<300 {
            // A TestClient connects once: a fresh one per attempt, until the server listens.
            let client = TestClient(host: "127.0.0.1", port: port)
            client.connect()
            let response = try? await client.execute(TestClient.Request("/health", method: .get, authority: "localhost"))
            try? await client.shutdown()
            if response?.status == .ok {
                // The answer may have come from another test's server that holds the port, while ours is failing to
                // bind it: ours must still run a moment later (a failed bind ends it within milliseconds).
                try await Task.sleep(for: .milliseconds(300))
                guard process.isRunning else { break }
                return ServerProcess(process: process, port: port, logPath: logPath)
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.terminate()
        let log = logPath.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
        throw ServerStartFailed(description: "passkey-server did not become healthy on port \(port): \(log.suffix(2000))")
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}

struct ServerStartFailed: Error, CustomStringConvertible {
    let description: String
}

/// A status and a JSON body from a server process.
struct HTTPAnswer: Sendable {
    let status: Int
    let json: JSONValue
    subscript(_ name: String) -> JSONValue? { json.objectValue?[name] }
}

/// One HTTP/1.1 connection to a server process; each call is one request. Transport failures are status 0.
final class ProcessClient: Sendable {
    let client: TestClient

    init(port: Int) {
        client = TestClient(host: "127.0.0.1", port: port)
        client.connect()
    }

    func call(_ method: HTTPRequest.Method, _ path: String, json: JSONValue? = nil, headers extra: HTTPFields = [:]) async -> HTTPAnswer {
        var headers = extra
        var body: ByteBuffer?
        if let json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(bytes: json.serializedBytes)
        }
        guard let response = try? await client.execute(TestClient.Request(path, method: method, authority: "localhost", headers: headers, body: body)) else {
            return HTTPAnswer(status: 0, json: .null)
        }
        let bytes = response.body.map { Array($0.readableBytesView) } ?? []
        return HTTPAnswer(status: Int(response.status.code), json: (try? JSONValue.parse(bytes)) ?? .null)
    }

    func close() async { try? await client.shutdown() }
}
