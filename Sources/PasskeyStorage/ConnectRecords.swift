public import Foundation

/// A key that signs `signedPasskeyData` tokens (ES256). Kept in the database so every instance signs with, and
/// publishes, the same keys.
///
/// Rotation adds a new key and gives the previous ones a ``retiresAt``: they stop signing at once but stay in the JWKS
/// until then, so tokens they signed keep verifying until those tokens expire.
public struct SigningKeyRecord: Sendable, Hashable, Identifiable {
    /// The JWS `kid`.
    public var id: String
    /// JOSE algorithm name; `ES256`.
    public var algorithm: String
    /// The private key, PKCS#8 PEM. A secret: never logged, never sent.
    public var privateKeyPEM: String
    public var createdAt: Date
    /// When the key leaves the JWKS; `nil` for the current signing key.
    public var retiresAt: Date?

    public init(id: String, algorithm: String = "ES256", privateKeyPEM: String, createdAt: Date, retiresAt: Date? = nil) {
        self.id = id
        self.algorithm = algorithm
        self.privateKeyPEM = privateKeyPEM
        self.createdAt = createdAt
        self.retiresAt = retiresAt
    }
}

/// A backend API key. Only a hash of the secret is stored: the key is shown once, when it is created.
public struct APIKeyRecord: Sendable, Hashable, Identifiable {
    public var id: String
    /// What the operator called it ("shop backend").
    public var name: String
    /// The key's first characters, to recognise it in lists (`pks_AbCd…`).
    public var prefix: String
    /// SHA-256 of the whole key.
    public var secretHash: [UInt8]
    public var createdAt: Date
    public var lastUsedAt: Date?
    public var revokedAt: Date?

    public init(
        id: String = UUID().uuidString.lowercased(), name: String, prefix: String, secretHash: [UInt8], createdAt: Date,
        lastUsedAt: Date? = nil, revokedAt: Date? = nil
    ) {
        self.id = id
        self.name = name
        self.prefix = prefix
        self.secretHash = secretHash
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
    }
}

/// A connect token: a short-lived bearer token the app's backend mints (with an API key) so that the app may add,
/// list or delete one user's passkeys. Only a hash of the token is stored.
public struct ConnectTokenRecord: Sendable, Hashable {
    /// SHA-256 of the token.
    public var hash: [UInt8]
    /// `passkey-append`, `passkey-list`, `passkey-delete` or `passkey-login`.
    public var type: String
    /// Our user the token acts for.
    public var userID: String
    /// Single-use tokens are consumed by the operation they authorize.
    public var singleUse: Bool
    public var createdAt: Date
    public var expiresAt: Date
    /// The API key that minted it: revoking the key deletes the tokens it minted that are still unused (nil for tokens
    /// stored before keys were recorded).
    public var apiKeyID: String?

    public init(hash: [UInt8], type: String, userID: String, singleUse: Bool, createdAt: Date, expiresAt: Date, apiKeyID: String? = nil) {
        self.hash = hash
        self.type = type
        self.userID = userID
        self.singleUse = singleUse
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.apiKeyID = apiKeyID
    }
}
