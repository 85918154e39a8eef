public import Foundation
public import PasskeyWire

/// A user account. `userHandle` is the WebAuthn user.id: 64 random bytes, never personal data.
public struct UserRecord: Sendable, Hashable, Identifiable {
    /// Our stable identifier (a UUID string), used in URLs and tokens.
    public var id: String
    public var userHandle: [UInt8]
    /// `nil` for anonymous users.
    public var username: String?
    public var displayName: String
    public var isAnonymous: Bool
    public var createdAt: Date
    public var lastSignInAt: Date?
    /// When an administrator (or the app's backend) disabled the account, `nil` while it is enabled. A disabled account
    /// keeps its passkeys and its name, but nothing signs in to it or adds a passkey to it until it is enabled again:
    /// the reversible alternative to deleting it (a suspected compromise, a departed employee, a chargeback).
    public var disabledAt: Date?
    /// The last time the account was disabled, kept when it is enabled again: sign-in tokens (signedPasskeyData)
    /// issued up to then are refused, so that a sign-in made before a disable (a suspected takeover's) does not count
    /// once the account is enabled.
    public var tokensRevokedAt: Date?

    public init(
        id: String = UUID().uuidString.lowercased(), userHandle: [UInt8], username: String?, displayName: String,
        isAnonymous: Bool, createdAt: Date, lastSignInAt: Date? = nil, disabledAt: Date? = nil, tokensRevokedAt: Date? = nil
    ) {
        self.id = id
        self.userHandle = userHandle
        self.username = username
        self.displayName = displayName
        self.isAnonymous = isAnonymous
        self.createdAt = createdAt
        self.lastSignInAt = lastSignInAt
        self.disabledAt = disabledAt
        self.tokensRevokedAt = tokensRevokedAt
    }

    public var isDisabled: Bool { disabledAt != nil }
}

/// A registered credential: the WebAuthn credential record (L3 §7.1 step 27) plus what management screens show.
public struct CredentialRecordEntry: Sendable, Hashable, Identifiable {
    public var id: [UInt8]
    public var userID: String
    /// COSE_Key bytes as found in attested credential data.
    public var publicKey: [UInt8]
    public var algorithm: Int
    public var signCount: UInt32
    public var uvInitialized: Bool
    public var transports: [String]
    public var backupEligible: Bool
    public var backupState: Bool
    /// Lower-case canonical AAGUID.
    public var aaguid: String
    public var attestationFormat: String
    public var attestationType: String
    /// A name the user can change ("iPhone", "YubiKey 5").
    public var name: String?
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(
        id: [UInt8], userID: String, publicKey: [UInt8], algorithm: Int, signCount: UInt32, uvInitialized: Bool,
        transports: [String], backupEligible: Bool, backupState: Bool, aaguid: String, attestationFormat: String,
        attestationType: String, name: String? = nil, createdAt: Date, lastUsedAt: Date? = nil
    ) {
        self.id = id
        self.userID = userID
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.uvInitialized = uvInitialized
        self.transports = transports
        self.backupEligible = backupEligible
        self.backupState = backupState
        self.aaguid = aaguid
        self.attestationFormat = attestationFormat
        self.attestationType = attestationType
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// A ceremony in progress: the challenge issued with options, waiting for the client's answer.
///
/// Single use: ``ChallengeRepository/consumeChallenge(key:ceremony:now:)`` removes it whether verification then
/// succeeds or fails, so a response can never be replayed.
public struct ChallengeRecord: Sendable, Hashable {
    public enum Ceremony: String, Sendable, Hashable, CaseIterable {
        case registration
        case authentication
        /// A registration for a recovery or onboarding link's account: completed only where the link is redeemed (with
        /// the link, in the transaction that uses it up), never by the endpoints that complete other registrations.
        case accountLinkRegistration = "account-link-registration"
    }

    /// The opaque key the client sends back (`challengeKey`).
    public var key: String
    /// The challenge exactly as put in the options (base64url).
    public var challenge: String
    public var ceremony: Ceremony
    /// The user the ceremony is for, when known (registration; sign-in with a username).
    public var userID: String?
    /// For registration of a new account: the name and handle to create it with.
    public var username: String?
    public var displayName: String?
    public var userHandle: [UInt8]?
    /// Credential IDs sent in `allowCredentials` (sign-in with a username).
    public var allowedCredentialIDs: [[UInt8]]
    /// Registration that resets a passkey: the user's credential the new one replaces once it verifies.
    public var replacesCredentialID: [UInt8]?
    /// Registration issued for conditional create (`mediation: "conditional"`): the authenticator creates the passkey
    /// without a prompt, so verification does not require user presence or verification (WebAuthn L3 §7.1 step 14).
    public var conditional: Bool
    /// Registration that adds a passkey to an account that exists (not one that creates an account): if the account is
    /// deleted before the registration completes, the registration fails (`not_found`) instead of creating the account
    /// again under the same name.
    public var forExistingUser: Bool
    /// Registration that creates an account named by the contact the person picks in the system's sign-up sheet
    /// (Apple's account creation, iOS 26): the kinds of contact the options accept. Empty for every other ceremony.
    public var acceptedContacts: [ContactKind]
    public var createdAt: Date
    public var expiresAt: Date

    public init(
        key: String, challenge: String, ceremony: Ceremony, userID: String? = nil, username: String? = nil,
        displayName: String? = nil, userHandle: [UInt8]? = nil, allowedCredentialIDs: [[UInt8]] = [],
        replacesCredentialID: [UInt8]? = nil, conditional: Bool = false, forExistingUser: Bool = false, acceptedContacts: [ContactKind] = [],
        createdAt: Date, expiresAt: Date
    ) {
        self.key = key
        self.challenge = challenge
        self.ceremony = ceremony
        self.userID = userID
        self.username = username
        self.displayName = displayName
        self.userHandle = userHandle
        self.allowedCredentialIDs = allowedCredentialIDs
        self.replacesCredentialID = replacesCredentialID
        self.conditional = conditional
        self.forExistingUser = forExistingUser
        self.acceptedContacts = acceptedContacts
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

extension ChallengeRecord {
    /// How long past its expiry the record of a spent sealed challenge is kept (5 minutes). An instance whose clock is
    /// behind the purging one's still takes the challenge for unexpired: its record must still say it was spent, or a
    /// captured response could be used once more there.
    public static let spentRecordRetention: TimeInterval = 300
}
