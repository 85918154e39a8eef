import PasskeyStorage

/// Whom and what a `signedPasskeyData` token vouches for (``TokenIssuer/sign(_:)``): made from a completed ceremony,
/// so the values travel together from the verification to the token.
public struct SignedPasskeySubject: Sendable {
    public enum Ceremony: String, Sendable {
        case registration
        case authentication
    }

    public var userID: String
    public var username: String?
    /// The app's own user id, when the account is linked to one.
    public var externalUserID: String?
    public var credentialID: [UInt8]
    public var ceremony: Ceremony
    public var userVerified: Bool
    public var counterRegressed: Bool

    public init(
        userID: String, username: String?, externalUserID: String?, credentialID: [UInt8], ceremony: Ceremony, userVerified: Bool,
        counterRegressed: Bool = false
    ) {
        self.userID = userID
        self.username = username
        self.externalUserID = externalUserID
        self.credentialID = credentialID
        self.ceremony = ceremony
        self.userVerified = userVerified
        self.counterRegressed = counterRegressed
    }

    /// A new account, or a passkey added to one: `externalUserID` when the account is linked to an app's user.
    public init(_ registration: CompletedRegistration, externalUserID: String? = nil) {
        self.init(
            userID: registration.user.id, username: registration.user.entityName, externalUserID: externalUserID,
            credentialID: registration.credential.id, ceremony: .registration, userVerified: registration.credential.uvInitialized)
    }

    public init(_ signIn: CompletedSignIn) {
        self.init(
            userID: signIn.user.id, username: signIn.user.entityName, externalUserID: signIn.externalUserID, credentialID: signIn.credential.id,
            ceremony: .authentication, userVerified: signIn.userVerified, counterRegressed: signIn.counterRegressed)
    }
}
