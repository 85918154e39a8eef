public import PasskeyClient
public import PasskeyWire

/// How a ``SoftwareAuthenticator`` behaves. Every choice mirrors something real authenticators do, so tests can
/// reproduce each kind of device the relying party will meet.
public struct SoftwareAuthenticatorConfiguration: Sendable, Hashable {
    /// The caller it pretends to be. Default: an Apple app (`https://<rpId>`).
    public var origin: OriginPolicy
    /// Algorithms it can create, used in the relying party's `pubKeyCredParams` order (§5.1.3 step 10). Default ES256.
    public var algorithms: [SigningAlgorithm]
    public var attestation: AttestationMode
    public var userVerification: UserVerificationBehavior
    public var backup: BackupBehavior
    public var counter: CounterBehavior
    /// The AAGUID in attested credential data: 16 bytes. Default all zero, as synced passkey providers report.
    public var aaguid: [UInt8]
    /// Reported as `authenticatorAttachment`, and requests that exclude it are refused with `not_supported`.
    public var attachment: AuthenticatorAttachment
    /// Reported in the registration response.
    public var transports: [AuthenticatorTransport]
    /// How long the simulated person takes to answer the sheet. Cancelling the task during this time cancels the
    /// ceremony; a delay longer than the options' `timeout` ends it with `timeout`.
    public var userResponseDelay: Duration
    /// Length of new credential IDs in bytes (at least 16; random, §6.5.2 says at most 1023).
    public var credentialIDLength: Int
    /// The most bytes one credential's large blob may hold (`largeBlob`, WebAuthn L3 §10.1.5; at most
    /// ``StoredCredential/largeBlobLimit``), or `nil` (or 0) for an authenticator without large-blob storage, as most
    /// security keys are: registrations then report `supported: false`, and those that require it fail with
    /// `not_supported`. Default 2048: a certificate or a wrapped key fits. Each credential has its own blob of that size,
    /// written whether or not the user was verified, like a CTAP 2.1 key without a PIN; a CTAP 2.1 key shares one
    /// store (at least 1024 bytes, compressed) among all its credentials, and one with a PIN writes only after
    /// verification.
    public var largeBlobCapacity: Int?
    /// The contacts the simulated person has, as iOS 26's sign-up sheet offers them (Apple's account creation): with
    /// any, ``SoftwareAuthenticator/createAccount(_:)`` picks the first of a kind the request accepts. Empty (the
    /// default): no sign-up sheet, as before iOS 26.
    public var accountContacts: [AccountContact]
    /// The name the simulated person gives when the sign-up sheet asks for one; `nil` gives none.
    public var accountName: String?

    /// ``largeBlobCapacity`` as used: `nil` when there is no storage, never more than ``StoredCredential/largeBlobLimit``.
    var largeBlobStorage: Int? {
        guard let capacity = largeBlobCapacity, capacity > 0 else { return nil }
        return min(capacity, StoredCredential.largeBlobLimit)
    }

    public init(
        origin: OriginPolicy = .appleApp, algorithms: [SigningAlgorithm] = [.es256], attestation: AttestationMode = .none,
        userVerification: UserVerificationBehavior = .verified, backup: BackupBehavior = .deviceBound,
        counter: CounterBehavior = .incrementing, aaguid: [UInt8] = [UInt8](repeating: 0, count: 16),
        attachment: AuthenticatorAttachment = .platform, transports: [AuthenticatorTransport] = [.internal, .hybrid],
        userResponseDelay: Duration = .zero, credentialIDLength: Int = 32, largeBlobCapacity: Int? = 2048,
        accountContacts: [AccountContact] = [], accountName: String? = nil
    ) {
        self.origin = origin
        self.algorithms = algorithms
        self.attestation = attestation
        self.userVerification = userVerification
        self.backup = backup
        self.counter = counter
        self.aaguid = aaguid
        self.attachment = attachment
        self.transports = transports
        self.userResponseDelay = userResponseDelay
        self.credentialIDLength = credentialIDLength
        self.largeBlobCapacity = largeBlobCapacity
        self.accountContacts = accountContacts
        self.accountName = accountName
    }

    /// Behaves like an iCloud Keychain passkey: synced (BE and BS set), counter always 0, user verified, no attestation.
    public static func syncedPasskey(origin: OriginPolicy = .appleApp) -> SoftwareAuthenticatorConfiguration {
        SoftwareAuthenticatorConfiguration(origin: origin, backup: .synced, counter: .alwaysZero)
    }
}

/// Which attestation statement registrations carry.
public enum AttestationMode: String, Sendable, Hashable, CaseIterable {
    /// `none` (§8.7): what passkey providers send.
    case none
    /// `packed` self attestation (§8.2, no certificate): signed by the credential key itself.
    case packedSelf
}

/// What the simulated person does when asked to confirm.
public enum UserVerificationBehavior: String, Sendable, Hashable, CaseIterable {
    /// Verifies (biometrics or passcode): UP and UV set, as platform authenticators always do.
    case verified
    /// Only touches (UP set, UV clear), like a security key without a PIN. Requests that require user verification
    /// fail with `not_supported`.
    case presenceOnly
}

/// The backup flags (§6.1.3) of new credentials.
public enum BackupBehavior: String, Sendable, Hashable, CaseIterable {
    /// BE = 0, BS = 0: bound to this device, like a security key.
    case deviceBound
    /// BE = 1, BS = 0: may be synced but is not backed up yet.
    case eligible
    /// BE = 1, BS = 1: a synced passkey (iCloud Keychain, Google Password Manager).
    case synced

    var flags: (eligible: Bool, backedUp: Bool) {
        switch self {
        case .deviceBound: (false, false)
        case .eligible: (true, false)
        case .synced: (true, true)
        }
    }
}

/// The signature counter (§6.1.1).
public enum CounterBehavior: String, Sendable, Hashable, CaseIterable {
    /// 0 at registration, then one more at every sign-in, per credential.
    case incrementing
    /// Always 0, as synced passkeys report (a relying party must accept 0 after 0).
    case alwaysZero
}
