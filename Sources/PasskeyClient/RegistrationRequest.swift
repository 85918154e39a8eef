public import PasskeyWire

/// A registration as the app asks for it: the server's options, untouched, plus how to present the ceremony.
public struct RegistrationRequest: Sendable, Hashable {
    /// Exactly what the relying-party server produced.
    public var options: PublicKeyCredentialCreationOptionsJSON
    public var style: RegistrationStyle
    /// Which kinds of authenticator may answer.
    public var attachments: AuthenticatorAttachments

    public init(
        options: PublicKeyCredentialCreationOptionsJSON, style: RegistrationStyle = .modal,
        attachments: AuthenticatorAttachments = .platform
    ) {
        self.options = options
        self.style = style
        self.attachments = attachments
    }
}
