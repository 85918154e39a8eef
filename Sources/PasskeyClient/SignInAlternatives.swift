/// What a sign-in sheet offers besides passkeys: the app's saved passwords and Sign in with Apple, as Apple's sheet can
/// show them together (``Authenticator/getCredential(_:offering:)``). This is how an app with passwords moves to
/// passkeys: one sheet, whichever credential the person has, and passkeys created as they sign in.
public struct SignInAlternatives: Sendable, Hashable {
    /// Passwords saved for the app's associated domains (iCloud Keychain, a password manager).
    public var passwords: Bool
    /// Sign in with Apple, with these options; nil: not offered. Needs the app's "Sign in with Apple" capability.
    public var appleID: AppleIDRequest?

    /// Passkeys only (not `none`, which an optional's `.none` would shadow).
    public static let passkeysOnly = SignInAlternatives()

    public init(passwords: Bool = false, appleID: AppleIDRequest? = nil) {
        self.passwords = passwords
        self.appleID = appleID
    }

    /// Nothing besides passkeys.
    public var isEmpty: Bool { !passwords && appleID == nil }
}
