/// `ASAuthorizationError.Code` raw values (domain `com.apple.AuthenticationServices.AuthorizationError`), as Apple
/// documents them. Mirrored here so the mapping to ``PasskeyError`` is a pure function tested on Linux.
public enum AppleAuthorizationErrorCode: Int, Sendable, Hashable, CaseIterable {
    /// 1000: the authorization failed for an unknown reason. Also seen when the person chose "save on another device"
    /// (hybrid) and that device already held an excluded credential (Apple developer forums 785321).
    case unknown = 1000
    /// 1001: the request ended without a credential: the person dismissed the sheet, the app cancelled it, **or** there
    /// was no credential to offer. Apple deliberately reports the last case this way too.
    case canceled = 1001
    /// 1002: the authorization returned something unusable.
    case invalidResponse = 1002
    /// 1003: no provider handled the request.
    case notHandled = 1003
    /// 1004: the authorization failed, typically because the app is not associated with the RP ID (apple-app-site-
    /// association, Associated Domains entitlement) or another request is already in progress.
    case failed = 1004
    /// 1005 (iOS 15): the request needed UI it could not show; with `.preferImmediatelyAvailableCredentials` this is
    /// one way "no credential on this device" arrives.
    case notInteractive = 1005
    /// 1006 (iOS 18): a credential in `excludedCredentials` is already on the authenticator.
    case matchedExcludedCredential = 1006
    /// 1007 (iOS 18.2): a credential import failed.
    case credentialImport = 1007
    /// 1008 (iOS 18.2): a credential export failed.
    case credentialExport = 1008
    /// 1009 (iOS 26): the person prefers their existing Sign in with Apple account.
    case preferSignInWithApple = 1009
    /// 1010 (iOS 26): the device is not set up to create passkeys (no passcode, or no provider enabled).
    case deviceNotConfiguredForPasskeyCreation = 1010

    /// `ASAuthorizationErrorDomain`.
    public static let domain = "com.apple.AuthenticationServices.AuthorizationError"
}

/// `WKErrorDomain` codes seen from passkey requests in the field. WebKit reports WebAuthn failures with its DOM
/// exception numbering; only the two below have been reported from AuthenticationServices.
public enum AppleWebKitErrorCode: Int, Sendable, Hashable, CaseIterable {
    /// 8, `InvalidStateError`: "At least one credential matches an entry of the excludeCredentials list" — reported
    /// instead of 1006 on recent OS versions (Apple developer forums 835726).
    case invalidState = 8
    /// 31, `NotAllowedError`: a security-key prompt that timed out (about two minutes).
    case notAllowed = 31

    public static let domain = "WKErrorDomain"
}
