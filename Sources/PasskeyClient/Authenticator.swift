public import PasskeyWire

/// The one seam every passkey backend plugs into: the platform sheet on Apple devices, the software authenticator on
/// Linux, in the CLI and in UI tests, and a scripted double in unit tests.
///
/// It speaks only our own value types, the WebAuthn Level 3 JSON that the server produces and verifies: creation
/// options in, `RegistrationResponseJSON` out; request options in, `AuthenticationResponseJSON` out. No
/// AuthenticationServices type crosses it, so the flows above it run and are tested on Linux, and an Apple adapter
/// (`ASAuthorizationController` behind a continuation) fits behind it without changing callers.
///
/// Rules every implementation follows:
/// - **Cancellation:** cancelling the task that awaits a ceremony ends it (dismissing any sheet) and throws
///   ``PasskeyError/Code/cancelled``.
/// - **One ceremony at a time:** while one ceremony runs, another request fails at once with
///   ``PasskeyError/Code/ceremonyInProgress`` and the running one is left alone (platforms refuse a second sheet too;
///   Apple reports "Request already in progress"). To replace a pending AutoFill request, cancel its task first; a
///   backend may do that itself, since nobody is answering a pending AutoFill request (the Apple adapter does:
///   ``AppleRequestAdmission``).
/// - **Expected outcomes have their own codes:** ``PasskeyError/Code/cancelled``, ``PasskeyError/Code/noCredentials``
///   and ``PasskeyError/Code/excludedCredentialExists`` are distinct, so the UI can react to each.
public protocol Authenticator: Sendable {
    /// Creates a credential (`navigator.credentials.create()`, WebAuthn L3 §5.1.3).
    func makeCredential(_ request: RegistrationRequest) async throws(PasskeyError) -> RegistrationResponseJSON

    /// Signs in with an existing credential (`navigator.credentials.get()`, WebAuthn L3 §5.1.4).
    func getAssertion(_ request: AssertionRequest) async throws(PasskeyError) -> AuthenticationResponseJSON

    /// Signs in with a passkey, or with a saved password or Sign in with Apple when `alternatives` offers them and the
    /// person picks one in the same sheet (Apple's combined requests). A default that offers passkeys only (and
    /// returns ``SignInCredential/passkey(_:)`` from ``getAssertion(_:)``) is provided for backends without passwords or
    /// Sign in with Apple.
    func getCredential(_ request: AssertionRequest, offering alternatives: SignInAlternatives) async throws(PasskeyError) -> SignInCredential

    /// Creates a passkey for a new account in the system's sign-up sheet, which also lets the person pick the contact
    /// the account is named by (Apple's account creation, iOS 26; ``AuthenticatorCapabilities/supportsAccountCreation``).
    /// A default that throws ``PasskeyError/Code/notSupported`` is provided for backends without such a sheet.
    func createAccount(_ request: AccountCreationRequest) async throws(PasskeyError) -> AccountCreationCredential

    /// What this backend can do here, without showing anything. A default (supported, platform authenticator
    /// available, no AutoFill) is provided for backends that cannot tell.
    func capabilities() async -> AuthenticatorCapabilities

    /// The relying party says it deleted this credential (WebAuthn L3 §5.1.10, `signalUnknownCredential`): a backend
    /// that keeps credentials itself may forget it, so it is not offered again. `rpID` nil: whichever RP ID the
    /// credential is for (credential IDs are unique). The flows call it when the server answers
    /// `passkey_deleted_on_server` and after ``PasskeyConnect`` deleted a passkey from the list, never on
    /// `credential_unknown`, which could come from another server on the same RP ID (two local servers on `localhost`)
    /// whose passkey must stay. A default that does nothing is provided: platform authenticators decide for themselves.
    func signalUnknownCredential(rpID: String?, credentialID: [UInt8]) async

    /// The relying party lists every passkey it accepts for one account (WebAuthn L3 §5.1.10,
    /// `signalAllAcceptedCredentials`): a backend that keeps credentials may remove or hide that account's others, which
    /// were deleted on the server. The flows call it with a complete list only (``PasskeyConnect`` after listing the
    /// account's passkeys). A default that does nothing is provided.
    func signalAllAcceptedCredentials(rpID: String, userHandle: [UInt8], credentialIDs: [[UInt8]]) async

    /// The account's current name and display name (WebAuthn L3 §5.1.10, `signalCurrentUserDetails`): a backend that
    /// keeps credentials may show them from now on, after the account was renamed. A default that does nothing is
    /// provided.
    func signalCurrentUserDetails(rpID: String, userHandle: [UInt8], name: String, displayName: String) async
}

extension Authenticator {
    public func getCredential(_ request: AssertionRequest, offering alternatives: SignInAlternatives) async throws(PasskeyError)
        -> SignInCredential
    {
        .passkey(try await getAssertion(request))
    }

    public func createAccount(_ request: AccountCreationRequest) async throws(PasskeyError) -> AccountCreationCredential {
        throw PasskeyError(.notSupported, stage: .authenticator, "this authenticator has no sign-up sheet that creates an account (iOS 26's account creation)")
    }

    public func signalUnknownCredential(rpID: String?, credentialID: [UInt8]) async {}
    public func signalAllAcceptedCredentials(rpID: String, userHandle: [UInt8], credentialIDs: [[UInt8]]) async {}
    public func signalCurrentUserDetails(rpID: String, userHandle: [UInt8], name: String, displayName: String) async {}
}
