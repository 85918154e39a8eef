public import PasskeyAPI
public import PasskeyCore
public import PasskeyStorage
public import PasskeyWire

/// Why a relying-party operation refused or failed: a stable code, a message safe to show the client, and what the
/// operator needs in the log.
///
/// One error for the library, as ``PasskeyCore/WebAuthnError`` is the core's and ``PasskeyStorage/StorageError`` is
/// storage's. Verification failures keep the core's codes (`signature_invalid`, `origin_mismatch`…); storage failures
/// map to the codes below. The library knows no transport: an HTTP server maps codes to statuses (passkey-server's
/// `APIError`), an app embedding the library maps them to its own answers. `docs/error-codes.md` lists every code.
public struct RelyingPartyError: Error, Sendable, CustomStringConvertible {
    /// A stable error code: the HTTP API's (``PasskeyAPI/ErrorCode``), so the library, the server and the clients
    /// share one set, each code with its status and meaning in one catalog.
    public typealias Code = ErrorCode

    public let code: Code
    /// Safe for clients: never internals, challenges, keys or credential IDs.
    public let message: String
    /// For the log only.
    public let logDetail: String?
    /// For origin and RP ID failures and attestation policy refusals: what the relying party accepts and what came
    /// (shown in an operator's event log; never a challenge, key or credential ID).
    public let expected: String?
    public let received: String?
    /// The account a refusal concerns, when the request did not name it but proved it (a disabled account's passkey
    /// signing in): for an operator's event log only, never for the client.
    public internal(set) var accountID: String?
    public internal(set) var accountUsername: String?
    /// For a sign-in with a passkey no account holds (`credential_unknown`, `passkey_deleted_on_server`): what the
    /// client passes to `signalUnknownCredential`, when it is safe to (``UnknownCredentialSignal``). Part of the answer.
    public internal(set) var unknownCredential: UnknownCredentialSignal?

    public init(_ code: Code, _ message: String, logDetail: String? = nil, expected: String? = nil, received: String? = nil) {
        self.code = code
        self.message = message
        self.logDetail = logDetail
        self.expected = expected
        self.received = received
    }

    public var description: String { "\(code.rawValue): \(message)" + (logDetail.map { " [\($0)]" } ?? "") }

    /// The same refusal with another log detail (what only the operator may know about it).
    func withLogDetail(_ detail: String) -> RelyingPartyError {
        var copy = RelyingPartyError(code, message, logDetail: detail, expected: expected, received: received)
        copy.accountID = accountID
        copy.accountUsername = accountUsername
        copy.unknownCredential = unknownCredential
        return copy
    }

    public static let challengeInvalidMessage = "The challenge is unknown, was already used, or expired. Request new options and try again."

    static let challengeInvalid = RelyingPartyError(.challengeInvalid, challengeInvalidMessage)

    /// A recovery or onboarding link that is unknown, used, expired or revoked, or whose account is gone or disabled:
    /// one answer for all, so that only a valid link's holder learns anything about its account.
    public static let accountLinkInvalid = RelyingPartyError(
        .accountLinkInvalid, "This link is not valid: it may have been used, have expired or been revoked. Ask for a new one.")

    static let registrationClosed = RelyingPartyError(
        .registrationClosed,
        "New accounts are not made here: this server adds passkeys to the app's own accounts (connect). Sign in, then add a passkey.")

    /// The account is disabled (``PasskeyStorage/UserRecord/disabledAt``): it neither signs in nor gains passkeys, and
    /// the tokens that name it are refused, until it is enabled again. Only callers the account already trusted learn
    /// this: the holder of its passkey (a sign-in is refused so only after its signature verified), the app's backend,
    /// and an app holding a connect token the backend minted for it.
    public static let accountDisabled = RelyingPartyError(
        .accountDisabled, "This account is disabled. Contact the service to have it enabled again.")

    /// ``accountDisabled`` naming `user` for the event log (never in the answer).
    public static func accountDisabled(_ user: UserRecord) -> RelyingPartyError {
        var error = accountDisabled
        error.accountID = user.id
        error.accountUsername = user.username
        return error
    }

