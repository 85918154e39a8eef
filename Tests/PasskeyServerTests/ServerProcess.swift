import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import PasskeyTestSupport
import PasskeyWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The built `passkey-server` as these tests run it: RP ID example.com, origin https://example.com
/// (``PasskeyTestSupport/LaunchedServer``).
typealias ServerProcess = LaunchedServer

extension LaunchedServer {
    /// Starts the server on `database` and waits until it is healthy.
    static func start(
        database: String, port: Int, extraArguments: [String] = [], logPath: String? = nil, environment: [String: String] = [:],
        launcher: [String] = []
    ) async throws -> LaunchedServer {
        try await start(
            port: port, arguments: ["--database", database, "--origin", "https://example.com", "--rp-id", "example.com"] + extraArguments,
            logPath: logPath, environment: environment, launcher: launcher)
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

    /// One request with any body; the status, headers and body as they came (status 0 for a transport failure).
    func send(_ method: HTTPRequest.Method, _ path: String, headers: HTTPFields = [:], body: String? = nil) async -> (status: Int, headers: HTTPFields, body: String) {
        guard
            let response = try? await client.execute(
                TestClient.Request(path, method: method, authority: "localhost", headers: headers, body: body.map { ByteBuffer(string: $0) }))
        else { return (0, [:], "") }
        return (Int(response.status.code), response.headers, response.body.map { String(buffer: $0) } ?? "")
    }

    func close() async { try? await client.shutdown() }
}
