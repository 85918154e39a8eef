public import PasskeyAPI

/// Why a passkey ceremony on the client did not produce a credential: the one error type of the client SDK.
///
/// Codes are an open set of stable snake_case strings (new ones can be added without breaking a `switch`), so logs,
/// analytics and the server can rely on them. Each error also says at which ``Stage`` it happened, what a person can
/// do about it (``recovery``), and carries a developer-facing ``reason``. The text shown to people comes from
/// ``userMessage`` and ``recovery`` (and from `LocalizedError` where Foundation is available), never from ``reason``.
///
/// "Cancelled by the user" (``Code/cancelled``) and "no passkey on this device" (``Code/noCredentials``) are
/// different codes on purpose: the first means show nothing, the second means offer another device or another way
/// to sign in. When a platform cannot tell them apart (Apple's error 1001 means both), the error is `cancelled` with
/// ``isAmbiguousCancellation`` set, rather than a silent guess.
public struct PasskeyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, machine-readable error code.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The person dismissed the passkey sheet or cancelled the task running the ceremony.
        public static let cancelled = Code(rawValue: "cancelled")
        /// No passkey for this relying party (or none of the allowed ones) is available on this device.
        public static let noCredentials = Code(rawValue: "no_credentials")
        /// A credential listed in `excludeCredentials` already lives on this authenticator: the account already has a
        /// passkey here (WebAuthn `InvalidStateError`).
        public static let excludedCredentialExists = Code(rawValue: "excluded_credential_exists")
        /// In the system's sign-up sheet (account creation, iOS 26) the person chose to sign in with their Apple
        /// Account instead of making a passkey: the app starts its Sign in with Apple flow. Not a silent cancel.
        public static let preferSignInWithApple = Code(rawValue: "prefer_sign_in_with_apple")
        /// The device, OS or authenticator cannot do what was asked (algorithm, attachment, user verification).
        public static let notSupported = Code(rawValue: "not_supported")
        /// The challenge in the options is missing or not base64url.
        public static let invalidChallenge = Code(rawValue: "invalid_challenge")
        /// The options are unusable for another reason (user handle, RP ID, …).
        public static let invalidOptions = Code(rawValue: "invalid_options")
        /// The RP ID does not belong to the origin the ceremony runs for (website domain or associated app domain).
        public static let domainNotAssociated = Code(rawValue: "domain_not_associated")
        /// The authenticator or platform returned something that cannot be used.
        public static let invalidResponse = Code(rawValue: "invalid_response")
        /// The ceremony took longer than the options' `timeout`.
        public static let timeout = Code(rawValue: "timeout")
        /// Another ceremony is already running on this authenticator; only one runs at a time.
        public static let ceremonyInProgress = Code(rawValue: "ceremony_in_progress")
        /// The relying-party server could not be reached.
        public static let network = Code(rawValue: "network")
        /// The relying-party server answered with an error; see ``PasskeyError/server``.
        public static let server = Code(rawValue: "server")
        /// The credential store could not be read or written (I/O, permissions).
        public static let storageFailed = Code(rawValue: "storage_failed")
        /// The credential store holds data this code cannot read (corrupt, edited, or a newer format).
        public static let storageCorrupted = Code(rawValue: "storage_corrupted")
        /// A bug or an unexpected state in the SDK or platform.
        public static let internalError = Code(rawValue: "internal_error")
        /// The app's own backend gave no connect token (its ``ConnectTokenProvider`` threw): nothing reached the passkey
        /// server.
        public static let connectTokenUnavailable = Code(rawValue: "connect_token_unavailable")
        /// The passkey the device offered was deleted on the server (from another device, by support, by the app's
        /// backend), while its account remains (the server's `passkey_deleted_on_server`, whose message is in
        /// ``ServerProblem/message``): say so, and offer another way in. The SDK tells the device to forget it.
        public static let passkeyDeletedOnServer = Code(rawValue: "passkey_deleted_on_server")
        /// The app's ``ConnectTokenProvider`` returned a token of another kind than the call asked for (the server's
        /// `connect_token_wrong_type`): an app mistake, which ``reason`` names with the kind asked.
        public static let connectTokenWrongType = Code(rawValue: "connect_token_wrong_type")
        /// The server refused because the account is disabled (its `account_disabled`): the passkey is fine, but the
        /// service has suspended the account. Retrying does not help; the person needs the service's support.
        public static let accountDisabled = Code(rawValue: "account_disabled")
    }

    /// Where in the ceremony the error happened.
    public struct Stage: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.init(rawValue: value) }
        public var description: String { rawValue }

        /// Reading and checking the options the server produced.
        public static let options: Stage = "options"
        /// On the authenticator: the sheet, user presence and verification, key creation and signing.
        public static let authenticator: Stage = "authenticator"
        /// Reading or writing stored credentials.
        public static let storage: Stage = "storage"
        /// Talking to the relying-party server.
        public static let network: Stage = "network"
        /// The server's verification of the response.
        public static let verification: Stage = "verification"
    }

    /// What the app should offer the person next.
    public struct Recovery: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.init(rawValue: value) }
        public var description: String { rawValue }

        /// Nothing to suggest; the person chose this (cancel).
        public static let none: Recovery = "none"
        /// Trying again may work.
        public static let retry: Recovery = "retry"
        /// Use the passkey that already exists.
        public static let signInWithExistingPasskey: Recovery = "sign_in_with_existing_passkey"
        /// Use a passkey on another device, or another sign-in method.
        public static let useAnotherDeviceOrMethod: Recovery = "use_another_device_or_method"
        /// The app must fetch fresh options from the server.
        public static let requestNewOptions: Recovery = "request_new_options"
        /// A developer must fix the configuration (domains, associated domains, algorithms).
        public static let checkConfiguration: Recovery = "check_configuration"
        /// Check the network connection, then retry.
        public static let checkConnection: Recovery = "check_connection"
        /// Finish or cancel the ceremony that is already running.
        public static let finishOtherCeremony: Recovery = "finish_other_ceremony"
        /// Contact support: something is broken.
        public static let contactSupport: Recovery = "contact_support"
    }

    /// An error the relying-party server reported.
    public struct ServerProblem: Hashable, Sendable {
        /// The server's stable error code (``PasskeyAPI/ErrorCode``: `.usernameTaken`, `.rateLimited`…).
        public var code: ErrorCode
        /// The server's message, for logs.
        public var message: String
        /// The HTTP status, when there was one.
        public var httpStatus: Int?
        /// A sign-in refused because the server holds no such passkey, when the server says the device may forget it
        /// (the answer's `signalUnknownCredential`, WebAuthn L3 §5.1.10): which RP ID and credential.
        public var unknownCredential: UnknownCredential?

        public init(code: ErrorCode, message: String, httpStatus: Int? = nil, unknownCredential: UnknownCredential? = nil) {
            self.code = code
            self.message = message
            self.httpStatus = httpStatus
            self.unknownCredential = unknownCredential
        }
    }

    /// A passkey the server says no account holds (``ServerProblem/unknownCredential``).
    public struct UnknownCredential: Hashable, Sendable {
        public var rpID: String
        public var credentialID: [UInt8]

        public init(rpID: String, credentialID: [UInt8]) {
            self.rpID = rpID
            self.credentialID = credentialID
        }
    }

    public var code: Code
    public var stage: Stage
    /// Developer detail: what exactly went wrong. Not for people using the app.
    public var reason: String
    public var recovery: Recovery
    /// Set when ``code`` is ``Code/server``.
    public var server: ServerProblem?
    /// The platform could not say whether the person cancelled or had no passkey (Apple error 1001). Treat it as a
    /// cancellation in the UI, but do not conclude there is no passkey.
    public var isAmbiguousCancellation: Bool

    public init(
        _ code: Code, stage: Stage, _ reason: String, recovery: Recovery? = nil, server: ServerProblem? = nil,
        isAmbiguousCancellation: Bool = false
    ) {
        self.code = code
        self.stage = stage
        self.reason = reason
        self.recovery = recovery ?? Self.defaultRecovery(for: code)
        self.server = server
        self.isAmbiguousCancellation = isAmbiguousCancellation
    }

    /// The relying-party server refused a request with its own error `code`.
    public static func server(code: ErrorCode, message: String, httpStatus: Int? = nil) -> PasskeyError {
        PasskeyError(
            .server, stage: .verification, "server error \(code): \(message)",
            server: ServerProblem(code: code, message: message, httpStatus: httpStatus))
    }

    /// The person cancelled, or the task running the ceremony was cancelled.
    public static func cancelled(stage: Stage = .authenticator, _ reason: String = "the ceremony was cancelled") -> PasskeyError {
        PasskeyError(.cancelled, stage: stage, reason)
    }

    public var description: String { "\(code.rawValue) at \(stage.rawValue): \(reason)" }

    /// The recovery a person would expect for each code when the thrower has nothing more specific.
    static func defaultRecovery(for code: Code) -> Recovery {
        switch code {
        case .cancelled: .none
        case .noCredentials, .preferSignInWithApple, .passkeyDeletedOnServer: .useAnotherDeviceOrMethod
        case .excludedCredentialExists: .signInWithExistingPasskey
        case .notSupported: .useAnotherDeviceOrMethod
        case .invalidChallenge, .invalidOptions: .requestNewOptions
        case .domainNotAssociated, .connectTokenWrongType: .checkConfiguration
        case .timeout: .retry
        case .ceremonyInProgress: .finishOtherCeremony
        case .network: .checkConnection
        case .server: .retry
        case .storageFailed, .storageCorrupted, .invalidResponse, .internalError, .accountDisabled: .contactSupport
        default: .retry
        }
    }
}
