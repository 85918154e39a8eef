/// AuthenticationServices errors → ``PasskeyError``, as a pure function over ``ApplePlatformError`` and
/// ``AppleCeremonyContext``.
///
/// | Apple | ``PasskeyError/Code`` |
/// | --- | --- |
/// | 1000 `unknown` | `internal_error` (the reason notes a possible excluded credential on another device, or the Sign in with Apple capability when the sheet offered it) |
/// | 1001 `canceled` | `cancelled`, `no_credentials`, or `cancelled` + ambiguous: ``AppleCancellationHeuristic`` |
/// | 1002 `invalidResponse` | `invalid_response` |
/// | 1003 `notHandled` | `not_supported` |
/// | 1004 `failed` | `domain_not_associated` (SWCErrorDomain underneath, or the association message), `ceremony_in_progress` ("already in progress"), `not_supported` (iCloud Keychain off), else `internal_error` |
/// | 1005 `notInteractive` | `no_credentials` under immediate mediation, else `not_supported` (could not show UI) |
/// | 1006 `matchedExcludedCredential` | `excluded_credential_exists` |
/// | 1007 `credentialImport`, 1008 `credentialExport` | `internal_error` |
/// | 1009 `preferSignInWithApple` | `prefer_sign_in_with_apple`, recovery `use_another_device_or_method` |
/// | 1010 `deviceNotConfiguredForPasskeyCreation` | `not_supported`, recovery `use_another_device_or_method` |
/// | `WKErrorDomain` 8 (`InvalidStateError`) | `excluded_credential_exists` |
/// | `WKErrorDomain` 31 (`NotAllowedError`) | `timeout` |
/// | `SWCErrorDomain` | `domain_not_associated` |
/// | anything else | `internal_error` |
///
/// Every error keeps the platform's domain, code and texts in its ``PasskeyError/reason`` for logs.
public enum AppleErrorMapping {
    /// `SWCErrorDomain`: Shared Web Credentials, which checks the apple-app-site-association file.
    public static let sharedWebCredentialsDomain = "SWCErrorDomain"

    public static func passkeyError(for error: ApplePlatformError, in context: AppleCeremonyContext) -> PasskeyError {
        let detail = "AuthenticationServices: \(error)"
        func make(_ code: PasskeyError.Code, _ why: String, recovery: PasskeyError.Recovery? = nil, ambiguous: Bool = false) -> PasskeyError {
            PasskeyError(code, stage: .authenticator, "\(why) [\(detail)]", recovery: recovery, isAmbiguousCancellation: ambiguous)
        }

        if error.chain.contains(where: { $0.domain == sharedWebCredentialsDomain }) {
            return make(.domainNotAssociated, associationAdvice)
        }
        if error.domain == AppleWebKitErrorCode.domain {
            switch AppleWebKitErrorCode(rawValue: error.code) {
            case .invalidState: return make(.excludedCredentialExists, "a credential in excludeCredentials is already on this authenticator")
            case .notAllowed: return make(.timeout, "the authenticator did not answer in time or the request was not allowed")
            case nil: return make(.internalError, "unexpected WebKit error")
            }
        }
        guard let code = error.authorizationCode else {
            return make(.internalError, "unexpected error from AuthenticationServices")
        }
        switch code {
        case .notInteractive where context.presentation != .immediate && !context.cancelledByApp:
            return make(.notSupported, "the request needed to show UI and could not (is the app in the foreground?)", recovery: .retry)
        case .canceled, .notInteractive:
            switch AppleCancellationHeuristic.verdict(for: error, in: context) {
            case .cancelledByApp: return make(.cancelled, "the app cancelled the request (its task was cancelled, or a newer request replaced it)")
            case .cancelledByPerson: return make(.cancelled, "the person dismissed the request")
            case .declinedBySystem: return make(.cancelled, "the system declined the automatic passkey upgrade (no recent password sign-in, or a passkey exists)")
            case .noCredentials: return make(.noCredentials, "no passkey for this RP ID is available on this device")
            case .ambiguous:
                return make(.cancelled, "cancelled, or no passkey on this device: Apple does not say which", ambiguous: true)
            }
        case .unknown:
            let hint =
                context.ceremony == .registration && context.hadExcludedCredentials
                ? "; with excludeCredentials set, this has been seen when another device already held the passkey"
                : context.offeredAppleID
                    ? "; the sheet offered Sign in with Apple, which fails the whole request when the app lacks the Sign in with Apple capability"
                    : ""
            return make(.internalError, "AuthenticationServices failed for an unknown reason" + hint)
        case .invalidResponse:
            return make(.invalidResponse, "the authenticator returned an unusable response")
        case .notHandled:
            return make(.notSupported, "no credential provider handled the request")
        case .failed:
            let text = error.chain.map { "\($0.message) \($0.failureReason ?? "")" }.joined(separator: " ").lowercased()
            if text.contains("not associated") || text.contains("associated domain") || text.contains("webcredentials")
                || text.contains("app-site-association")
            {
                return make(.domainNotAssociated, associationAdvice)
            }
            if text.contains("already in progress") {
                return make(.ceremonyInProgress, "another authorization request of this app is still running")
            }
            if text.contains("icloud keychain") || text.contains("syncing platform authenticator") {
                return make(.notSupported, "passkeys need iCloud Keychain (or another passkey provider) turned on", recovery: .useAnotherDeviceOrMethod)
            }
            return make(.internalError, "the authorization failed")
        case .matchedExcludedCredential:
            return make(.excludedCredentialExists, "a credential in excludeCredentials is already on this authenticator")
        case .credentialImport, .credentialExport:
            return make(.internalError, "a credential import or export error from a passkey request")
        case .preferSignInWithApple:
            // The person chose Sign in with Apple in the sign-up sheet: the app starts that flow (not a silent cancel).
            return make(.preferSignInWithApple, "the person chose to sign in with their Apple Account", recovery: .useAnotherDeviceOrMethod)
        case .deviceNotConfiguredForPasskeyCreation:
            return make(.notSupported, "this device is not set up to create passkeys (passcode, passkey provider)", recovery: .useAnotherDeviceOrMethod)
        }
    }

    static let associationAdvice =
        "the app is not associated with the RP ID: check the Associated Domains entitlement (webcredentials:<rp id>) and "
        + "https://<rp id>/.well-known/apple-app-site-association (run `passkey doctor`)"
}
