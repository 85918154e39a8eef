public import PasskeyRelyingParty
import PasskeyCore
import PasskeyStorage
public import PasskeyAPI
import PasskeyWire

/// An error answer: an HTTP status and `{"error": "<stable_code>", "message": "..."}`.
///
/// `message` is safe for clients (it never carries internals, challenges or keys); `logDetail` goes to the log only.
public struct APIError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status code: the code's, from the API's catalog (``PasskeyAPI/ErrorCode/status``).
    public var statusCode: Int { code.status }
    public let code: ErrorCode
    public let message: String
    public let logDetail: String?
    /// For origin and RP ID failures: what the relying party accepts and what came (for the dashboard's event log;
    /// never a challenge, key or credential ID).
    public let expected: String?
    public let received: String?
    /// For 429: whole seconds until the client may try again (the `Retry-After` header).
    public internal(set) var retryAfterSeconds: Int?
    /// The account a refusal concerns (our user id and its username), for the dashboard's event log only, when the
    /// request did not name it but proved it (a disabled account's passkey signing in). Never in the answer.
    public internal(set) var accountID: String?
    public internal(set) var accountUsername: String?
    /// In the answer as `signalUnknownCredential` (``PasskeyRelyingParty/UnknownCredentialSignal``).
    public internal(set) var unknownCredential: UnknownCredentialSignal?

    public init(_ code: ErrorCode, _ message: String, logDetail: String? = nil, expected: String? = nil, received: String? = nil) {
        self.code = code
        self.message = message
        self.logDetail = logDetail
        self.expected = expected
        self.received = received
    }

    public var description: String { "\(statusCode) \(code): \(message)" + (logDetail.map { " [\($0)]" } ?? "") }

    /// The answer's body.
    public var answer: ErrorAnswer {
        ErrorAnswer(error: code, message: message, signalUnknownCredential: unknownCredential?.options)
    }

    /// A body over the limit: read by a route, or announced with `Expect: 100-continue`.
    static func requestTooLarge(limit: Int) -> APIError {
        APIError(.requestTooLarge, "The request body is larger than \(limit) bytes.")
    }

    /// A body not declared JSON (``Request/requireJSONContentType(_:)``). The type is not quoted back: it came from the
    /// client, and the message also shows in the dashboard's event log.
    static func contentTypeUnsupported(_ contentType: String?) -> APIError {
        APIError(
            .contentTypeUnsupported, contentType == nil
                ? "The request has a body but no Content-Type: send JSON with Content-Type: application/json."
                : "The request body must be JSON, sent with Content-Type: application/json.")
    }

    /// A request that did not arrive in time (``RequestDeadlineHandler``).
    static func requestTimeout(_ deadline: RequestDeadline) -> APIError {
        let seconds = deadline.base.nanoseconds / 1_000_000_000
        let rate = deadline.minimumRate > 0 ? ", plus one second for every \(deadline.minimumRate) bytes sent" : ""
        return APIError(
            .requestTimeout, "The request did not arrive in time: a request has \(seconds) seconds from its first byte\(rate).")
    }

    /// A server fault; the detail goes to the log only.
    static func internalError(_ detail: String? = nil) -> APIError {
        APIError(.internalError, "The server failed. The error was logged.", logDetail: detail)
    }

    /// The answer for an error out of a block that mixes API and storage failures: API errors pass through, storage
    /// errors map as ``init(_:)-storage``, anything else is an internal error.
    init(mapping error: any Error) {
        if let api = error as? APIError {
            self = api
        } else if let refusal = error as? RelyingPartyError {
            self.init(refusal)
        } else if let storage = error as? StorageError {
            self.init(storage)
        } else if let refusal = error as? AuthorizationRefusal {
            self.init(refusal.code, refusal.description)
        } else if let refusal = error as? OpenIDTokenRefusal {
            self.init(refusal.code, refusal.description, logDetail: refusal.logDetail)
        } else {
            self = .internalError("\(error)")
        }
    }

    static var challengeInvalid: APIError { APIError(RelyingPartyError(.challengeInvalid, RelyingPartyError.challengeInvalidMessage)) }

    /// The account is disabled: the library's refusal (``PasskeyRelyingParty/RelyingPartyError/accountDisabled(_:)``),
    /// naming `user` for the event log (never in the answer).
    static func accountDisabled(_ user: UserRecord) -> APIError { APIError(RelyingPartyError.accountDisabled(user)) }

    static func rateLimited(retryAfter seconds: Int) -> APIError {
        var error = APIError(
            .rateLimited, "Too many requests for new options from this client. Try again in \(seconds) s.")
        error.retryAfterSeconds = seconds
        return error
    }

    /// A verification failure: 400 with the verifier's code (``PasskeyRelyingParty/RelyingPartyError/init(_:)-webauthn``
    /// keeps secrets out of the log detail).
    init(_ error: WebAuthnError) { self.init(RelyingPartyError(error)) }

    /// A malformed request body: 400 with the wire reader's code.
    init(_ error: WireError) { self.init(RelyingPartyError(error)) }

    /// A storage failure: conflicts are 409, a missing record 404, an unreachable database 503, anything else 500
    /// without internals.
    init(_ error: StorageError) { self.init(RelyingPartyError(error)) }

    /// A value from the client cut for answers and the event log (``PasskeyRelyingParty/RelyingPartyError/clipped(_:)``).
    static func clipped(_ text: String) -> String { RelyingPartyError.clipped(text) }
}
