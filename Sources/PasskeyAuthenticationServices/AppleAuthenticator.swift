#if PASSKEY_APPLE_ADAPTER
#if canImport(AuthenticationServices)
public import AuthenticationServices
#else
public import AuthenticationServicesStandIn
#endif
#if canImport(LocalAuthentication)
import LocalAuthentication
#endif
public import PasskeyClient
public import PasskeyWire

/// The SDK's ``Authenticator`` on Apple platforms: passkeys and security keys through `ASAuthorizationController`.
///
/// Thin on purpose. Every decision is in `PasskeyClient`, pure and tested on Linux: which requests to make for this OS
/// version (``AppleRequestPlan``), what an Apple error means (``AppleErrorMapping``, including cancelled versus no
/// credentials and excluded credentials), and how a credential becomes WebAuthn JSON (``AppleCredentialConversion``).
/// This class only builds the `ASAuthorization…Request` objects, runs the controller, and bridges it to async:
///
/// - Cancelling the awaiting task cancels the controller (dismissing the sheet) and throws
///   ``PasskeyError/Code/cancelled``.
/// - One request at a time across the app's authenticators (Apple allows one per app): a new request while one the
///   person is answering runs fails with ``PasskeyError/Code/ceremonyInProgress``; a pending AutoFill request, of any
///   instance, is ended and replaced (``AppleRequestAdmission``).
/// - Needs the Associated Domains entitlement `webcredentials:<rp id>` and the server's apple-app-site-association
///   (see docs/ios.md; `passkey doctor` checks the server side).
@MainActor
public final class AppleAuthenticator: Authenticator {
    /// The window the sheet is presented over; `nil` when there is none (the request then fails without UI).
    public typealias PresentationAnchorProvider = @MainActor @Sendable () -> ASPresentationAnchor?

    public let platform: ApplePlatform
    private let presentationAnchor: PresentationAnchorProvider
    let log: @MainActor @Sendable (String) -> Void
    /// The app's running request, whichever instance started it: Apple runs one authorization per app, so a sign-up
    /// sheet's authenticator must see (and replace) the AutoFill request another view's authenticator left pending.
    private static var running: AuthorizationRun?

    /// - Parameters:
    ///   - presentationAnchor: the window to present over, usually the key window of the active scene.
    ///   - platform: the OS to plan for; the running one unless a test says otherwise.
    ///   - log: receives what the OS version could not do (options left out of a request), for the app's logs.
    public init(
        presentationAnchor: @escaping PresentationAnchorProvider, platform: ApplePlatform = .current,
        log: @escaping @MainActor @Sendable (String) -> Void = { _ in }
    ) {
        self.presentationAnchor = presentationAnchor
        self.platform = platform
        self.log = log
    }

    public func makeCredential(_ request: RegistrationRequest) async throws(PasskeyError) -> RegistrationResponseJSON {
        let plan = try AppleRequestPlan.registration(request, on: platform)
        for omission in plan.omissions { log("passkey registration on \(platform): left out \(omission)") }
        let result = try await perform(
            presentation: plan.presentation, ceremony: .registration, hadExcludedCredentials: plan.hasExcludedCredentials,
            credPropsRequested: plan.credPropsRequested
        ) { AuthorizationRequests.registration(plan) }
        guard case .registration(let response) = result else {
            throw PasskeyError(.internalError, stage: .authenticator, "a registration produced an assertion")
        }
        return response
    }

    public func getAssertion(_ request: AssertionRequest) async throws(PasskeyError) -> AuthenticationResponseJSON {
        let plan = try AppleRequestPlan.assertion(request, on: platform)
        for omission in plan.omissions { log("passkey sign-in on \(platform): left out \(omission)") }
        let result = try await perform(presentation: plan.presentation, ceremony: .assertion) { AuthorizationRequests.assertion(plan) }
        guard case .assertion(let response) = result else {
            throw PasskeyError(.internalError, stage: .authenticator, "a sign-in produced something other than a passkey assertion")
        }
        return response
    }

