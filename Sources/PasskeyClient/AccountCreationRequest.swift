public import PasskeyWire

/// Passkey-first sign-up (Apple's account creation, iOS 26): one system sheet creates the passkey and lets the person
/// pick the contact (and, if asked, the name) the new account gets. The options are the server's creation options
/// made for it (`contact=` on `generate-registration-options`); their `user.name` is only a placeholder, since the
/// account's name is the contact picked.
public struct AccountCreationRequest: Sendable, Hashable {
    /// Exactly what the relying-party server produced.
    public var options: PublicKeyCredentialCreationOptionsJSON
    /// The kinds of contact the sheet may offer; at least one.
    public var acceptedContacts: [ContactKind]
    /// Ask the person for their name too (the account's display name).
    public var requestsName: Bool

    public init(options: PublicKeyCredentialCreationOptionsJSON, acceptedContacts: [ContactKind], requestsName: Bool = true) {
        self.options = options
        self.acceptedContacts = acceptedContacts
        self.requestsName = requestsName
    }
}

/// What the sign-up sheet returned: the new passkey's registration, to send to the server with the contact as the
/// username and the name as the display name.
public struct AccountCreationCredential: Sendable, Hashable {
    public var registration: RegistrationResponseJSON
    public var contact: AccountContact
    /// The name the person gave, formatted for display; `nil` when not asked for or not given.
    public var name: String?

    public init(registration: RegistrationResponseJSON, contact: AccountContact, name: String? = nil) {
        self.registration = registration
        self.contact = contact
        self.name = name
    }
}
