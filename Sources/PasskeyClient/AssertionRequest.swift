public import PasskeyWire

/// A sign-in as the app asks for it: the server's options, untouched, plus how to present the ceremony.
///
/// An empty or absent `allowCredentials` asks for a discoverable credential (sign-in without a username).
public struct AssertionRequest: Sendable, Hashable {
    /// Exactly what the relying-party server produced.
    public var options: PublicKeyCredentialRequestOptionsJSON
    public var mediation: AssertionMediation
    /// Which kinds of authenticator may answer. Independent of ``mediation``.
    public var attachments: AuthenticatorAttachments

    public init(
        options: PublicKeyCredentialRequestOptionsJSON, mediation: AssertionMediation = .modal,
        attachments: AuthenticatorAttachments = [.platform, .securityKey]
    ) {
        self.options = options
        self.mediation = mediation
        self.attachments = attachments
    }
}
