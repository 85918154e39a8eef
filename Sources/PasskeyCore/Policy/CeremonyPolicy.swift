public import PasskeyWire

/// The relying party's choices for both ceremonies, with secure defaults.
///
/// Nothing a client sends can loosen these: options carry them out, verification enforces them.
public struct CeremonyPolicy: Sendable, Hashable {
    /// User verification (§7.1 step 16, §7.2 step 17). Default: required.
    public var userVerification: UserVerificationRequirement
    /// Algorithms offered in `pubKeyCredParams` and accepted at registration (§7.1 step 20), in order of preference.
    public var algorithms: [COSEAlgorithmIdentifier]
    /// Accept RS1 (RSASSA-PKCS1-v1_5 with SHA-1) credential keys. Off by default. When on, RS1 is offered last in
    /// `pubKeyCredParams` (``offeredAlgorithms``): §7.1 step 20 accepts only an algorithm that was offered.
    public var allowLegacyAlgorithms: Bool
    public var attestation: AttestationPolicy
    public var counter: CounterPolicy
    public var backup: BackupPolicy

    public init(
        userVerification: UserVerificationRequirement = .required,
        algorithms: [COSEAlgorithmIdentifier] = CeremonyPolicy.defaultAlgorithms,
        allowLegacyAlgorithms: Bool = false,
        attestation: AttestationPolicy = AttestationPolicy(),
        counter: CounterPolicy = .rejectRegression,
        backup: BackupPolicy = BackupPolicy()
    ) {
        self.userVerification = userVerification
        self.algorithms = algorithms
        self.allowLegacyAlgorithms = allowLegacyAlgorithms
        self.attestation = attestation
        self.counter = counter
        self.backup = backup
    }

    /// ES256 (every platform), EdDSA, ES384, ES512, PS256, RS256 (Windows Hello), ML-DSA-65 and ML-DSA-87.
    public static let defaultAlgorithms: [COSEAlgorithmIdentifier] = [
        .es256, .edDSA, .es384, .es512, .ps256, .rs256, .mlDSA65, .mlDSA87,
    ]

    public static let `default` = CeremonyPolicy()

    /// What registration options offer in `pubKeyCredParams`, and so what §7.1 step 20 accepts: ``algorithms``, then
    /// the legacy ones when ``allowLegacyAlgorithms`` is on.
    public var offeredAlgorithms: [COSEAlgorithmIdentifier] {
        guard allowLegacyAlgorithms else { return algorithms }
        return algorithms + SignatureVerifier.legacyAlgorithms.sorted { $0.rawValue > $1.rawValue }.filter { !algorithms.contains($0) }
    }

    /// Whether the UV flag must be set.
    public var requiresUserVerification: Bool { userVerification == .required }
}

/// What attestation the relying party accepts (§7.1 steps 23 and 24).
public struct AttestationPolicy: Sendable, Hashable {
    /// Require an attestation whose chain reaches a configured trust anchor: `none`, self attestation and chains
    /// that could not be evaluated are refused. Default: `false` (passkeys from any provider are welcome).
    public var requireTrustedAttestation: Bool
    /// The authenticator models (AAGUIDs) that may register; `nil` (default): any. An AAGUID is what the
    /// authenticator claims, vouched for only by a trusted attestation, so a list also requires one, as
    /// ``requireTrustedAttestation`` does: `none` and self attestation are refused rather than trusting a claim.
    /// Only roots of security-key vendors (packed, fido-u2f) vouch for the model; android-key, SafetyNet and TPM chains
    /// vouch for a device, whose apps can claim any AAGUID.
    public var allowedAAGUIDs: Set<AAGUID>?
    /// The authenticator models (AAGUIDs) the FIDO Metadata Service reports compromised in any way: refused at
    /// registration (`authenticator_compromised`), whatever the attestation: a client that claims a compromised model
    /// only refuses itself.
    public var compromisedAAGUIDs: Set<AAGUID>
    /// The models whose passkeys are refused at sign-in (by default those whose credential keys can be taken from the
    /// authenticator).
    public var keyCompromisedAAGUIDs: Set<AAGUID>
    /// The models a metadata policy admits (those the FIDO Metadata Service lists, or certifies at a level); `nil`
    /// (default): any. Like ``allowedAAGUIDs`` it needs a trusted attestation to vouch for the model
    /// (`authenticator_not_admitted` otherwise).
    public var admittedAAGUIDs: Set<AAGUID>?
    /// Models refused at registration whatever their attestation (`aaguid_not_allowed`): the claim of an honest
    /// client, since a client that lies about its model only escapes the list.
    public var deniedAAGUIDs: Set<AAGUID>
    /// What each model's metadata statement says its attestations can be: a registration claiming the model with
    /// another attestation type is refused (`attestation_not_allowed`).
    public var modelStatements: [AAGUID: ModelStatementRules]

    public init(
        requireTrustedAttestation: Bool = false, allowedAAGUIDs: Set<AAGUID>? = nil, compromisedAAGUIDs: Set<AAGUID> = [],
        keyCompromisedAAGUIDs: Set<AAGUID> = [], admittedAAGUIDs: Set<AAGUID>? = nil, deniedAAGUIDs: Set<AAGUID> = [],
        modelStatements: [AAGUID: ModelStatementRules] = [:]
    ) {
        self.modelStatements = modelStatements
        self.requireTrustedAttestation = requireTrustedAttestation
        self.allowedAAGUIDs = allowedAAGUIDs
        self.compromisedAAGUIDs = compromisedAAGUIDs
        self.keyCompromisedAAGUIDs = keyCompromisedAAGUIDs
        self.admittedAAGUIDs = admittedAAGUIDs
        self.deniedAAGUIDs = deniedAAGUIDs
    }

    public static let acceptAny = AttestationPolicy(requireTrustedAttestation: false)
    public static let requireTrusted = AttestationPolicy(requireTrustedAttestation: true)
}

/// What to do when the signature counter does not increase (§7.2 step 22).
public enum CounterPolicy: Sendable, Hashable {
    /// Refuse the sign-in with `counter_regressed` (default). Both counters at 0 is always fine: iCloud Keychain
    /// and other synced passkeys have no counter.
    case rejectRegression
    /// Accept, and report the regression in ``VerifiedAuthentication/counterRegressed`` for the relying party to act on.
    case reportRegression
}

/// How the backup flags are treated (§6.1.3, §7.1 steps 17–19, §7.2 steps 18–19).
public struct BackupPolicy: Sendable, Hashable {
    /// Accept credentials that can be synced (BE set). Set to `false` to accept device-bound credentials only.
    public var allowBackupEligible: Bool
    /// Refuse a sign-in whose BE flag differs from the stored one. BE is fixed when a credential is created, so a
    /// change means another authenticator or a bug. Default: `true`.
    public var requireUnchangedBackupEligibility: Bool

    public init(allowBackupEligible: Bool = true, requireUnchangedBackupEligibility: Bool = true) {
        self.allowBackupEligible = allowBackupEligible
        self.requireUnchangedBackupEligibility = requireUnchangedBackupEligibility
    }
}
