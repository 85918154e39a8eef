public import PasskeyWire

/// A test double for the server: answers each path with scripted ``Answer``s and records every request, so an app can
/// test its sign-in screens (with ``ScriptedAuthenticator``) without a server, a device or a network.
///
/// ```swift
/// let server = ScriptedTransport()
/// await server.script("generate-authentication-options", .json(optionsFromAFixture))
/// await server.script("verify-authentication", .error(code: .challengeInvalid, message: "expired", status: 400))
/// let client = PasskeyAuthClient(transport: server, authenticator: ScriptedAuthenticator(assertion: .respond(assertion)))
/// // try await client.authenticate() throws PasskeyError.Code.invalidChallenge
/// ```
public actor ScriptedTransport: RelyingPartyTransport {
    /// One scripted answer: an HTTP status and body, or a transport failure.
    public enum Answer: Sendable, Hashable {
        case response(RelyingPartyResponse)
        case failure(PasskeyError)

        /// A JSON answer (200 unless said otherwise).
        public static func json(_ value: JSONValue, status: Int = 200) -> Answer {
            .response(RelyingPartyResponse(status: status, body: value.serializedBytes))
        }

        /// The server's error object, as `passkey-server` sends it: `{"error": code, "message": message}`.
        public static func error(code: String, message: String = "", status: Int = 400) -> Answer {
            .json(["error": .string(code), "message": .string(message)], status: status)
        }

        /// No answer at all: the device is offline.
        public static var offline: Answer { .failure(PasskeyError(.network, stage: .network, "scripted: offline")) }
    }

    /// Every request received, in order.
    public private(set) var requests: [RelyingPartyRequest] = []
    private var answers: [String: [Answer]] = [:]

    /// `answers` by path (`generate-authentication-options`, no leading slash).
    public init(_ answers: [String: [Answer]] = [:]) { self.answers = answers }

    /// Answers for later requests to `path`, used in order; the last one keeps answering.
    public func script(_ path: String, _ answers: Answer...) { self.answers[path] = answers }

    /// The requests sent to `path`.
    public func requests(to path: String) -> [RelyingPartyRequest] { requests.filter { $0.path == path } }

    public func send(_ request: RelyingPartyRequest) async throws(PasskeyError) -> RelyingPartyResponse {
        requests.append(request)
        guard var queue = answers[request.path], let answer = queue.first else {
            throw PasskeyError(.internalError, stage: .network, "ScriptedTransport has no answer for \(request.method.rawValue) \(request.path)")
        }
        if queue.count > 1 {
            queue.removeFirst()
            answers[request.path] = queue
        }
        switch answer {
        case .response(let response): return response
        case .failure(let error): throw error
        }
    }
}
