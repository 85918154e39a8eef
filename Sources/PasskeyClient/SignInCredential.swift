public import PasskeyWire

/// The credential a person chose in a sheet that offered passkeys and ``SignInAlternatives``.
public enum SignInCredential: Sendable, Hashable {
    /// A passkey's assertion, for the relying party to verify.
    case passkey(AuthenticationResponseJSON)
    /// A saved password: the app signs in with it as before (and may offer a passkey afterwards).
    case password(PasswordCredential)
    /// A Sign in with Apple credential: the app's backend verifies its identity token with Apple.
    case appleID(AppleIDCredential)
}
