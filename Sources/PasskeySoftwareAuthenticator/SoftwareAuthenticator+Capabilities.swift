public import PasskeyClient

extension SoftwareAuthenticator {
    /// Always supported. A platform authenticator when configured as `platform` and verifying the user (as
    /// `isUserVerifyingPlatformAuthenticatorAvailable()` requires). No AutoFill: there is no username field to fill.
    public func capabilities() async -> AuthenticatorCapabilities {
        AuthenticatorCapabilities(
            isSupported: true,
            isPlatformAuthenticatorAvailable: configuration.attachment == .platform && configuration.userVerification == .verified,
            supportsConditionalMediation: false)
    }
}
