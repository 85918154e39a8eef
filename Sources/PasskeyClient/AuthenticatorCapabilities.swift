/// What an authenticator can do on this device, as far as it knows without showing anything.
///
/// Platform answers are hints, not promises: a device may report passkeys as available and still have none for this
/// relying party (that is ``PasskeyError/Code/noCredentials`` at sign-in).
public struct AuthenticatorCapabilities: Sendable, Hashable {
    /// Passkey ceremonies can run at all (OS version, entitlement, a working backend).
    public var isSupported: Bool
    /// A user-verifying platform authenticator is available (WebAuthn
    /// `isUserVerifyingPlatformAuthenticatorAvailable()`): Face ID / Touch ID, Windows Hello, a synced provider, or
    /// the software authenticator configured as `platform`.
    public var isPlatformAuthenticatorAvailable: Bool
    /// AutoFill sign-in (`mediation: "conditional"`) is available.
    public var supportsConditionalMediation: Bool
    /// Passkeys can be created without a sheet right after a password sign-in (conditional create:
    /// ``RegistrationStyle/conditional``; iOS 18, macOS 15, visionOS 2).
    public var supportsConditionalCreate: Bool
    /// A passkey and a new account can be created in one system sheet that also asks for the account's contact
    /// (``Authenticator/createAccount(_:)``; iOS, macOS and visionOS 26).
    public var supportsAccountCreation: Bool
    /// Why ``isSupported`` or ``isPlatformAuthenticatorAvailable`` is false, when the platform says: for the support
    /// check's message ("set a passcode to use passkeys" rather than "not supported"). `nil` when both are true, or the
    /// authenticator cannot tell.
    public var unavailability: PasskeyUnavailability?

    public init(
        isSupported: Bool, isPlatformAuthenticatorAvailable: Bool, supportsConditionalMediation: Bool = false,
        supportsConditionalCreate: Bool = false, supportsAccountCreation: Bool = false, unavailability: PasskeyUnavailability? = nil
    ) {
        self.isSupported = isSupported
        self.isPlatformAuthenticatorAvailable = isPlatformAuthenticatorAvailable
        self.supportsConditionalMediation = supportsConditionalMediation
        self.supportsConditionalCreate = supportsConditionalCreate
        self.supportsAccountCreation = supportsAccountCreation
        self.unavailability = unavailability
    }
}

extension Authenticator {
    /// Default for backends that do not say: supported, with a platform authenticator, no AutoFill.
    public func capabilities() async -> AuthenticatorCapabilities {
        AuthenticatorCapabilities(isSupported: true, isPlatformAuthenticatorAvailable: true)
    }
}
