/// How a registration is presented.
public enum RegistrationStyle: String, Sendable, Hashable, CaseIterable {
    /// A sheet the person confirms.
    case modal
    /// Automatic passkey upgrade after a password sign-in (WebAuthn conditional create, Apple `requestStyle =
    /// .conditional`): no sheet, so the credential is created without the user-present flag and the server must
    /// verify it with user presence not required. Platforms may decline quietly.
    case conditional
}
