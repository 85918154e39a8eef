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
    /// Whether a large blob can be stored with it (`largeBlob`, WebAuthn L3 §10.1.5): the credential was created with
    /// the extension on an authenticator with large-blob storage. As with CTAP 2.1's `largeBlobKey`, a credential
    /// created without it never gets a blob.
    public var largeBlobSupported: Bool
    /// The blob last written with it at a sign-in, returned when a sign-in asks to read it (at most
    /// ``largeBlobLimit`` bytes). `nil`: nothing written yet.
    public var largeBlob: [UInt8]?

    /// The most bytes a stored large blob may have (64 KiB), whatever the configured capacity: the bound a credential
    /// file is read with.
    public static let largeBlobLimit = 65_536

    public init(
        id: [UInt8], rpID: String, userHandle: [UInt8], userName: String, userDisplayName: String, algorithm: SigningAlgorithm,
        privateKey: [UInt8], signCount: UInt32, backupEligible: Bool, backupState: Bool, createdAt: Date, lastUsedAt: Date? = nil,
        prfSecret: [UInt8]? = nil, largeBlobSupported: Bool = false, largeBlob: [UInt8]? = nil
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
        self.largeBlobSupported = largeBlobSupported
        self.largeBlob = largeBlob
    }

    /// The time a person last touched it, used to pick among several candidates the way an account picker sorts.
    var recency: Date { lastUsedAt ?? createdAt }

    public var description: String {
        "StoredCredential(rpID: \(rpID), user: \(userName), algorithm: \(algorithm), signCount: \(signCount), privateKey: <redacted>\(prfSecret == nil ? "" : ", prfSecret: <redacted>")\(largeBlob.map { ", largeBlob: \($0.count) bytes" } ?? ""))"
    }
}
