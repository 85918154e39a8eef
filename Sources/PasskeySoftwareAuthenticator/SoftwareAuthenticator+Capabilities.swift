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

extension SoftwareAuthenticator {
    /// Forgets the credential (WebAuthn L3 §5.1.10): removed from the store when it is there for `rpID` (any RP ID when
    /// nil). A store that cannot be changed keeps it; the next sign-in reports the same refusal.
    public func signalUnknownCredential(rpID: String?, credentialID: [UInt8]) async {
        guard let stored = try? await store.allCredentials().first(where: { $0.id == credentialID }),
            rpID == nil || stored.rpID == rpID
        else { return }
        _ = try? await store.removeCredential(id: credentialID)
    }
}
