public import PasskeyClient

extension SoftwareAuthenticator {
    /// Always supported. A platform authenticator when configured as `platform` and verifying the user (as
    /// `isUserVerifyingPlatformAuthenticatorAvailable()` requires). No AutoFill: there is no username field to fill.
    /// Account creation when the simulated person has contacts (``SoftwareAuthenticatorConfiguration/accountContacts``).
    public func capabilities() async -> AuthenticatorCapabilities {
        AuthenticatorCapabilities(
            isSupported: true,
            isPlatformAuthenticatorAvailable: configuration.attachment == .platform && configuration.userVerification == .verified,
            supportsConditionalMediation: false, supportsAccountCreation: !configuration.accountContacts.isEmpty)
    }
}

extension SoftwareAuthenticator {
    /// Forgets the credential (WebAuthn L3 §5.1.10): removed from the store when it is there for `rpID` (any RP ID when
    /// nil). A store that cannot be changed keeps it; the next sign-in reports the same refusal.
    public func signalUnknownCredential(rpID: String?, credentialID: [UInt8]) async {
        guard rpID.map(acceptsSignal(rpID:)) ?? true, let stored = try? await store.allCredentials().first(where: { $0.id == credentialID }),
            rpID == nil || stored.rpID == rpID
        else { return }
        _ = try? await store.removeCredential(id: credentialID)
    }
}

extension SoftwareAuthenticator {
    /// Removes the account's passkeys that the relying party no longer accepts (WebAuthn L3 §5.1.10): those stored for
    /// `rpID` and `userHandle` whose IDs are not in `credentialIDs`. Other accounts and RP IDs are left alone.
    public func signalAllAcceptedCredentials(rpID: String, userHandle: [UInt8], credentialIDs: [[UInt8]]) async {
        guard acceptsSignal(rpID: rpID), let stored = try? await store.allCredentials() else { return }
        let accepted = Set(credentialIDs)
        for credential in stored where credential.rpID == rpID && credential.userHandle == userHandle && !accepted.contains(credential.id) {
            _ = try? await store.removeCredential(id: credential.id)
        }
    }

    /// Shows the account's current names from now on (WebAuthn L3 §5.1.10): the passkeys stored for `rpID` and
    /// `userHandle` take `name` and `displayName`. Empty values are ignored, as a browser would not blank a passkey's name.
    public func signalCurrentUserDetails(rpID: String, userHandle: [UInt8], name: String, displayName: String) async {
        guard !name.isEmpty, acceptsSignal(rpID: rpID) else { return }
        // In one step of the store: a sign-in or removal meanwhile (another process sharing a credential file) stays.
        try? await store.renameUser(rpID: rpID, userHandle: userHandle, name: name, displayName: displayName)
    }
}

extension SoftwareAuthenticator {
    /// Whether a signal may name `rpID`: as a browser refuses a signal whose RP ID is not its origin's domain or a
    /// parent of it (WebAuthn L3 §5.1.10, SecurityError), this authenticator acts only for RP IDs its origin may use.
    func acceptsSignal(rpID: String) -> Bool {
        (try? CeremonyInputs.rpID(rpID, origin: configuration.origin)) != nil
    }
}
