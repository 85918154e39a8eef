/// How a combined sign-in ended (``PasskeyAuthClient/signIn(username:mediation:offering:)``).
public enum SignInResult: Sendable, Hashable {
    /// A passkey, already verified by the server.
    case passkey(PasskeyAuthenticationResult)
    /// A saved password: sign in with it as the app did before passkeys, then offer a passkey.
    case password(PasswordCredential)
    /// Sign in with Apple: the app's backend verifies the identity token.
    case appleID(AppleIDCredential)
}