    /// A sign-in sheet that also offers the app's saved passwords and Sign in with Apple, as `alternatives` asks
    /// (``AppleRequestPlan/signIn(_:offering:on:)`` says what each presentation takes). Sign in with Apple needs the
    /// app's "Sign in with Apple" capability; without it Apple fails the whole request.
    public func getCredential(_ request: AssertionRequest, offering alternatives: SignInAlternatives) async throws(PasskeyError)
        -> SignInCredential
    {
        let plan = try AppleRequestPlan.signIn(request, offering: alternatives, on: platform)
        for omission in plan.omissions { log("sign-in on \(platform): left out \(omission)") }
        let result = try await perform(
            presentation: plan.presentation, ceremony: .assertion, offeredAppleID: plan.appleID != nil,
            makeRequests: { AuthorizationRequests.assertion(plan) })
        switch result {
        case .assertion(let response): return .passkey(response)
        case .password(let credential): return .password(credential)
        case .appleID(let credential): return .appleID(credential)
        case .registration, .accountCreation:
            throw PasskeyError(.internalError, stage: .authenticator, "a sign-in produced something other than a credential to sign in with")
        }
    }

    public func capabilities() async -> AuthenticatorCapabilities {
        let owner = Self.deviceOwnerAuthentication()
        return AuthenticatorCapabilities(
            isSupported: platform.supports(.platformCredentials),
            isPlatformAuthenticatorAvailable: platform.supports(.platformCredentials) && owner == .available,
            supportsConditionalMediation: platform.supports(.autoFillAssistedRequests),
            supportsConditionalCreate: platform.supports(.conditionalRegistration),
            supportsAccountCreation: Self.compiledWithAccountCreation && platform.supports(.accountCreation),
            unavailability: platform.passkeyUnavailability(owner: owner))
    }

    /// Whether the device can verify its owner (a passcode or password is set): without one, iOS has no platform
    /// authenticator to create a passkey with (WebAuthn's `isUserVerifyingPlatformAuthenticatorAvailable()`), and a
    /// creation would fail after the app offered it.
    static func deviceOwnerAuthentication() -> DeviceOwnerAuthentication {
        #if canImport(LocalAuthentication)
        var error: NSError?
        if LAContext().canEvaluatePolicy(.deviceOwnerAuthentication, error: &error) { return .available }
        return error?.domain == LAErrorDomain && error?.code == LAError.Code.passcodeNotSet.rawValue ? .passcodeNotSet : .unavailable
        #else
        return .available
        #endif
    }

    /// Cancels the app's running passkey request, if any, whichever authenticator started it (it ends with
    /// ``PasskeyError/Code/cancelled``).
    public func cancelCurrentRequest() {
        Self.running?.cancel()
    }

    /// Runs the requests `makeRequests` builds, once nothing stands in the way: a window to present over, no other
    /// request the person is answering, a task that is not cancelled.
    func perform(
        presentation: ApplePresentation, ceremony: CeremonyKind, hadExcludedCredentials: Bool = false, credPropsRequested: Bool = false,
        offeredAppleID: Bool = false, makeRequests: () -> [ASAuthorizationRequest]
    ) async throws(PasskeyError) -> AuthorizationResult {
        if Task.isCancelled { throw .cancelled("the task was cancelled before the request started") }
        guard let anchor = presentationAnchor() else {
            // Not a fault to report: at launch the first view can ask before its scene has a window; the app tries again.
            throw PasskeyError(
                .internalError, stage: .authenticator,
                "no presentation anchor: there is no window to present the passkey sheet over (yet: try again once the scene is active)",
                recovery: .retry)
        }
        // Checked and claimed before the first suspension point: the main actor makes this atomic.
        switch AppleRequestAdmission.decide(pending: Self.running?.presentation) {
        case .start: break
        case .replacePendingAutoFill: Self.running?.cancel()
        case .refuse:
            throw PasskeyError(
                .ceremonyInProgress, stage: .authenticator,
                "a \(Self.running?.presentation.rawValue ?? "") passkey request is in progress; finish or cancel it first")
        }
        let run = AuthorizationRun(
            requests: makeRequests(), presentation: presentation, ceremony: ceremony, anchor: anchor,
            hadExcludedCredentials: hadExcludedCredentials, credPropsRequested: credPropsRequested, offeredAppleID: offeredAppleID)
        Self.running = run
        defer { if Self.running === run { Self.running = nil } }
        let result = await withTaskCancellationHandler {
            await run.run()
        } onCancel: {
            Task { @MainActor in run.cancel() }
        }
        return try result.get()
    }
}
#endif
