/// Why passkeys cannot be created or used on this device, as far as the platform can tell before a request: what a
/// support check shows instead of a bare "not supported" (``AuthenticatorCapabilities/unavailability``). An open set,
/// like the error codes: switch with a `default`.
///
/// Whether the app is associated with the RP ID's domain cannot be known before a request on Apple platforms: a
/// request that fails for it ends with ``PasskeyError/Code/domainNotAssociated``.
public struct PasskeyUnavailability: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The OS predates the passkey API (iOS 15, macOS 12): update it.
    public static let osTooOld = PasskeyUnavailability(rawValue: "os_too_old")
    /// No passcode (or Mac password) is set, so the device cannot verify its owner and has no platform authenticator:
    /// set one in Settings. A security key may still work.
    public static let passcodeNotSet = PasskeyUnavailability(rawValue: "passcode_not_set")
    /// The platform authenticator cannot be used for another reason the platform gave (a management profile, a
    /// locked-out biometry without a passcode fallback).
    public static let platformAuthenticatorUnavailable = PasskeyUnavailability(rawValue: "platform_authenticator_unavailable")
    /// This platform has no passkey support in this SDK (tvOS, watchOS), or the authenticator was configured off.
    public static let platformNotSupported = PasskeyUnavailability(rawValue: "platform_not_supported")
}
