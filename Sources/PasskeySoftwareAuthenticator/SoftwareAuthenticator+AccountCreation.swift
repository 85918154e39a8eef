public import PasskeyClient

extension SoftwareAuthenticator {
    /// Emulates iOS 26's sign-up sheet (Apple's account creation): the simulated person picks the first of their
    /// ``SoftwareAuthenticatorConfiguration/accountContacts`` of a kind the request accepts and, when asked, gives
    /// ``SoftwareAuthenticatorConfiguration/accountName``; the passkey is created as ``makeCredential(_:)`` creates one
    /// (same checks, same presence and verification), stored under the contact as its `user.name`, as the system
    /// stores it, with the name (or the contact) as its display name.
    ///
    /// Without contacts there is no sheet: ``PasskeyError/Code/notSupported``, as on a system before iOS 26. With none
    /// of an accepted kind the person cannot go on: ``PasskeyError/Code/cancelled``.
    public func createAccount(_ request: AccountCreationRequest) async throws(PasskeyError) -> AccountCreationCredential {
        let configuration = configuration
        guard !configuration.accountContacts.isEmpty else {
            throw PasskeyError(.notSupported, stage: .authenticator, "this software authenticator has no contacts to offer (accountContacts)")
        }
        guard !request.acceptedContacts.isEmpty else {
            throw PasskeyError(.invalidOptions, stage: .authenticator, "the sign-up accepts no kind of contact")
        }
        guard let contact = configuration.accountContacts.first(where: { request.acceptedContacts.contains($0.kind) }) else {
            let kinds = request.acceptedContacts.map(\.rawValue).joined(separator: " or ")
            throw .cancelled(stage: .authenticator, "the simulated person has no \(kinds) to pick, so closed the sign-up sheet")
        }
        let name = request.requestsName ? configuration.accountName.flatMap { $0.isEmpty ? nil : $0 } : nil
        var options = request.options
        options.user.name = contact.value
        options.user.displayName = name ?? contact.value
        let registration = try await makeCredential(RegistrationRequest(options: options))
        return AccountCreationCredential(registration: registration, contact: contact, name: name)
    }
}
