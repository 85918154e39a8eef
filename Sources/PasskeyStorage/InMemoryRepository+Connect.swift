public import Foundation

extension InMemoryRepository {
    // MARK: Signing keys

    public func signingKeys() -> [SigningKeyRecord] {
        signingKeysByID.values.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
    }

    public func addSigningKey(_ key: SigningKeyRecord, retiringOthersAt: Date) {
        for (id, var existing) in signingKeysByID where existing.retiresAt.map({ $0 > retiringOthersAt }) ?? true {
            existing.retiresAt = retiringOthersAt
            signingKeysByID[id] = existing
        }
        signingKeysByID[key.id] = key
    }

    public func ensureSigningKey(_ make: @escaping @Sendable () -> SigningKeyRecord) -> [SigningKeyRecord] {
        if !signingKeysByID.values.contains(where: { $0.retiresAt == nil }) {
            let key = make()
            signingKeysByID[key.id] = key
        }
        return signingKeys()
    }

    public func deleteRetiredSigningKeys(now: Date) -> Int {
        let before = signingKeysByID.count
        signingKeysByID = signingKeysByID.filter { $0.value.retiresAt.map { $0 > now } ?? true }
        return before - signingKeysByID.count
    }

    // MARK: API keys

    public func addAPIKey(_ key: APIKeyRecord) { apiKeysByID[key.id] = key }

    public func apiKeys() -> [APIKeyRecord] { apiKeysByID.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) } }

    public func apiKey(secretHash: [UInt8]) -> APIKeyRecord? { apiKeysByID.values.first { $0.secretHash == secretHash } }

    public func revokeAPIKey(id: String, at time: Date) throws(StorageError) {
        guard var key = apiKeysByID[id] else { throw StorageError(.notFound, "no API key \(id)") }
        if key.revokedAt == nil { key.revokedAt = time }
        apiKeysByID[id] = key
        connectTokensByHash = connectTokensByHash.filter { $0.value.apiKeyID != id }
    }

    public func touchAPIKey(id: String, at time: Date) { apiKeysByID[id]?.lastUsedAt = time }

    // MARK: Connect tokens

    public func saveConnectToken(_ token: ConnectTokenRecord) { connectTokensByHash[token.hash] = token }

    public func connectToken(hash: [UInt8], now: Date) -> ConnectTokenRecord? {
        guard let token = connectTokensByHash[hash], token.expiresAt > now else { return nil }
        return token
    }

    public func consumeConnectToken(hash: [UInt8], now: Date) -> ConnectTokenRecord? {
        guard let token = connectTokensByHash.removeValue(forKey: hash), token.expiresAt > now else { return nil }
        return token
    }

    public func redeemAccountToken(
        hash: [UInt8], registering credential: CredentialRecordEntry, for user: UserRecord, consumingChallenge challengeKey: String,
        replacingOtherPasskeys: Bool, now: Date
    ) throws(StorageError) -> [[UInt8]] {
        guard let token = connectTokensByHash[hash], token.expiresAt > now, token.userID == credential.userID else {
            throw StorageError(.notFound, "the token is unknown, used, expired or another account's")
        }
        // Checks come first inside the registration, so a failure leaves everything, the token included, as it was.
        try register(credential, for: user, consumingStored: challengeKey, now: now)
        connectTokensByHash[hash] = nil
        let others = replacingOtherPasskeys ? credentialsByID.values.filter { $0.userID == credential.userID && $0.id != credential.id } : []
        for other in others {
            credentialsByID[other.id] = nil
            reportWebhook(.passkeyDeleted, user: usersByID[credential.userID], credential: other)
        }
        enqueue(.linkUsed(credential: credential, owner: usersByID[credential.userID] ?? user, replacing: replacingOtherPasskeys, at: now))
        return others.map(\.id)
    }

    public func deleteConnectTokens(userID: String, types: [String]) -> Int {
        let doomed = connectTokensByHash.filter { $0.value.userID == userID && types.contains($0.value.type) }.keys
        for hash in doomed { connectTokensByHash[hash] = nil }
        return doomed.count
    }

    public func takeExpiredConnectTokens(types: [String], now: Date) -> [ConnectTokenRecord] {
        let expired = connectTokensByHash.values.filter { types.contains($0.type) && $0.expiresAt <= now }
        for token in expired { connectTokensByHash[token.hash] = nil }
        return expired.sorted { $0.expiresAt < $1.expiresAt }
    }

    public func markTokenUsed(id: String, expiresAt: Date) -> Bool {
        guard usedTokenIDs[id] == nil else { return false }
        usedTokenIDs[id] = expiresAt
        return true
    }

    public func purgeExpiredTokens(now: Date) -> Int {
        let before = connectTokensByHash.count + usedTokenIDs.count
        connectTokensByHash = connectTokensByHash.filter { $0.value.expiresAt > now }
        usedTokenIDs = usedTokenIDs.filter { $0.value > now }
        return before - connectTokensByHash.count - usedTokenIDs.count
    }

    // MARK: External users

    public func user(externalID: String) -> UserRecord? {
        // Byte for byte, as SQLite and PostgreSQL compare: Swift's `==` would match other normalization forms too.
        guard let userID = externalIDsByUserID.first(where: { $0.value.utf8.elementsEqual(externalID.utf8) })?.key else { return nil }
        return user(id: userID)
    }

    public func externalID(userID: String) -> String? { externalIDsByUserID[userID] }

    public func linkedUser(externalID: String, orCreate newUser: UserRecord) throws(StorageError) -> UserRecord {
        if let existing = user(externalID: externalID) { return existing }
        if let name = newUser.username, let other = user(username: name), other.id != newUser.id {
            throw StorageError(.usernameTaken, "username belongs to user \(other.id)")
        }
        insertUser(newUser)
        externalIDsByUserID[newUser.id] = externalID
        reportWebhook(.userCreated, user: newUser)
        return newUser
    }

    public func updateNames(userID: String, username: String?, displayName: String?) throws(StorageError) -> UserRecord {
        guard var user = user(id: userID) else { throw StorageError(.notFound, "no user \(userID)") }
        if let username {
            if let other = self.user(username: username), other.id != userID {
                throw StorageError(.usernameTaken, "username belongs to user \(other.id)")
            }
            user.username = username
        }
        if let displayName { user.displayName = displayName }
        let before = usersByID[userID]
        insertUser(user)
        if let before, (before.username, before.displayName) != (user.username, user.displayName) {
            reportWebhook(.userUpdated, user: user, detail: before.username)
        }
        return user
    }
}
