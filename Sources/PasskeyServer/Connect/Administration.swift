import PasskeyRelyingParty
public import Foundation
public import PasskeyStorage
public import PasskeyCore

/// Operator actions behind `passkey-server api-keys …` and `passkey-server keys …`, over any repository.
public enum Administration {
    /// An API key's name as given to `api-keys create`, trimmed: 1 to 100 characters, none that breaks the one-line
    /// listing or changes how a terminal shows it (control characters, escape sequences, line breaks, direction
    /// overrides). Throws a sentence for the operator otherwise.
    public static func apiKeyName(_ raw: String) throws(ConfigurationError) -> String {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 100, DisplayText.isSafe(trimmed) else {
            throw ConfigurationError("--name needs 1 to 100 characters, without control characters, line breaks or direction overrides")
        }
        return trimmed
    }

    /// Creates an API key named `name`. The returned secret is shown once; only its hash is stored.
    public static func createAPIKey<Repository: APIKeyRepository>(
        name: String, repository: Repository, now: Date = Date()
    ) async throws(StorageError) -> (record: APIKeyRecord, secret: String) {
        let secret = BearerSecrets.make(prefix: BearerSecrets.apiKeyPrefix)
        let record = APIKeyRecord(
            name: name, prefix: String(secret.prefix(BearerSecrets.apiKeyPrefix.count + 6)), secretHash: BearerSecrets.hash(secret),
            createdAt: now)
        try await repository.addAPIKey(record)
        return (record, secret)
    }

    /// Stores a new dashboard admin invite and returns its token, shown once (only its hash is stored): the setup link
    /// is `<origin>/dashboard/setup?token=<token>`.
    public static func createAdminInvite<Repository: AdminRepository>(
        repository: Repository, lifetime: TimeInterval, now: Date = Date(), random: RandomSource = .system
    ) async throws(StorageError) -> String {
        let (token, invite) = makeAdminInvite(lifetime: lifetime, now: now, random: random)
        try await repository.saveAdminInvite(invite)
        return token
    }

    /// A new invite token and the record to store for it (its hash only).
    static func makeAdminInvite(lifetime: TimeInterval, now: Date, random: RandomSource) -> (token: String, invite: AdminInviteRecord) {
        let token = BearerSecrets.make(prefix: BearerSecrets.adminInvitePrefix, random: random)
        return (token, AdminInviteRecord(hash: BearerSecrets.hash(token), createdAt: now, expiresAt: now.addingTimeInterval(lifetime)))
    }

    /// Adds a new signing key that signs from now on; the previous ones stay published (and verify) for `overlap`
    /// seconds, so tokens they signed keep verifying until they expire. Running servers pick the new key up within
    /// 30 seconds.
    public static func rotateSigningKey<Repository: SigningKeyRepository>(
        repository: Repository, overlap: TimeInterval, now: Date = Date()
    ) async throws(StorageError) -> SigningKeyRecord {
        let key = SigningKeys.make(now: now)
        try await repository.addSigningKey(key, retiringOthersAt: now.addingTimeInterval(overlap))
        return key
    }
}
