public import PasskeyAPI
public import PasskeyWire

/// The server's answer to a verified ceremony (`POST /verify-registration` or `POST /verify-authentication`): the same
/// fields for both, with the credential JSON that was sent.
public struct PasskeyCeremonyResult<Response: Sendable & Hashable>: Sendable, Hashable {
    public var verified: Bool
    /// The account's name. passkey-server names an anonymous account by the name its passkey carries (`anonymous-…`),
    /// and always sends one; `nil` only from a server that sends none (older releases did, for anonymous accounts).
    public var username: String?
    public var userId: String
    /// The credential registered or used, base64url.
    public var credentialId: String
    public var isAnonymous: Bool
    /// What was sent to the server.
    public var response: Response
    /// The server's short-lived signed proof of this ceremony, for the app's own backend to verify (docs/connect.md).
    public var signedPasskeyData: String?
    /// The `prf` extension's outputs, when the flow was asked for them; never sent to the server.
    public var prf: PRFOutputs?
    /// The server accepted a sign-in whose signature counter did not increase (it runs with
    /// `--allow-counter-regression`): the passkey may have been cloned. The app's backend sees it in signedPasskeyData
    /// too; `false` otherwise.
    public var counterRegressed: Bool

    public init(
        verified: Bool, username: String?, userId: String, credentialId: String, isAnonymous: Bool, response: Response,
        signedPasskeyData: String? = nil, prf: PRFOutputs? = nil, counterRegressed: Bool = false
    ) {
        self.verified = verified
        self.username = username
        self.userId = userId
        self.credentialId = credentialId
        self.isAnonymous = isAnonymous
        self.response = response
        self.signedPasskeyData = signedPasskeyData
        self.prf = prf
        self.counterRegressed = counterRegressed
    }
}

/// The server's answer to a verified registration (`POST /verify-registration`).
public typealias PasskeyRegistrationResult = PasskeyCeremonyResult<RegistrationResponseJSON>

/// The server's answer to a verified sign-in (`POST /verify-authentication`).
public typealias PasskeyAuthenticationResult = PasskeyCeremonyResult<AuthenticationResponseJSON>

/// What the client reports for analytics: one event when a ceremony starts and one when it ends. Events carry codes,
/// never challenges, keys or credential contents.
public enum PasskeyClientEvent: Sendable, Hashable {
    /// `username` is `nil` for an anonymous registration.
    case registrationStarted(username: String?)
    case registrationSucceeded(userId: String, credentialId: String, isAnonymous: Bool)
    case registrationFailed(PasskeyClientFailure)
    /// `username` is `nil` for a usernameless (discoverable) sign-in.
    case authenticationStarted(username: String?)
    case authenticationSucceeded(userId: String, credentialId: String, isAnonymous: Bool)
    case authenticationFailed(PasskeyClientFailure)
    /// A combined sheet (``PasskeyAuthClient/signIn(username:mediation:offering:)``) ended with a saved password
    /// or Sign in with Apple: the app signs in with it itself.
    case authenticationEndedWithAlternative(kind: SignInAlternativeKind)
}

/// A failure as an analytics event sees it: stable codes only.
public struct PasskeyClientFailure: Sendable, Hashable {
    public var code: PasskeyError.Code
    public var stage: PasskeyError.Stage
    /// The server's own code (`username_taken`, `challenge_invalid`, …) when the server refused.
    public var serverCode: ErrorCode?

    public init(code: PasskeyError.Code, stage: PasskeyError.Stage, serverCode: ErrorCode?) {
        self.code = code
        self.stage = stage
        self.serverCode = serverCode
    }

    public init(_ error: PasskeyError) {
        self.init(code: error.code, stage: error.stage, serverCode: error.server?.code)
    }
}
