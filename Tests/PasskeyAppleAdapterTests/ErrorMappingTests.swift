import Foundation
import PasskeyClient
import Testing

@Suite("Apple error mapping")
struct ErrorMappingTests {
    static let modalSignIn = AppleCeremonyContext(ceremony: .assertion, presentation: .modal, elapsed: .seconds(4), presentationAnchorRequested: true)
    static let registration = AppleCeremonyContext(ceremony: .registration, presentation: .modal, hadExcludedCredentials: true, elapsed: .seconds(3))

    static func authorization(_ code: AppleAuthorizationErrorCode, message: String = "", failureReason: String? = nil) -> ApplePlatformError {
        ApplePlatformError(domain: AppleAuthorizationErrorCode.domain, code: code.rawValue, message: message, failureReason: failureReason)
    }

    @Test("the raw values are Apple's documented ones")
    func rawValues() {
        #expect(AppleAuthorizationErrorCode.allCases.map(\.rawValue) == Array(1000...1010))
        #expect(AppleAuthorizationErrorCode.domain == "com.apple.AuthenticationServices.AuthorizationError")
        #expect(AppleWebKitErrorCode.invalidState.rawValue == 8 && AppleWebKitErrorCode.notAllowed.rawValue == 31)
    }

    @Test("every ASAuthorizationError code maps to a stable PasskeyError code")
    func everyCode() {
        let expected: [AppleAuthorizationErrorCode: (PasskeyError.Code, PasskeyError.Recovery)] = [
            .unknown: (.internalError, .contactSupport),
            .canceled: (.cancelled, .none),
            .invalidResponse: (.invalidResponse, .contactSupport),
            .notHandled: (.notSupported, .useAnotherDeviceOrMethod),
            .failed: (.internalError, .contactSupport),
            .notInteractive: (.notSupported, .retry),
            .matchedExcludedCredential: (.excludedCredentialExists, .signInWithExistingPasskey),
            .credentialImport: (.internalError, .contactSupport),
            .credentialExport: (.internalError, .contactSupport),
            .preferSignInWithApple: (.preferSignInWithApple, .useAnotherDeviceOrMethod),
            .deviceNotConfiguredForPasskeyCreation: (.notSupported, .useAnotherDeviceOrMethod),
        ]
        #expect(expected.count == AppleAuthorizationErrorCode.allCases.count)
        for code in AppleAuthorizationErrorCode.allCases {
            let error = AppleErrorMapping.passkeyError(for: Self.authorization(code, message: "text"), in: Self.modalSignIn)
            #expect(error.code == expected[code]?.0, "\(code)")
            #expect(error.recovery == expected[code]?.1, "\(code)")
            #expect(error.stage == .authenticator)
            #expect(error.reason.contains("com.apple.AuthenticationServices.AuthorizationError \(code.rawValue)"), "\(code)")
            #expect(!error.isAmbiguousCancellation, "\(code)")
        }
        // A code this version does not know.
        #expect(AppleErrorMapping.passkeyError(for: ApplePlatformError(domain: AppleAuthorizationErrorCode.domain, code: 1099), in: Self.modalSignIn).code == .internalError)
    }

