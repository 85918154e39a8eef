public import Foundation

/// A passkey as the management screen shows it.
public struct PasskeyInfo: Sendable, Hashable, Identifiable {
    /// The credential ID, base64url.
    public var id: String
    /// The user's name for it, or the provider's name.
    public var name: String
    /// The passkey provider (Apple Passwords, Google Password Manager, YubiKey 5 Series…), when known.
    public var provider: String?
    public var createdAt: Date?
    public var lastUsedAt: Date?
    /// Synced now (backup state).
    public var isSynced: Bool
    /// Lives on one device or security key (not backup eligible).
    public var isDeviceBound: Bool
    public var transports: [String]

    public init(
        id: String, name: String, provider: String? = nil, createdAt: Date? = nil, lastUsedAt: Date? = nil, isSynced: Bool = false,
        isDeviceBound: Bool = false, transports: [String] = []
    ) {
        self.id = id
        self.name = name
        self.provider = provider
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.isSynced = isSynced
        self.isDeviceBound = isDeviceBound
        self.transports = transports
    }
}

/// Whether to offer adding a passkey, from ``PasskeyConnect/isAppendAllowed(connectTokenProvider:)``.
public enum AppendStep: Sendable, Hashable {
    /// Show the "add a passkey" prompt; with `autoAppend` the app may call ``PasskeyConnect/completeAppend()`` at once
    /// (the OS creates the passkey without a sheet where it can).
    case askUserForAppend(autoAppend: Bool)
    /// Do not offer a passkey now; `reason` names the rule (`declined_recently`, `passkey_exists`, `not_in_rollout`…).
    case skip(reason: String)
}

/// How adding a passkey ended.
public enum AppendStatus: Sendable, Hashable {
    case completed(PasskeyInfo)
    /// The person dismissed the sheet: nothing to show.
    case cancelled
    /// This device already holds a passkey of the account (excludeCredentials matched): say so, do not retry.
    case excludeCredentialsMatch
    case error(PasskeyError)
}

/// How to show sign-in, from ``PasskeyConnect/isLoginAllowed()``.
public enum LoginStep: Sendable, Hashable {
    /// An identifier field; with `challenge`, start ``PasskeyConnect/loginWithoutIdentifier(conditionalUI:)`` with
    /// `conditionalUI: true` so passkeys appear in its AutoFill suggestions.
    case initTextField(challenge: String?)
    /// "Continue as <identifier>": the last account used on this device.
    case initOneTap(identifier: String)
    /// Passkeys are off for this device or user: show the app's old login, with `identifier` (the last account used
    /// here, when there is one) filled in.
    case initFallback(reason: String, identifier: String?)
}

/// How a passkey sign-in ended. Flows never throw.
public enum LoginStatus: Sendable, Hashable {
    /// Signed in: send `signedPasskeyData` to the app's backend, which verifies it and starts its session.
    case done(signedPasskeyData: String, username: String?)
    /// No passkey works here (none on this device, or the account has none): continue with the old login quietly,
    /// with `identifier` (the name this sign-in was for, when it had one) filled in.
    case initSilentFallback(identifier: String?)
    /// The sign-in failed; with `triggerFallback` switch to the old login (with `identifier` filled in), otherwise let
    /// the person try again. The error's ``PasskeyError/code`` says what happened (``PasskeyError/Code/passkeyDeletedOnServer``
    /// with the server's message, for one), its ``PasskeyError/reason`` the developer's details.
    case error(PasskeyError, triggerFallback: Bool, identifier: String?)
    /// The person cancelled or the options expired: offer the same step again.
    case initRetry
    /// An AutoFill request that ended without a choice: nothing to show.
    case ignore
}

/// The passkey list, and whether adding one is offered there: what each management flow ends with.
public enum ManageStatus: Sendable, Hashable {
    /// The list; adding a passkey on this device is useful.
    case allowed([PasskeyInfo])
    /// The list; adding is not offered (rollout, a passkey for this device exists, no platform authenticator).
    case notAllowed([PasskeyInfo])
    /// Adding a passkey: the person dismissed the sheet. Nothing changed; the list shown stays right.
    case cancelled
    /// Adding a passkey: this device holds one of the account's already (excludeCredentials matched). Say so gently.
    case excludeCredentialsMatch
    case error(PasskeyError)
}

/// The device as the decision endpoints see it.
public struct DeviceReport: Sendable, Hashable {
    /// `iOS`, `macOS`, `Android`, `Linux`…
    public var platform: String
    public var osVersion: String

    public init(platform: String, osVersion: String) {
        self.platform = platform
        self.osVersion = osVersion
    }

    /// This device, as Foundation reports it.
    public static var current: DeviceReport {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        let text = "\(version.majorVersion).\(version.minorVersion)"
        #if targetEnvironment(macCatalyst)
        // A Catalyst app runs on macOS, and Foundation reports the macOS version: report the platform that goes with it.
        return DeviceReport(platform: "macOS", osVersion: text)
        #elseif os(iOS)
        return DeviceReport(platform: "iOS", osVersion: text)
        #elseif os(macOS)
        return DeviceReport(platform: "macOS", osVersion: text)
        #elseif os(visionOS)
        return DeviceReport(platform: "visionOS", osVersion: text)
        #elseif os(Linux)
        return DeviceReport(platform: "Linux", osVersion: text)
        #else
        return DeviceReport(platform: "other", osVersion: text)
        #endif
    }
}
