#if PASSKEY_APPLE_ADAPTER
#if canImport(AuthenticationServices)
import AuthenticationServices
#else
import AuthenticationServicesStandIn
#endif
import Foundation
import PasskeyClient
import PasskeyWire

/// What a finished run produced: the credential already converted to WebAuthn JSON (a Sendable value), so no
/// AuthenticationServices object leaves the main actor.
enum AuthorizationResult: Sendable {
    case registration(RegistrationResponseJSON)
    case assertion(AuthenticationResponseJSON)
    case accountCreation(AccountCreationCredential)
    /// A saved password picked in a combined sign-in sheet.
    case password(PasswordCredential)
    /// Sign in with Apple picked in a combined sign-in sheet.
    case appleID(AppleIDCredential)
}

/// One `ASAuthorizationController` run bridged to async: its delegate and presentation-context provider.
///
/// The continuation resumes exactly once, whichever comes first: the delegate's success, its error, or ``cancel()``
/// (task cancellation, or a newer request replacing a pending AutoFill); later callbacks find it resumed
/// (``ResumeOnce``) and are ignored. The run keeps the controller alive; the authenticator keeps the run alive until it
/// finishes.
@MainActor
final class AuthorizationRun: NSObject, ASAuthorizationControllerDelegate, ASAuthorizationControllerPresentationContextProviding {
    let presentation: ApplePresentation
    private let ceremony: CeremonyKind
    private let controller: ASAuthorizationController
    private let anchor: ASPresentationAnchor
    private let hadExcludedCredentials: Bool
    private let credPropsRequested: Bool
    private let offeredAppleID: Bool
    private var outcome: ResumeOnce<Result<AuthorizationResult, PasskeyError>>?
    private var startedAt: ContinuousClock.Instant?
    private var anchorRequested = false
    private var cancelledByApp = false

    init(
        requests: [ASAuthorizationRequest], presentation: ApplePresentation, ceremony: CeremonyKind, anchor: ASPresentationAnchor,
        hadExcludedCredentials: Bool = false, credPropsRequested: Bool = false, offeredAppleID: Bool = false
    ) {
        controller = ASAuthorizationController(authorizationRequests: requests)
        self.presentation = presentation
        self.ceremony = ceremony
        self.anchor = anchor
        self.hadExcludedCredentials = hadExcludedCredentials
        self.credPropsRequested = credPropsRequested
        self.offeredAppleID = offeredAppleID
        super.init()
    }

    /// Performs the requests and waits for the outcome.
    func run() async -> Result<AuthorizationResult, PasskeyError> {
        await withCheckedContinuation { continuation in
            outcome = ResumeOnce(continuation)
            if cancelledByApp {
                finish(.failure(.cancelled("the task was cancelled before the request started")))
                return
            }
            controller.delegate = self
            controller.presentationContextProvider = self
            startedAt = .now
            switch presentation {
            case .modal, .conditionalRegistration:
                controller.performRequests()
            case .immediate:
                controller.performRequests(options: .preferImmediatelyAvailableCredentials)
            case .autoFill:
                #if os(macOS) || targetEnvironment(macCatalyst)
                finish(.failure(PasskeyError(.notSupported, stage: .authenticator, "AutoFill-assisted requests exist on iOS and visionOS only")))
                #else
                controller.performAutoFillAssistedRequests()
                #endif
            }
        }
    }

    /// Ends the run with ``PasskeyError/Code/cancelled`` now, and dismisses whatever the controller shows.
    func cancel() {
        cancelledByApp = true
        guard outcome?.isPending == true else { return }
        if startedAt != nil { controller.cancel() }
        finish(.failure(.cancelled("the app cancelled the request (its task was cancelled, or a newer request replaced it)")))
    }

    func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization) {
        finish(convert(authorization.credential))
    }

    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
        let context = AppleCeremonyContext(
            ceremony: ceremony, presentation: presentation, hadExcludedCredentials: hadExcludedCredentials,
            elapsed: startedAt.map { ContinuousClock.now - $0 } ?? .zero, presentationAnchorRequested: anchorRequested,
            cancelledByApp: cancelledByApp, offeredAppleID: offeredAppleID)
        finish(.failure(AppleErrorMapping.passkeyError(for: ApplePlatformError(error), in: context)))
    }

    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor {
        anchorRequested = true
        return anchor
    }

    private func finish(_ result: Result<AuthorizationResult, PasskeyError>) {
        guard outcome?.resume(returning: result) == true else { return }
        controller.delegate = nil
        controller.presentationContextProvider = nil
    }

    private func convert(_ credential: any ASAuthorizationCredential) -> Result<AuthorizationResult, PasskeyError> {
        do throws(PasskeyError) {
            switch ceremony {
            case .registration:
                #if compiler(>=6.2)
                if #available(iOS 26.0, macOS 26.0, visionOS 26.0, *),
                    let created = credential as? ASAuthorizationAccountCreationPlatformPublicKeyCredential
                {
                    return .success(.accountCreation(try AccountCreationConversion.credential(created)))
                }
                #endif
                if let registration = credential as? ASAuthorizationPlatformPublicKeyCredentialRegistration {
                    return .success(.registration(try AppleCredentialConversion.registrationResponse(registration, credPropsRequested: credPropsRequested)))
                }
                #if !os(visionOS)
                if let registration = credential as? ASAuthorizationSecurityKeyPublicKeyCredentialRegistration {
                    return .success(.registration(try AppleCredentialConversion.registrationResponse(registration, credPropsRequested: credPropsRequested)))
                }
                #endif
            case .assertion:
                if let assertion = credential as? ASAuthorizationPlatformPublicKeyCredentialAssertion {
                    return .success(.assertion(try AppleCredentialConversion.authenticationResponse(assertion)))
                }
                #if !os(visionOS)
                if let assertion = credential as? ASAuthorizationSecurityKeyPublicKeyCredentialAssertion {
                    return .success(.assertion(try AppleCredentialConversion.authenticationResponse(assertion)))
                }
                #endif
                // Only when the sheet offered them (AppleRequestPlan.signIn).
                if let password = credential as? ASPasswordCredential {
                    return .success(.password(PasswordCredential(user: password.user, password: password.password)))
                }
                if let appleID = credential as? ASAuthorizationAppleIDCredential {
                    return .success(.appleID(try AppleIDCredentialConversion.credential(appleID)))
                }
            }
        } catch {
            return .failure(error)
        }
        return .failure(
            PasskeyError(.invalidResponse, stage: .authenticator, "AuthenticationServices returned a \(type(of: credential)) for a \(ceremony.rawValue)"))
    }
}
#endif