    /// A passkey was being added to an account that was deleted before the registration completed: nothing is stored,
    /// and the account is not created again.
    static func accountDeleted(_ error: StorageError) -> RelyingPartyError {
        RelyingPartyError(.userNotFound, "The account this passkey was being added to was deleted.", logDetail: error.reason)
    }

    /// A fault of the server; the detail goes to the log only.
    public static func internalError(_ detail: String? = nil) -> RelyingPartyError {
        RelyingPartyError(.internalError, "The server failed. The error was logged.", logDetail: detail)
    }

    /// A verification failure: the verifier's stable code and its plain explanation.
    ///
    /// The log detail keeps the expected and received values (origins, RP ID hashes, counters…) except where they are
    /// challenges, credential IDs, user handles or raw input: logs never hold those.
    public init(_ error: WebAuthnError) {
        let secretValues: Set<WebAuthnError.Code> = [
            .challengeMismatch, .credentialIDMismatch, .credentialNotAllowed, .userHandleMismatch, .userHandleMissing,
            .invalidBase64URL,
        ]
        let detail = secretValues.contains(error.code) ? "\(error.code.rawValue): \(error.reason)" : error.description
        let shown: Set<WebAuthnError.Code> = [.originMismatch, .topOriginMismatch, .rpIDHashMismatch]
        let showValues = shown.contains(error.code)
        // An attestation policy's refusal names what the client brought (its model, its format or attestation type, why
        // its chain failed) in the event log; what the policy expects is the operator's own setting.
        let policy: Set<WebAuthnError.Code> = [.aaguidNotAllowed, .attestationUntrusted, .attestationNotAllowed, .authenticatorCompromised]
        self.init(
            Code(rawValue: error.code.rawValue), error.code.explanation, logDetail: detail,
            expected: showValues ? error.expected.map(Self.clipped) : nil,
            received: showValues || policy.contains(error.code) ? error.received.map(Self.clipped) : nil)
    }

    /// A storage failure: conflicts, a missing record, an unreachable database; anything else is an internal error
    /// without internals.
    public init(_ error: StorageError) {
        switch error.code {
        case .credentialExists: self.init(.credentialExists, "This passkey is already registered.", logDetail: error.reason)
        case .usernameTaken: self.init(.usernameTaken, "This username is taken.", logDetail: error.reason)
        case .counterConflict:
            self.init(.counterConflict, "Another sign-in with this passkey happened at the same time. Try again.", logDetail: error.reason)
        case .notFound: self.init(.notFound, "Not found.", logDetail: error.reason)
        case .accountDisabled: self = .accountDisabled
        case .unavailable: self.init(.storageUnavailable, "The server cannot reach its database. Try again shortly.", logDetail: error.reason)
        default: self.init(.internalError, "The server failed. The error was logged.", logDetail: error.description)
        }
    }

    /// The error out of a block that mixes refusals and storage failures: refusals pass through, storage failures map as
    /// ``init(_:)-storage``, anything else is an internal error.
    public init(mapping error: any Error) {
        if let refusal = error as? RelyingPartyError {
            self = refusal
        } else if let storage = error as? StorageError {
            self.init(storage)
        } else {
            self = .internalError("\(error)")
        }
    }

    /// A malformed member of what a client sent (a credential's JSON).
    public init(_ error: WireError) {
        let where_ = error.field.map { " (\($0))" } ?? ""
        let message: String
        switch error.code {
        case .jsonMalformed: message = "The request body is not valid JSON."
        case .fieldMissing: message = "A required member is missing\(where_)."
        default: message = "A member has the wrong type or value\(where_)."
        }
        self.init(Code(rawValue: error.code.rawValue), message, logDetail: error.description)
    }

    /// Longest value shown back to the client and kept in the event log. A client's origin can be any length: a
    /// 40 000-character one was answered, logged and stored in full.
    public static let maximumValueLength = 256

    /// `text` cut to ``maximumValueLength`` Unicode scalars, marked with `…` when cut. Scalars, not characters: one
    /// character can carry any number of combining marks.
    public static func clipped(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > maximumValueLength else { return text }
        return String(String.UnicodeScalarView(scalars.prefix(maximumValueLength))) + "…"
    }
}
