public import Foundation

/// A credential the software authenticator holds: a discoverable credential (resident key) with its private key.
///
/// `description` never prints the private key.
public struct StoredCredential: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// The credential ID (random, at least 16 bytes).
    public var id: [UInt8]
    /// The RP ID it is scoped to.
    public var rpID: String
    /// The user handle from the creation options (`user.id`), returned at every sign-in.
    public var userHandle: [UInt8]
    public var userName: String
    public var userDisplayName: String
    public var algorithm: SigningAlgorithm
    /// The raw private key: the P-256 scalar or the Ed25519 seed (32 bytes).
    public var privateKey: [UInt8]
    /// The last signature counter value returned.
    public var signCount: UInt32
    /// BE: fixed at creation (§6.1.3).
    public var backupEligible: Bool
    /// BS: reported at every sign-in.
    public var backupState: Bool
    public var createdAt: Date
    public var lastUsedAt: Date?
    /// The secret the `prf` extension evaluates with (32 bytes, CTAP2 `hmac-secret`): made when the credential was
    /// created with `prf` in its options, `nil` for a credential created without (it then gives no PRF outputs).
    public var prfSecret: [UInt8]?

    public init(
        id: [UInt8], rpID: String, userHandle: [UInt8], userName: String, userDisplayName: String, algorithm: SigningAlgorithm,
        privateKey: [UInt8], signCount: UInt32, backupEligible: Bool, backupState: Bool, createdAt: Date, lastUsedAt: Date? = nil,
        prfSecret: [UInt8]? = nil
    ) {
        self.id = id
        self.rpID = rpID
        self.userHandle = userHandle
        self.userName = userName
        self.userDisplayName = userDisplayName
        self.algorithm = algorithm
        self.privateKey = privateKey
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backupState = backupState
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.prfSecret = prfSecret
    }

    /// The time a person last touched it, used to pick among several candidates the way an account picker sorts.
    var recency: Date { lastUsedAt ?? createdAt }

    public var description: String {
        "StoredCredential(rpID: \(rpID), user: \(userName), algorithm: \(algorithm), signCount: \(signCount), privateKey: <redacted>\(prfSecret == nil ? "" : ", prfSecret: <redacted>"))"
    }
}
