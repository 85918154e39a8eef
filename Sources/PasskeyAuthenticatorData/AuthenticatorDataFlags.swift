/// The flags byte of authenticator data (WebAuthn L3 §6.1, table "flags"): one type for the verifier, the client SDK,
/// the software authenticator and the tests.
public struct AuthenticatorDataFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Bit 0: user present.
    public static let userPresent = AuthenticatorDataFlags(rawValue: 1 << 0)
    /// Bit 2: user verified.
    public static let userVerified = AuthenticatorDataFlags(rawValue: 1 << 2)
    /// Bit 3: backup eligible (§6.1.3): the credential can be synced; fixed for the credential's life.
    public static let backupEligible = AuthenticatorDataFlags(rawValue: 1 << 3)
    /// Bit 4: backup state (§6.1.3): the credential is backed up now.
    public static let backupState = AuthenticatorDataFlags(rawValue: 1 << 4)
    /// Bit 6: attested credential data included.
    public static let attestedCredentialData = AuthenticatorDataFlags(rawValue: 1 << 6)
    /// Bit 7: extension data included.
    public static let extensionData = AuthenticatorDataFlags(rawValue: 1 << 7)
}
