public import Foundation

/// The keys that sign `signedPasskeyData`, shared by every instance.
public protocol SigningKeyRepository: Sendable {
    /// Every stored key, newest first (retired ones included until deleted).
    func signingKeys() async throws(StorageError) -> [SigningKeyRecord]

    /// Adds `key` as the current signing key and retires every other key by `retiringOthersAt`, in one transaction: a
    /// key without a retirement time gets it, and one already retiring later is brought forward to it. A rotation never
    /// extends an older key's life, and `--overlap 0` after a compromise retires every earlier key at once, not only
    /// the one signing then.
    func addSigningKey(_ key: SigningKeyRecord, retiringOthersAt: Date) async throws(StorageError)

    /// The current keys; when there are none, adds `make()` first. Atomic: instances starting together agree on one key.
    func ensureSigningKey(_ make: @escaping @Sendable () -> SigningKeyRecord) async throws(StorageError) -> [SigningKeyRecord]

    /// Deletes keys whose retirement time is before `now`; returns how many.
    @discardableResult
    func deleteRetiredSigningKeys(now: Date) async throws(StorageError) -> Int
}

/// API keys of the app backends.
public protocol APIKeyRepository: Sendable {
    func addAPIKey(_ key: APIKeyRecord) async throws(StorageError)
    /// Every key, revoked ones included, oldest first.
    func apiKeys() async throws(StorageError) -> [APIKeyRecord]
    /// The key whose secret hashes to `secretHash`, revoked or not.
    func apiKey(secretHash: [UInt8]) async throws(StorageError) -> APIKeyRecord?
    /// Marks the key revoked at `time` and, in the same step, deletes the connect tokens it minted
    /// (``ConnectTokenRecord/apiKeyID``): a key revoked because it leaked must not leave usable tokens behind.
    /// - Throws: `not_found` for an unknown id.
    func revokeAPIKey(id: String, at time: Date) async throws(StorageError)
    /// Records a use (best effort, for the list).
    func touchAPIKey(id: String, at time: Date) async throws(StorageError)
}

/// Connect tokens, and the ids of signed tokens already verified (replay protection).
public protocol ConnectTokenRepository: Sendable {
    func saveConnectToken(_ token: ConnectTokenRecord) async throws(StorageError)
    /// The unexpired token with this hash, without consuming it.
    func connectToken(hash: [UInt8], now: Date) async throws(StorageError) -> ConnectTokenRecord?
    /// Removes and returns the unexpired token with this hash. Atomic: of concurrent calls exactly one gets it.
    func consumeConnectToken(hash: [UInt8], now: Date) async throws(StorageError) -> ConnectTokenRecord?
    /// Records that the signed token `id` (its `jti`) was verified; `false` when it already was. Atomic.
    func markTokenUsed(id: String, expiresAt: Date) async throws(StorageError) -> Bool
    /// Deletes expired connect tokens and used-token ids; returns how many.
    @discardableResult
    func purgeExpiredTokens(now: Date) async throws(StorageError) -> Int
    /// Redeems a single-use token that lets its holder add a passkey to an account (a recovery or onboarding link), in
    /// one transaction: consumes the token with hash `hash`, which must be unexpired at `now` and for
    /// `credential.userID`; consumes the ceremony's challenge and stores the credential as
    /// ``CredentialRepository/register(_:for:spending:now:)`` does; with `replacingOtherPasskeys`, deletes the
    /// account's other passkeys (a lost device). Returns the IDs of the passkeys deleted.
    /// - Throws: `not_found` when the token is unknown, used, expired or another account's; otherwise as the
    ///   registration. On any failure nothing is written: the token stays usable.
    func redeemAccountToken(
        hash: [UInt8], registering credential: CredentialRecordEntry, for user: UserRecord, consumingChallenge challengeKey: String,
        replacingOtherPasskeys: Bool, now: Date
    ) async throws(StorageError) -> [[UInt8]]
    /// Deletes the account's unused connect tokens of these types (revoked links); returns how many.
    func deleteConnectTokens(userID: String, types: [String]) async throws(StorageError) -> Int
    /// Deletes the tokens of these types that expired by `now` and returns them, so their expiry can be reported:
    /// each expired token is returned to exactly one caller, also with several instances on one database.
    func takeExpiredConnectTokens(types: [String], now: Date) async throws(StorageError) -> [ConnectTokenRecord]
}

/// Links between the app's own user ids and ours, for apps that keep their existing login.
public protocol ExternalUserRepository: Sendable {
    func user(externalID: String) async throws(StorageError) -> UserRecord?
    func externalID(userID: String) async throws(StorageError) -> String?
    /// The user linked to `externalID`; when there is none, stores `newUser` and links it, in one transaction.
    /// - Throws: `username_taken` when `newUser`'s name belongs to another account.
    func linkedUser(externalID: String, orCreate newUser: UserRecord) async throws(StorageError) -> UserRecord
    /// Gives the account `userID` the app's current names, so a linked account follows its app user: `username` and
    /// `displayName` when not nil (nil leaves that one as it is). Returns the account as stored after.
    ///
    /// Passkeys already made keep the names the authenticator stored with them; passkeys made after show the new ones,
    /// and so do the dashboard and `signedPasskeyData`.
    /// - Throws: `usernameTaken` when `username` is another account's (nothing changes then); `notFound` when the
    ///   account is gone.
    func updateNames(userID: String, username: String?, displayName: String?) async throws(StorageError) -> UserRecord
}
