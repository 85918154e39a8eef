public import Foundation

/// A dashboard administrator: separate from the relying party's users, signing in with their own passkeys (stored as
/// ``CredentialRecordEntry`` values whose `userID` is the admin's id, in their own table).
public struct AdminRecord: Sendable, Hashable, Identifiable {
    public var id: String
    /// The WebAuthn user.id of the admin's passkeys: random bytes.
    public var userHandle: [UInt8]
    public var name: String
    public var createdAt: Date

    public init(id: String = UUID().uuidString.lowercased(), userHandle: [UInt8], name: String, createdAt: Date) {
        self.id = id
        self.userHandle = userHandle
        self.name = name
        self.createdAt = createdAt
    }
}

/// A one-time link that lets its holder register an admin passkey. Only a hash of the token is stored.
public struct AdminInviteRecord: Sendable, Hashable {
    /// SHA-256 of the token.
    public var hash: [UInt8]
    public var createdAt: Date
    public var expiresAt: Date

    public init(hash: [UInt8], createdAt: Date, expiresAt: Date) {
        self.hash = hash
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// A signed-in admin's session. Only a hash of the cookie's secret is stored.
public struct AdminSessionRecord: Sendable, Hashable {
    /// SHA-256 of the session secret.
    public var hash: [UInt8]
    public var adminID: String
    public var createdAt: Date
    /// The last request: the idle timeout counts from here.
    public var lastSeenAt: Date
    /// The last passkey check (sign-in or re-check): destructive actions need a recent one.
    public var verifiedAt: Date

    public init(hash: [UInt8], adminID: String, createdAt: Date, lastSeenAt: Date, verifiedAt: Date) {
        self.hash = hash
        self.adminID = adminID
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.verifiedAt = verifiedAt
    }
}