    @Test("an excluded credential is excluded_credential_exists however it arrives: 1006 or WKErrorDomain 8")
    func excludedCredential() {
        let viaAuthorization = AppleErrorMapping.passkeyError(for: Self.authorization(.matchedExcludedCredential), in: Self.registration)
        let viaWebKit = AppleErrorMapping.passkeyError(
            for: ApplePlatformError(domain: "WKErrorDomain", code: 8, message: "At least one credential matches an entry of the excludeCredentials list in the platform attached authenticator."),
            in: Self.registration)
        for error in [viaAuthorization, viaWebKit] {
            #expect(error.code == .excludedCredentialExists)
            #expect(error.userMessage == "You already have a passkey for this account on this device.")
            #expect(error.recovery == .signInWithExistingPasskey)
        }
        // 1000 after "save on another device" with exclusions: not guessed, but the reason says what it may be.
        let unknown = AppleErrorMapping.passkeyError(for: Self.authorization(.unknown), in: Self.registration)
        #expect(unknown.code == .internalError && unknown.reason.contains("another device already held the passkey"))
        // 1000 from a combined sheet that offered Sign in with Apple: the reason names the capability it may lack.
        var combined = Self.modalSignIn
        combined.offeredAppleID = true
        let withAppleID = AppleErrorMapping.passkeyError(for: Self.authorization(.unknown), in: combined)
        #expect(withAppleID.code == .internalError && withAppleID.reason.contains("Sign in with Apple capability"))
        let passkeysOnly = AppleErrorMapping.passkeyError(for: Self.authorization(.unknown), in: Self.modalSignIn)
        #expect(!passkeysOnly.reason.contains("Sign in with Apple"))
    }

    @Test("1001 from a sheet the person saw is a plain cancellation; the same error from our own cancel is never ambiguous")
    func cancelled() {
        let person = AppleErrorMapping.passkeyError(for: Self.authorization(.canceled), in: Self.modalSignIn)
        #expect(person.code == .cancelled && !person.isAmbiguousCancellation && person.recoveryMessage == nil)
        var ours = Self.modalSignIn
        ours.cancelledByApp = true
        ours.elapsed = .milliseconds(5)
        let app = AppleErrorMapping.passkeyError(for: Self.authorization(.canceled), in: ours)
        #expect(app.code == .cancelled && !app.isAmbiguousCancellation && app.reason.contains("the app cancelled"))
        let registration = AppleErrorMapping.passkeyError(for: Self.authorization(.canceled), in: Self.registration)
        #expect(registration.code == .cancelled && !registration.isAmbiguousCancellation)
        let upgrade = AppleErrorMapping.passkeyError(
            for: Self.authorization(.canceled),
            in: AppleCeremonyContext(ceremony: .registration, presentation: .conditionalRegistration, elapsed: .milliseconds(40)))
        #expect(upgrade.code == .cancelled && upgrade.reason.contains("declined the automatic passkey upgrade"))
    }

    @Test("cancelled versus no credentials: immediate mediation, failure reason and elapsed time decide, per the documented heuristic")
    func cancelledVersusNoCredentials() {
        func context(_ presentation: ApplePresentation, _ elapsed: Duration, anchor: Bool = false) -> AppleCeremonyContext {
            AppleCeremonyContext(ceremony: .assertion, presentation: presentation, elapsed: elapsed, presentationAnchorRequested: anchor)
        }
        let canceled = Self.authorization(.canceled)
        let cases: [(ApplePlatformError, AppleCeremonyContext, AppleCancellationHeuristic.Verdict, PasskeyError.Code, Bool)] = [
            // 1005 under immediate: nothing to offer without a sheet.
            (Self.authorization(.notInteractive), context(.immediate, .seconds(2)), .noCredentials, .noCredentials, false),
            // iOS 26: 1001 with a failure reason under immediate.
            (Self.authorization(.canceled, failureReason: "No credentials available for login."), context(.immediate, .seconds(3), anchor: true),
             .noCredentials, .noCredentials, false),
            // iOS 16–18: 1001 within milliseconds and no anchor asked for.
            (canceled, context(.immediate, .milliseconds(60)), .noCredentials, .noCredentials, false),
            // Fast, but the anchor was asked for: cannot tell.
            (canceled, context(.immediate, .milliseconds(60), anchor: true), .ambiguous, .cancelled, true),
            // Slow: the person saw the sheet and dismissed it.
            (canceled, context(.immediate, .seconds(5), anchor: true), .cancelledByPerson, .cancelled, false),
            // A modal sheet always appears; too fast to be a person: ambiguous.
            (canceled, context(.modal, .milliseconds(100), anchor: true), .ambiguous, .cancelled, true),
            (canceled, context(.modal, .seconds(2), anchor: true), .cancelledByPerson, .cancelled, false),
            // AutoFill never reports "no credentials" as an error the person sees.
            (canceled, context(.autoFill, .milliseconds(10)), .cancelledByPerson, .cancelled, false),
        ]
        for (error, context, verdict, code, ambiguous) in cases {
            #expect(AppleCancellationHeuristic.verdict(for: error, in: context) == verdict, "\(error) \(context)")
            let mapped = AppleErrorMapping.passkeyError(for: error, in: context)
            #expect(mapped.code == code, "\(error) \(context)")
            #expect(mapped.isAmbiguousCancellation == ambiguous, "\(error) \(context)")
        }
        #expect(AppleCancellationHeuristic.fastestDismissal == .milliseconds(800))
        // The threshold is a parameter, so field data can move it.
        #expect(AppleCancellationHeuristic.verdict(for: canceled, in: context(.immediate, .seconds(1)), fastestDismissal: .seconds(2)) == .noCredentials)
    }

