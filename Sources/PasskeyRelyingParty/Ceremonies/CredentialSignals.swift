public import PasskeyStorage
public import PasskeyWire

/// What a client passes to the WebAuthn L3 §5.1.10 Signal API after a ceremony, so that the device's passkey manager
/// stays in step with the server. Each value is shaped as the browser method's argument (`rpId`, `userId`,
/// `credentialId`, … in base64url), so a web page passes it on as it is, and an SDK calls its platform's equivalent.

/// `PublicKeyCredential.signalUnknownCredential`: the server holds no passkey with this ID, so the device may forget it.
///
/// Made only when no account holds the credential ID and the response was scoped to this server's RP ID (see
/// ``CeremonyService/verifyAuthentication(_:challengeKey:expectedUsername:)``), never for a made-up credential, and
/// not at all when ``CeremonyConfiguration/signalUnknownCredentials`` is off: sent wrongly, it deletes a person's
/// working passkey from their device.
public struct UnknownCredentialSignal: Sendable, Hashable {
    public let rpID: String
    public let credentialID: [UInt8]

    public init(rpID: String, credentialID: [UInt8]) {
        self.rpID = rpID
        self.credentialID = credentialID
    }

    /// The browser method's argument.
    public var options: UnknownCredentialOptions { UnknownCredentialOptions(rpId: rpID, credentialId: Base64URL.encode(credentialID)) }
}

/// After a verified sign-in: `signalAllAcceptedCredentials` (the account's passkeys that still exist, so the device can
/// hide or remove the others of that user handle) and `signalCurrentUserDetails` (its current names, so a rename on the
/// server shows in the passkey picker).
public struct SignedInAccountSignals: Sendable, Hashable {
    public let rpID: String
    public let userHandle: [UInt8]
    public let name: String
    public let displayName: String
    /// Every passkey the account holds now.
    public let acceptedCredentialIDs: [[UInt8]]

    public init(rpID: String, user: UserRecord, acceptedCredentialIDs: [[UInt8]]) {
        self.rpID = rpID
        userHandle = user.userHandle
        name = UserEntityName.make(username: user.username, userHandle: user.userHandle)
        displayName = user.displayName
        self.acceptedCredentialIDs = acceptedCredentialIDs
    }

    public var allAcceptedCredentials: AllAcceptedCredentialsOptions {
        AllAcceptedCredentialsOptions(
            rpId: rpID, userId: Base64URL.encode(userHandle), allAcceptedCredentialIds: acceptedCredentialIDs.map { Base64URL.encode($0) })
    }

    public var currentUserDetails: CurrentUserDetailsOptions {
        CurrentUserDetailsOptions(rpId: rpID, userId: Base64URL.encode(userHandle), name: name, displayName: displayName)
    }
}
