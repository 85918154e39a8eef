#if canImport(Foundation)
public import Foundation
#endif

// Text a person can read. English only for now; apps that localize switch on `code` and `recovery`, which are stable.

extension PasskeyError {
    /// One sentence for the person using the app, chosen by ``code``. It never contains ``reason``, which is for
    /// developers and may name internals.
    public var userMessage: String {
        switch code {
        case .cancelled: "The passkey request was cancelled."
        case .noCredentials: "There is no passkey for this account on this device."
        case .excludedCredentialExists: "You already have a passkey for this account on this device."
        case .preferSignInWithApple: "Continue with Sign in with Apple."
        case .notSupported: "Passkeys are not available for this request on this device."
        case .invalidChallenge, .invalidOptions: "The passkey request was not valid."
        case .domainNotAssociated: "This app or website is not set up to use passkeys for this domain."
        case .invalidResponse: "The passkey response could not be used."
        case .timeout: "The passkey request timed out."
        case .ceremonyInProgress: "Another passkey request is already in progress."
        case .network: "The server could not be reached."
        case .server: "The server could not complete the request."
        case .storageFailed: "Saved passkeys could not be read or written."
        case .storageCorrupted: "Saved passkeys are damaged and could not be read."
        case .connectTokenUnavailable, .connectTokenWrongType: "Passkeys cannot be managed right now."
        case .accountDisabled: "This account is disabled."
        case .passkeyDeletedOnServer: "This passkey was removed from your account."
        default: "Something went wrong with the passkey request."
        }
    }

    /// What the person can do next, or `nil` when nothing needs saying (a cancellation they chose).
    public var recoveryMessage: String? {
        switch recovery {
        case .none: nil
        case .retry: "Please try again."
        case .signInWithExistingPasskey: "Sign in with the passkey you already have."
        case .useAnotherDeviceOrMethod: "Use a passkey from another device, or sign in another way."
        case .requestNewOptions: "Please start again."
        case .checkConfiguration: "The app or website needs to fix its passkey setup. Sign in another way for now."
        case .checkConnection: "Check your internet connection and try again."
        case .finishOtherCeremony: "Finish or cancel the other request first."
        case .contactSupport: "If this keeps happening, contact support."
        default: nil
        }
    }
}

#if canImport(Foundation)
extension PasskeyError: LocalizedError {
    public var errorDescription: String? { userMessage }
    /// Developer detail, for logs and bug reports.
    public var failureReason: String? { reason }
    public var recoverySuggestion: String? { recoveryMessage }
}
#endif
