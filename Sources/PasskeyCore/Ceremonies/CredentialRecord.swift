public import PasskeyWire

/// What a relying party stores for each credential (WebAuthn L3 §4 "credential record", §7.1 step 27), and hands back
/// at sign-in. Every field comes from authenticator data or the attestation object, never from client-side copies.
public struct CredentialRecord: Sendable, Hashable {
    /// The credential ID (raw bytes; index on it, unique across all users).
    public var id: [UInt8]
    /// The COSE_Key bytes exactly as found in attested credential data.
    public var publicKey: [UInt8]
    /// The last signature counter seen.
    public var signCount: UInt32
    /// Whether user verification was performed when the credential was created.
    public var uvInitialized: Bool
    /// Transports the client reported (hints for `allowCredentials` / `excludeCredentials`).
    public var transports: [AuthenticatorTransport]
    /// BE at registration: fixed for the credential's life.
    public var backupEligible: Bool
    /// BS last seen: update it at every sign-in.
    public var backupState: Bool
    /// The user handle of the account that owns the credential.
    public var userHandle: [UInt8]?

    public init(
        id: [UInt8], publicKey: [UInt8], signCount: UInt32, uvInitialized: Bool = false,
        transports: [AuthenticatorTransport] = [], backupEligible: Bool = false, backupState: Bool = false,
        userHandle: [UInt8]? = nil
    ) {
        self.id = id
        self.publicKey = publicKey
        self.signCount = signCount
        self.uvInitialized = uvInitialized
        self.transports = transports
        self.backupEligible = backupEligible
        self.backupState = backupState
        self.userHandle = userHandle
    }

    /// The descriptor to put in `allowCredentials` or `excludeCredentials`.
    public var descriptor: PublicKeyCredentialDescriptorJSON {
        PublicKeyCredentialDescriptorJSON(id: Base64URL.encode(id), transports: transports.isEmpty ? nil : transports)
    }
}
