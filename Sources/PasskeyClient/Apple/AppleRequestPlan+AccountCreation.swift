import PasskeyWire

extension AppleRequestPlan {
    /// The account-creation request (`ASAuthorizationAccountCreationProvider`, iOS, macOS and visionOS 26) for
    /// `request` on `platform`.
    ///
    /// Throws before any UI when it cannot work here: before the 26 releases, with unusable options, without a contact
    /// kind the sheet knows, or when the options offer no ES256 (the sheet creates a platform passkey).
    /// `excludeCredentials` and extensions are left out (``AppleAccountCreationPlan/omissions``): the request takes
    /// neither, and the account is new.
    public static func accountCreation(_ request: AccountCreationRequest, on platform: ApplePlatform) throws(PasskeyError)
        -> AppleAccountCreationPlan
    {
        guard platform.supports(.accountCreation) else {
            throw PasskeyError(.notSupported, stage: .options, "account creation needs iOS, macOS or visionOS 26; this is \(platform)")
        }
        let options = request.options
        let rpID = try relyingPartyID(options.rp.id, member: "rp.id")
        let challenge = try challenge(options.challenge)
        let userID = try userID(options.user.id)
        var contacts: [AppleContactKind] = []
        for kind in request.acceptedContacts {
            let contact: AppleContactKind? = kind == .email ? .email : kind == .phone ? .phoneNumber : nil
            if let contact, !contacts.contains(contact) { contacts.append(contact) }
        }
        guard !contacts.isEmpty else {
            throw PasskeyError(
                .invalidOptions, stage: .options,
                "the sign-up sheet offers email addresses and phone numbers; acceptedContacts names neither (\(request.acceptedContacts.map(\.rawValue)))")
        }
        let algorithms = options.pubKeyCredParams.filter { $0.type == .publicKey }.map(\.alg)
        guard options.pubKeyCredParams.isEmpty || algorithms.contains(.es256) else {
            throw PasskeyError(.notSupported, stage: .options, "the sign-up sheet creates an ES256 (-7) passkey, which pubKeyCredParams does not offer")
        }
        var omissions: [Omission] = []
        if options.excludeCredentials?.isEmpty == false {
            omissions.append(Omission("excludeCredentials", "the account-creation request takes none (the account is new)"))
        }
        if options.extensions?.isEmpty == false {
            omissions.append(Omission("extensions", "the account-creation request takes no extensions"))
        }
        // The sheet always verifies the person and makes an unattested platform passkey: a server that needs an
        // attestation refuses the registration afterwards, so it is said here.
        if let attestation = options.attestation, attestation != .none {
            omissions.append(Omission("attestation", "the account-creation request takes no attestation preference (\(attestation.rawValue))"))
        }
        if options.authenticatorSelection?.userVerification == .discouraged {
            omissions.append(Omission("authenticatorSelection.userVerification", "the sign-up sheet always verifies the person"))
        }
        return AppleAccountCreationPlan(
            relyingPartyID: rpID, challenge: challenge, userID: userID, acceptedContacts: contacts, requestsName: request.requestsName,
            omissions: omissions)
    }
}

/// A contact kind as `ASContactIdentifierRequest` names it.
public enum AppleContactKind: String, Sendable, Hashable {
    case email
    case phoneNumber
}

/// An account creation as AuthenticationServices will run it
/// (`createPlatformPublicKeyCredentialRegistrationRequest(acceptedContactIdentifiers:shouldRequestName:relyingPartyIdentifier:challenge:userID:)`).
public struct AppleAccountCreationPlan: Sendable, Hashable {
    public var relyingPartyID: String
    public var challenge: [UInt8]
    public var userID: [UInt8]
    /// In the server's order, without repeats; at least one.
    public var acceptedContacts: [AppleContactKind]
    public var requestsName: Bool
    /// What the request cannot carry and was left out.
    public var omissions: [AppleRequestPlan.Omission]
}