    @Test("1004 failed: association (by SWCErrorDomain underneath or by message), request in progress, iCloud Keychain off")
    func failed() {
        let swc = ApplePlatformError(
            domain: AppleAuthorizationErrorCode.domain, code: 1004, message: "Die Anfrage ist fehlgeschlagen.",
            underlying: [ApplePlatformError(domain: "SWCErrorDomain", code: 104)])
        let byMessage = Self.authorization(.failed, message: "Application with identifier ABCDE12345.com.example.app is not associated with domain example.com")
        for error in [swc, byMessage] {
            let mapped = AppleErrorMapping.passkeyError(for: error, in: Self.modalSignIn)
            #expect(mapped.code == .domainNotAssociated)
            #expect(mapped.recovery == .checkConfiguration)
            #expect(mapped.reason.contains("webcredentials:<rp id>") && mapped.reason.contains("passkey doctor"))
        }
        let busy = AppleErrorMapping.passkeyError(
            for: Self.authorization(.failed, message: "Request already in progress for specified application identifier."), in: Self.modalSignIn)
        #expect(busy.code == .ceremonyInProgress && busy.recovery == .finishOtherCeremony)
        let keychain = AppleErrorMapping.passkeyError(
            for: Self.authorization(.failed, message: "Syncing platform authenticator must be enabled to register a platform public key credential."),
            in: Self.registration)
        #expect(keychain.code == .notSupported)
    }

    @Test("WebKit errors seen in the field, unknown domains, and errors read from NSError with their underlying chain")
    func otherDomains() {
        #expect(AppleErrorMapping.passkeyError(for: ApplePlatformError(domain: "WKErrorDomain", code: 31), in: Self.modalSignIn).code == .timeout)
        #expect(AppleErrorMapping.passkeyError(for: ApplePlatformError(domain: "WKErrorDomain", code: 1), in: Self.modalSignIn).code == .internalError)
        #expect(AppleErrorMapping.passkeyError(for: ApplePlatformError(domain: "NSCocoaErrorDomain", code: 4), in: Self.modalSignIn).code == .internalError)

        let inner = NSError(domain: "SWCErrorDomain", code: 104, userInfo: [NSLocalizedDescriptionKey: "no apps with domain entitlement"])
        let outer = NSError(
            domain: AppleAuthorizationErrorCode.domain, code: 1004,
            userInfo: [NSUnderlyingErrorKey: inner, NSLocalizedDescriptionKey: "The operation couldn’t be completed.", NSLocalizedFailureReasonErrorKey: "why"])
        let read = ApplePlatformError(outer)
        #expect(read.authorizationCode == .failed)
        #expect(read.failureReason == "why")
        #expect(read.underlying.map(\.domain) == ["SWCErrorDomain"] && read.chain.count == 2)
        #expect(AppleErrorMapping.passkeyError(for: read, in: Self.modalSignIn).code == .domainNotAssociated)
    }
}
