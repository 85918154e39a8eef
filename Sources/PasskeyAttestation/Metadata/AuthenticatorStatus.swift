/// An authenticator model's status in the FIDO Metadata Service (FIDO Metadata Service 3.0 §3.1.4,
/// `AuthenticatorStatus`). An open set: FIDO adds values, and a BLOB with one this library does not know still loads.
public struct AuthenticatorStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let notFIDOCertified = AuthenticatorStatus(rawValue: "NOT_FIDO_CERTIFIED")
    public static let fidoCertified = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED")
    /// Malware can bypass the authenticator's user verification.
    public static let userVerificationBypass = AuthenticatorStatus(rawValue: "USER_VERIFICATION_BYPASS")
    /// An attestation key of the model is known to be compromised: its attestations prove nothing.
    public static let attestationKeyCompromise = AuthenticatorStatus(rawValue: "ATTESTATION_KEY_COMPROMISE")
    /// Credential keys can be extracted or used remotely, without the authenticator in hand.
    public static let userKeyRemoteCompromise = AuthenticatorStatus(rawValue: "USER_KEY_REMOTE_COMPROMISE")
    /// Credential keys can be extracted with the authenticator in hand.
    public static let userKeyPhysicalCompromise = AuthenticatorStatus(rawValue: "USER_KEY_PHYSICAL_COMPROMISE")
    public static let updateAvailable = AuthenticatorStatus(rawValue: "UPDATE_AVAILABLE")
    /// FIDO revoked the model's certification.
    public static let revoked = AuthenticatorStatus(rawValue: "REVOKED")
    public static let selfAssertionSubmitted = AuthenticatorStatus(rawValue: "SELF_ASSERTION_SUBMITTED")
    public static let fidoCertifiedL1 = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED_L1")
    public static let fidoCertifiedL1Plus = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED_L1plus")
    public static let fidoCertifiedL2 = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED_L2")
    public static let fidoCertifiedL2Plus = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED_L2plus")
    public static let fidoCertifiedL3 = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED_L3")
    public static let fidoCertifiedL3Plus = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED_L3plus")

    /// The statuses that say the model's keys or checks cannot be relied on (the "compromise kinds"): a
    /// passkey made by such a model is flagged or refused by policy.
    public static let compromises: Set<AuthenticatorStatus> = [
        .userVerificationBypass, .attestationKeyCompromise, .userKeyRemoteCompromise, .userKeyPhysicalCompromise, .revoked,
    ]

    /// Whether this status says the model's keys or checks cannot be relied on (``compromises``).
    public var isCompromise: Bool { Self.compromises.contains(self) }

    /// The statuses that say the credential keys themselves can be taken from the authenticator: the passkeys such a
    /// model made prove nothing any more, so they stop signing in. The other compromise kinds stop new registrations
    /// only: a leaked attestation key makes new attestations worthless, not the keys made before; a revoked
    /// certification or a bypassable user verification leaves possession of the passkey intact.
    public static let keyCompromises: Set<AuthenticatorStatus> = [.userKeyRemoteCompromise, .userKeyPhysicalCompromise]
}
