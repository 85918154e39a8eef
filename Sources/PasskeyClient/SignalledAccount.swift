import PasskeyAPI
import PasskeyWire

/// The account as a server's answer names it for the WebAuthn L3 §5.1.10 signals: the members `rpId` and
/// `user {id, name, displayName}` that this project's server sends with every passkey list and every verified sign-in.
///
/// With them the SDK keeps the device's passkey manager in step with the server: the account's current name after a
/// rename on the server, and (with a list) which of its passkeys still exist. An answer without them (an older server,
/// another backend) signals nothing.
struct SignalledAccount: Sendable {
    let rpID: String
    /// The user handle (WebAuthn L3 §5.4.3 `user.id`).
    let userHandle: [UInt8]
    /// The account's `user.name`; `nil` when the answer has none, and then its details are not signalled.
    let name: String?
    let displayName: String?

    /// `nil` unless the answer names a non-empty RP ID and a user handle that decodes.
    init?(rpId: String?, user: PublicKeyCredentialUserEntityJSON?) {
        guard let rpID = rpId, !rpID.isEmpty, let user, let userHandle = Base64URL.decode(user.id), !userHandle.isEmpty else { return nil }
        self.rpID = rpID
        self.userHandle = userHandle
        name = user.name.isEmpty ? nil : user.name
        displayName = user.displayName
    }


    /// After a verified sign-in: tells the device's passkey manager which passkeys the account still has (when the
    /// answer lists them: `signalAllAcceptedCredentials`) and its current names (a rename on the server shows in the
    /// passkey picker from then on), when the answer is about the account that signed in.
    static func signalSignedIn(
        _ answer: VerifyAuthenticationAnswer, options: PublicKeyCredentialRequestOptionsJSON, assertion: AuthenticationResponseJSON,
        to authenticator: any Authenticator
    ) async {
        guard let account = SignalledAccount(rpId: answer.rpId, user: answer.user), account.isSignedIn(with: options, assertion: assertion)
        else { return }
        // The list must be about the same account (RP ID and user handle) and name the passkey that just signed in: a
        // list that leaves it out is not this sign-in's, and would make the device drop a passkey that works.
        if let accepted = answer.signalAllAcceptedCredentials, accepted.rpId == account.rpID,
            Base64URL.decode(accepted.userId) == account.userHandle, accepted.allAcceptedCredentialIds.contains(assertion.id)
        {
            await account.signalListed(accepted.allAcceptedCredentialIds, to: authenticator)
            return
        }
        await account.signalDetails(to: authenticator)
    }

    /// After a refused sign-in: tells the device's passkey manager to forget the passkey when the server says no account
    /// holds it, for the RP ID the options named and the credential the authenticator used (WebAuthn L3 §5.1.10
    /// `signalUnknownCredential`). A server that predates the answer's `signalUnknownCredential` is believed on
    /// `passkey_deleted_on_server` alone: its user handle named an account there, so the passkey was that server's.
    static func signalUnknown(
        after error: PasskeyError, options: PublicKeyCredentialRequestOptionsJSON, assertion: AuthenticationResponseJSON,
        to authenticator: any Authenticator
    ) async {
        guard let server = error.server, let id = Base64URL.decode(assertion.rawId), !id.isEmpty else { return }
        if let signal = server.unknownCredential {
            guard signal.credentialID == id, options.rpId == nil || options.rpId == signal.rpID else { return }
            await authenticator.signalUnknownCredential(rpID: signal.rpID, credentialID: id)
        } else if server.code == .passkeyDeletedOnServer {
            await authenticator.signalUnknownCredential(rpID: options.rpId, credentialID: id)
        }
    }

    /// Whether this is the account a sign-in just used: the RP ID its options named and the user handle the
    /// authenticator returned. A sign-in's answer about anything else is not signalled, so it cannot rename another
    /// account's passkeys on the device; nor is one whose options named no RP ID or whose assertion carried no user
    /// handle (a security key's non-discoverable credential may omit it), when the SDK cannot tell which account it was.
    func isSignedIn(with options: PublicKeyCredentialRequestOptionsJSON, assertion: AuthenticationResponseJSON) -> Bool {
        guard options.rpId == rpID, let returned = assertion.response.userHandle else { return false }
        return Base64URL.decode(returned) == userHandle
    }

    /// Sends the account's current names (`signalCurrentUserDetails`); a display name the answer lacks becomes the name.
    func signalDetails(to authenticator: any Authenticator) async {
        guard let name else { return }
        await authenticator.signalCurrentUserDetails(rpID: rpID, userHandle: userHandle, name: name, displayName: displayName ?? name)
    }

    /// Sends which passkeys the account has (`signalAllAcceptedCredentials`), then its names. Nothing when an id does not
    /// decode: a list that cannot be read whole must not make the device drop passkeys.
    func signalListed(_ passkeyIDs: [String], to authenticator: any Authenticator) async {
        let ids = passkeyIDs.compactMap { Base64URL.decode($0) }
        guard ids.count == passkeyIDs.count else { return }
        await authenticator.signalAllAcceptedCredentials(rpID: rpID, userHandle: userHandle, credentialIDs: ids)
        await signalDetails(to: authenticator)
    }
}
