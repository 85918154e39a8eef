import PasskeyAPI
import PasskeyWire

/// A passkey the server refused to register: the authenticator made it and keeps it (iCloud Keychain, Google
/// Password Manager), but the server stored nothing, so it would be offered in AutoFill and usernameless sign-in and
/// fail there with `credential_unknown`. The relying party tells the authenticator it does not know the credential
/// (WebAuthn L3 §5.1.10, `signalUnknownCredential`), as it does for a passkey deleted on the server.
enum RefusedRegistration {
    /// Signals `credential` unknown when `error` is the server's 4xx refusal of it. Not for `credential_exists` (the
    /// server holds that credential), nor for a network failure or a 5xx, after which the server may have stored it.
    static func forget(
        _ credential: RegistrationResponseJSON, rpID: String?, after error: PasskeyError, authenticator: any Authenticator
    ) async {
        guard let server = error.server, let status = server.httpStatus, (400..<500).contains(status), server.code != .credentialExists,
            let id = Base64URL.decode(credential.rawId)
        else { return }
        await authenticator.signalUnknownCredential(rpID: rpID, credentialID: id)
    }
}
