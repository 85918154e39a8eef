import PasskeyAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import PasskeyClient
import PasskeyServer
import PasskeyServerTestSupport
import PasskeySoftwareAuthenticator
import PasskeyStorage
import PasskeyTestSupport
import PasskeyWire
import Testing

/// The server's test harness (``PasskeyServerTestSupport/TestServer``), with what client flows need: software
/// authenticators on the server's origin and a transport that calls the routes.
struct FlowServer {
    var server: TestServer

    init(_ configure: (inout ServerConfiguration) -> Void = { _ in }) { server = TestServer(configure) }

    var configuration: ServerConfiguration { server.configuration }
    var repository: InMemoryRepository { server.repository }
    var clock: TestClock { server.clock }
    var origin: String { server.origin }

    /// A software authenticator acting as a website on the server's origin.
    func authenticator(
        _ configure: (inout SoftwareAuthenticatorConfiguration) -> Void = { _ in }, store: any CredentialStore = InMemoryCredentialStore()
    ) -> SoftwareAuthenticator {
        var configuration = SoftwareAuthenticatorConfiguration(origin: .web(origin))
        configure(&configuration)
        return SoftwareAuthenticator(configuration: configuration, store: store)
    }

    func router() -> Router<PasskeyRequestContext> { server.router() }

    /// Runs `test` with a transport that calls the router in process (no sockets).
    func run<T: Sendable>(_ test: @Sendable (RouterTransport) async throws -> T) async throws -> T {
        try await Application(router: router()).test(.router) { client in try await test(RouterTransport(client: client)) }
    }

    /// Runs `test` with the server listening on a random local port.
    func runLive<T: Sendable>(_ test: @Sendable (URL) async throws -> T) async throws -> T {
        let app = Application(router: router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        return try await app.test(.live) { client in
            let port = try #require(client.port)
            return try await test(URL(string: "http://127.0.0.1:\(port)")!)
        }
    }
}

/// Sends the client's requests through HummingbirdTesting's router client; `beforeSend` lets a test intervene.
struct RouterTransport: RelyingPartyTransport {
    let client: any TestClientProtocol
    var beforeSend: @Sendable (RelyingPartyRequest) async -> Void = { _ in }

    func send(_ request: RelyingPartyRequest) async throws(PasskeyError) -> RelyingPartyResponse {
        await beforeSend(request)
        if Task.isCancelled { throw .cancelled(stage: .network, "cancelled") }
        var headers: HTTPFields = [:]
        if let authorization = request.authorization { headers[.authorization] = authorization }
        var body: ByteBuffer?
        if let bytes = request.body {
            body = ByteBuffer(bytes: bytes)
            headers[.contentType] = "application/json"
        }
        do {
            let response = try await client.executeRequest(
                uri: "/" + request.pathAndQuery, method: HTTPRequest.Method(rawValue: request.method.rawValue) ?? .get, headers: headers,
                body: body)
            return RelyingPartyResponse(status: response.status.code, body: Array(response.body.readableBytesView))
        } catch {
            throw PasskeyError(.network, stage: .network, "router client: \(error)")
        }
    }

    func intercepting(_ hook: @escaping @Sendable (RelyingPartyRequest) async -> Void) -> RouterTransport {
        var copy = self
        copy.beforeSend = hook
        return copy
    }
}

/// Answers every request with the same canned response.
struct CannedTransport: RelyingPartyTransport {
    var status: Int
    var body: String
    func send(_ request: RelyingPartyRequest) async throws(PasskeyError) -> RelyingPartyResponse {
        RelyingPartyResponse(status: status, body: Array(body.utf8))
    }
}

extension PasskeyError {
    var serverCode: ErrorCode? { server?.code }
}

/// Runs `body` and returns the PasskeyError it throws (a test failure when it does not throw).
func expectPasskeyError<T>(
    _ body: () async throws(PasskeyError) -> T, sourceLocation: SourceLocation = #_sourceLocation
) async -> PasskeyError? {
    let error = await thrownError(body)
    if error == nil { Issue.record("expected a PasskeyError, the call returned", sourceLocation: sourceLocation) }
    return error
}

/// Runs `body` in a new task that a test can cancel; its outcome as a Result.
func startTask<T: Sendable>(_ body: @escaping @Sendable () async throws(PasskeyError) -> T) -> Task<Result<T, PasskeyError>, Never> {
    Task { () async -> Result<T, PasskeyError> in
        do throws(PasskeyError) { return .success(try await body()) } catch { return .failure(error) }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
