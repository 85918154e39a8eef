import PasskeyRelyingParty
import PasskeyCore
import PasskeyStorage
public import PasskeyWire

/// An error answer: an HTTP status and `{"error": "<stable_code>", "message": "..."}`.
///
/// `message` is safe for clients (it never carries internals, challenges or keys); `logDetail` goes to the log only.
public struct APIError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status code.
    public let statusCode: Int
    public let code: String
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

    public init(status: Int, code: String, message: String, logDetail: String? = nil, expected: String? = nil, received: String? = nil) {
        statusCode = status
        self.code = code
        self.message = message
        self.logDetail = logDetail
        self.expected = expected
        self.received = received
    }

    public var description: String { "\(statusCode) \(code): \(message)" + (logDetail.map { " [\($0)]" } ?? "") }

    public var body: JSONValue { .object(["error": .string(code), "message": .string(message)]) }

    static func badRequest(_ code: String, _ message: String) -> APIError { APIError(status: 400, code: code, message: message) }

    /// A body over the limit: read by a route, or announced with `Expect: 100-continue`.
    static func requestTooLarge(limit: Int) -> APIError {
        APIError(status: 413, code: "request_too_large", message: "The request body is larger than \(limit) bytes.")
    }

    /// A body not declared JSON (``Request/requireJSONContentType(_:)``). The type is not quoted back: it came from the
    /// client, and the message also shows in the dashboard's event log.
    static func contentTypeUnsupported(_ contentType: String?) -> APIError {
        APIError(
            status: 415, code: "content_type_unsupported",
            message: contentType == nil
                ? "The request has a body but no Content-Type: send JSON with Content-Type: application/json."
                : "The request body must be JSON, sent with Content-Type: application/json.")
    }

    /// A request that did not arrive in time (``RequestDeadlineHandler``).
    static func requestTimeout(_ deadline: RequestDeadline) -> APIError {
        let seconds = deadline.base.nanoseconds / 1_000_000_000
        let rate = deadline.minimumRate > 0 ? ", plus one second for every \(deadline.minimumRate) bytes sent" : ""
        return APIError(
            status: 408, code: "request_timeout",
            message: "The request did not arrive in time: a request has \(seconds) seconds from its first byte\(rate).")
    }

    /// A server fault; the detail goes to the log only.
    static func internalError(_ detail: String? = nil) -> APIError {
        APIError(status: 500, code: "internal_error", message: "The server failed. The error was logged.", logDetail: detail)
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
        } else {
            self = .internalError("\(error)")
        }
    }

    static let challengeInvalid = APIError(
        status: 400, code: "challenge_invalid",
        message: "The challenge is unknown, was already used, or expired. Request new options and try again.")

    static let registrationClosed = APIError(
        status: 403, code: "registration_closed",
        message: "New accounts are not made here: this server adds passkeys to the app's own accounts (connect). Sign in, then add a passkey.")

    /// The account is disabled (``PasskeyStorage/UserRecord/disabledAt``): it neither signs in nor gains passkeys, and
    /// the connect tokens and signed tokens that name it are refused, until it is enabled again. Only callers the
    /// account already trusted learn this: the holder of its passkey (a sign-in is refused so only after its signature
    /// verified), the app's backend, and an app holding a connect token the backend minted for it.
    static let accountDisabled = APIError(
        status: 403, code: "account_disabled", message: "This account is disabled. Contact the service to have it enabled again.")

    /// ``accountDisabled`` naming `user` for the event log (never in the answer).
    static func accountDisabled(_ user: UserRecord) -> APIError {
        var error = accountDisabled
        error.accountID = user.id
        error.accountUsername = user.username
        return error
    }

    /// A passkey was being added to an account that was deleted before the registration completed: nothing is stored,
    /// and the account is not created again.
    static func accountDeleted(_ error: StorageError) -> APIError {
        APIError(
            status: 404, code: "user_not_found", message: "The account this passkey was being added to was deleted.", logDetail: error.reason)
    }

    static func rateLimited(retryAfter seconds: Int) -> APIError {
        var error = APIError(
            status: 429, code: "rate_limited", message: "Too many requests for new options from this client. Try again in \(seconds) s.")
        error.retryAfterSeconds = seconds
        return error
    }

    /// A verification failure: 400 with the verifier's stable code and its plain explanation.
    ///
    /// The log detail keeps the expected and received values (origins, RP ID hashes, counters…) except where they are
    /// challenges, credential IDs, user handles or raw input: logs never hold those.
    init(_ error: WebAuthnError) {
        let secretValues: Set<WebAuthnError.Code> = [
            .challengeMismatch, .credentialIDMismatch, .credentialNotAllowed, .userHandleMismatch, .userHandleMissing,
            .invalidBase64URL,
        ]
        let detail = secretValues.contains(error.code) ? "\(error.code.rawValue): \(error.reason)" : error.description
        let shown: Set<WebAuthnError.Code> = [.originMismatch, .topOriginMismatch, .rpIDHashMismatch]
        let showValues = shown.contains(error.code)
        // An attestation policy's refusal names what the client brought (its model, its format or attestation type, why
        // its chain failed) in the dashboard's event log; what the policy expects is on the dashboard's settings page.
        let policy: Set<WebAuthnError.Code> = [.aaguidNotAllowed, .attestationUntrusted, .attestationNotAllowed]
        self.init(
            status: 400, code: error.code.rawValue, message: error.code.explanation, logDetail: detail,
            expected: showValues ? error.expected.map(Self.clipped) : nil,
            received: showValues || policy.contains(error.code) ? error.received.map(Self.clipped) : nil)
    }

    /// Longest value shown back to the client and kept in the event log. A client's origin can be any length: a
    /// 40 000-character one was answered, logged and stored in full.
    static let maximumValueLength = 256

    /// `text` cut to ``maximumValueLength`` Unicode scalars, marked with `…` when cut. Scalars, not characters: one
    /// character can carry any number of combining marks.
    static func clipped(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > maximumValueLength else { return text }
        return String(String.UnicodeScalarView(scalars.prefix(maximumValueLength))) + "…"
    }

    /// A malformed request body.
    init(_ error: WireError) {
        let where_ = error.field.map { " (\($0))" } ?? ""
        let message: String
        switch error.code {
        case .jsonMalformed: message = "The request body is not valid JSON."
        case .fieldMissing: message = "A required member is missing\(where_)."
        default: message = "A member has the wrong type or value\(where_)."
        }
        self.init(status: 400, code: error.code.rawValue, message: message, logDetail: error.description)
    }

    /// A storage failure: conflicts are 409, an unreachable database 503, anything else 500 without internals.
    init(_ error: StorageError) {
        switch error.code {
        case .credentialExists:
            self.init(status: 409, code: "credential_exists", message: "This passkey is already registered.", logDetail: error.reason)
        case .usernameTaken:
            self.init(status: 409, code: "username_taken", message: "This username is taken.", logDetail: error.reason)
        case .counterConflict:
            self.init(
                status: 409, code: "counter_conflict", message: "Another sign-in with this passkey happened at the same time. Try again.",
                logDetail: error.reason)
        case .notFound:
            self.init(status: 404, code: "not_found", message: "Not found.", logDetail: error.reason)
        case .accountDisabled:
            self = .accountDisabled
        case .unavailable:
            self.init(status: 503, code: "storage_unavailable", message: "The server cannot reach its database. Try again shortly.", logDetail: error.reason)
        default:
            self.init(status: 500, code: "internal_error", message: "The server failed. The error was logged.", logDetail: error.description)
        }
    }
}
