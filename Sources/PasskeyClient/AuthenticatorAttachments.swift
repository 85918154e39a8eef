/// Which kinds of authenticator may answer a request (WebAuthn L3 §5.4.5 attachments, as a set).
public struct AuthenticatorAttachments: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Built into the device, including synced passkey providers (iCloud Keychain, password managers).
    public static let platform = AuthenticatorAttachments(rawValue: 1 << 0)
    /// Roaming authenticators: USB/NFC/BLE security keys and phones over hybrid (`cross-platform`).
    public static let securityKey = AuthenticatorAttachments(rawValue: 1 << 1)
}
