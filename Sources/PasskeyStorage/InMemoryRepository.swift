public import Foundation

/// Keeps everything in memory: for tests and for trying things out. An actor, so every operation is atomic.
public actor InMemoryRepository: PasskeyRepository {
    var usersByID: [String: UserRecord] = [:]
    var credentialsByID: [[UInt8]: CredentialRecordEntry] = [:]
    private var challengesByKey: [String: ChallengeRecord] = [:]
    /// Sealed challenges spent: their expiry and key.
    private var spentChallenges: Set<SpentChallenge> = []

    struct SpentChallenge: Hashable {
        var expiresAt: Date
        var key: String
    }
    var secrets: [String: [UInt8]] = [:]
    // Connect state (InMemoryRepository+Connect.swift).
    var signingKeysByID: [String: SigningKeyRecord] = [:]
    var apiKeysByID: [String: APIKeyRecord] = [:]
    var connectTokensByHash: [[UInt8]: ConnectTokenRecord] = [:]
    var usedTokenIDs: [String: Date] = [:]
    var externalIDsByUserID: [String: String] = [:]
    // Dashboard state (InMemoryRepository+Dashboard.swift).
    var eventLog: [EventRecord] = []
    var nextEventID: Int64 = 1
    var adminsByID: [String: AdminRecord] = [:]
    var adminCredentialsByID: [[UInt8]: CredentialRecordEntry] = [:]
    var metadata: StoredMetadataBLOB?
    var adminInvitesByHash: [[UInt8]: AdminInviteRecord] = [:]
    var adminSessionsByHash: [[UInt8]: AdminSessionRecord] = [:]
    // Webhook endpoints and outbox (InMemoryRepository+Webhooks.swift).
    var webhooks = InMemoryWebhooks()
    // OpenID Provider clients, codes, tokens and sessions (InMemoryRepository+OpenID.swift).
    var openID = InMemoryOpenID()

    public init() {}

    // MARK: Users

    public func user(id: String) -> UserRecord? { usersByID[id] }

    public func user(username: String) -> UserRecord? {
        let wanted = UsernameKey.of(username)
        return usersByID.values.first { $0.username.map(UsernameKey.of) == wanted }
    }

    public func user(userHandle: [UInt8]) -> UserRecord? { usersByID.values.first { $0.userHandle == userHandle } }

    /// None: every name is compared by the key of today, from the first account on.
    public func usernameCollisions() -> [UsernameCollision] { [] }

    public func users(matching search: String?, limit: Int, offset: Int) -> [UserRecord] {
        // As the databases: the search text's key within the username's key (case-insensitive in every script).
        let needle = search.map(UsernameKey.of)
        let all = usersByID.values
            .filter { user in needle.map { UsernameKey.of(user.username ?? "").utf8.contains($0.utf8) } ?? true }
            .sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
        return Array(all.dropFirst(max(0, offset)).prefix(max(0, limit)))
    }

    public func deleteUser(id: String) throws(StorageError) {
        guard let user = usersByID[id] else { throw StorageError(.notFound, "no user \(id)") }
        reportWebhook(.userDeleted, user: user)
        usersByID[id] = nil
        credentialsByID = credentialsByID.filter { $0.value.userID != id }
        externalIDsByUserID[id] = nil
        connectTokensByHash = connectTokensByHash.filter { $0.value.userID != id }
    }

    public func setUserDisabled(id: String, disabledAt: Date?) throws(StorageError) -> UserRecord {
        guard var user = usersByID[id] else { throw StorageError(.notFound, "no user \(id)") }
        let wasDisabled = user.isDisabled
        if let disabledAt, user.disabledAt == nil {
            user.disabledAt = disabledAt
            user.tokensRevokedAt = disabledAt
        } else if disabledAt == nil {
            user.disabledAt = nil
        }
        usersByID[id] = user
        if wasDisabled != user.isDisabled { reportWebhook(user.isDisabled ? .userDisabled : .userEnabled, user: user) }
        if disabledAt != nil {
            connectTokensByHash = connectTokensByHash.filter { $0.value.userID != id }
            challengesByKey = challengesByKey.filter { $0.value.userID != id }
        }
        return user
    }

    // MARK: Credentials

    public func credential(id: [UInt8]) -> CredentialRecordEntry? { credentialsByID[id] }

    public func credentials(userID: String) -> [CredentialRecordEntry] {
        credentialsByID.values.filter { $0.userID == userID }.sorted { $0.createdAt < $1.createdAt }
    }

    public func register(_ credential: CredentialRecordEntry, for user: UserRecord, spending: ChallengeSpend, now: Date) throws(StorageError) {
        switch spending {
        case .nothing: try insert(credential, for: user)
        case .stored(let key): try register(credential, for: user, consumingStored: key, now: now)
        case .sealed(let key, let expiresAt): try register(credential, for: user, spendingSealed: key, expiresAt: expiresAt, now: now)
        }
    }

    public func recordSignIn(
        credentialID: [UInt8], expectedSignCount: UInt32, newSignCount: UInt32, backupState: Bool, at time: Date, spending: ChallengeSpend
    ) throws(StorageError) {
        switch spending {
        case .nothing:
            try moveCounter(credentialID: credentialID, expectedSignCount: expectedSignCount, newSignCount: newSignCount, backupState: backupState, at: time)
        case .stored(let key):
            try checkChallenge(key, now: time)
            try moveCounter(credentialID: credentialID, expectedSignCount: expectedSignCount, newSignCount: newSignCount, backupState: backupState, at: time)
            challengesByKey[key] = nil
        case .sealed(let key, let expiresAt):
            let spent = SpentChallenge(expiresAt: expiresAt, key: key)
            guard !spentChallenges.contains(spent), expiresAt > time else {
                throw StorageError(.challengeConsumed, "the challenge was already used or has expired")
            }
            try moveCounter(credentialID: credentialID, expectedSignCount: expectedSignCount, newSignCount: newSignCount, backupState: backupState, at: time)
            spentChallenges.insert(spent)
        }
    }

    /// The account when it is new, and the credential; nothing spent.
    private func insert(_ credential: CredentialRecordEntry, for user: UserRecord) throws(StorageError) {
        guard credentialsByID[credential.id] == nil else {
            throw StorageError(.credentialExists, "credential ID already registered")
        }
        if usersByID[user.id] == nil {
            if let name = user.username, let other = self.user(username: name), other.id != user.id {
                throw StorageError(.usernameTaken, "username belongs to user \(other.id)")
            }
            usersByID[user.id] = user
            reportWebhook(.userCreated, user: user)
        }
        credentialsByID[credential.id] = credential
        reportWebhook(.passkeyCreated, user: usersByID[user.id], credential: credential, detail: credential.aaguid)
    }

    func register(_ credential: CredentialRecordEntry, for user: UserRecord, consumingStored challengeKey: String, now: Date) throws(StorageError) {
        try checkChallenge(challengeKey, now: now)
        if challengesByKey[challengeKey]?.forExistingUser == true {
            guard let stored = usersByID[user.id] else { throw StorageError(.notFound, "the account was deleted during this registration") }
            if stored.isDisabled { throw StorageError(.accountDisabled, "the account was disabled during this registration") }
        }
        try insert(credential, for: user)
        if let replaced = challengesByKey[challengeKey]?.replacesCredentialID, let old = credentialsByID[replaced], old.userID == credential.userID {
            credentialsByID[replaced] = nil
            reportWebhook(.passkeyDeleted, user: usersByID[user.id], credential: old)
        }
        challengesByKey[challengeKey] = nil
    }

    private func register(
        _ credential: CredentialRecordEntry, for user: UserRecord, spendingSealed challengeKey: String, expiresAt: Date, now: Date
    ) throws(StorageError) {
        let spent = SpentChallenge(expiresAt: expiresAt, key: challengeKey)
        guard !spentChallenges.contains(spent), expiresAt > now, usersByID[user.id] == nil else {
            throw StorageError(.challengeConsumed, "the challenge was already used or has expired")
        }
        try insert(credential, for: user)
        spentChallenges.insert(spent)
    }

    /// Throws `challenge_consumed` when the challenge is gone or has expired. (The actor makes check-then-remove atomic.)
    private func checkChallenge(_ key: String, now: Date) throws(StorageError) {
        guard let record = challengesByKey[key], record.expiresAt > now else {
            throw StorageError(.challengeConsumed, "the challenge was already used or has expired")
        }
    }

    /// The counter's compare-and-set, the backup state and the last use.
    private func moveCounter(
        credentialID: [UInt8], expectedSignCount: UInt32, newSignCount: UInt32, backupState: Bool, at time: Date
    ) throws(StorageError) {
        guard var credential = credentialsByID[credentialID] else { throw StorageError(.notFound, "credential not found") }
        guard credential.signCount == expectedSignCount else {
            throw StorageError(.counterConflict, "stored counter is \(credential.signCount), expected \(expectedSignCount)")
        }
        credential.signCount = newSignCount
        credential.backupState = backupState
        credential.lastUsedAt = time
        credentialsByID[credentialID] = credential
        usersByID[credential.userID]?.noteUse(at: time)
    }

    @discardableResult
    public func renameCredential(id: [UInt8], userID: String, name: String) throws(StorageError) -> CredentialRecordEntry {
        guard var credential = credentialsByID[id], credential.userID == userID else {
            throw StorageError(.notFound, "credential not found for this user")
        }
        let previous = credential.name
        credential.name = name
        credentialsByID[id] = credential
        if previous != name { reportWebhook(.passkeyRenamed, user: usersByID[userID], credential: credential, detail: previous) }
        return credential
    }

    public func deleteCredential(id: [UInt8], userID: String) throws(StorageError) {
        guard let credential = credentialsByID[id], credential.userID == userID else {
            throw StorageError(.notFound, "credential not found for this user")
        }
        credentialsByID[id] = nil
        reportWebhook(.passkeyDeleted, user: usersByID[userID], credential: credential)
    }

    // MARK: Challenges

    public func saveChallenge(_ challenge: ChallengeRecord) { challengesByKey[challenge.key] = challenge }

    public func challenge(key: String, ceremony: ChallengeRecord.Ceremony, now: Date) -> ChallengeRecord? {
        guard let record = challengesByKey[key], record.ceremony == ceremony, record.expiresAt > now else { return nil }
        return record
    }

    public func challenge(value: String, ceremony: ChallengeRecord.Ceremony, now: Date) -> ChallengeRecord? {
        challengesByKey.values.first { $0.challenge == value && $0.ceremony == ceremony && $0.expiresAt > now }
    }

    public func consumeChallenge(key: String, ceremony: ChallengeRecord.Ceremony, now: Date) -> ChallengeRecord? {
        guard let record = challengesByKey[key], record.ceremony == ceremony else { return nil }
        challengesByKey[key] = nil
        return record.expiresAt > now ? record : nil
    }

    public func consumeChallenge(value: String, ceremony: ChallengeRecord.Ceremony, now: Date) -> ChallengeRecord? {
        guard let record = challengesByKey.values.first(where: { $0.challenge == value && $0.ceremony == ceremony }) else {
            return nil
        }
        challengesByKey[record.key] = nil
        return record.expiresAt > now ? record : nil
    }

    public func spendChallenge(key: String, expiresAt: Date, now: Date) -> Bool {
        guard expiresAt > now else { return false }
        return spentChallenges.insert(SpentChallenge(expiresAt: expiresAt, key: key)).inserted
    }

    public func isChallengeSpent(key: String, expiresAt: Date) -> Bool {
        spentChallenges.contains(SpentChallenge(expiresAt: expiresAt, key: key))
    }

    public func purgeExpiredChallenges(now: Date) -> Int {
        let forgotten = now.addingTimeInterval(-ChallengeRecord.spentRecordRetention)
        spentChallenges = spentChallenges.filter { $0.expiresAt > forgotten }
        let before = challengesByKey.count
        challengesByKey = challengesByKey.filter { $0.value.expiresAt > now }
        return before - challengesByKey.count
    }

    public func challengeCount() -> Int { challengesByKey.count }

    // MARK: Sign-in context

    public func lookUpSignIn(challenge reference: ChallengeReference, credentialID: [UInt8], now: Date) -> SignInLookup {
        let record: ChallengeRecord? = switch reference {
        case .key(let key): challenge(key: key, ceremony: .authentication, now: now)
        case .value(let value): challenge(value: value, ceremony: .authentication, now: now)
        case .sealed(let record):
            record.expiresAt > now && !spentChallenges.contains(SpentChallenge(expiresAt: record.expiresAt, key: record.key)) ? record : nil
        }
        let credential = credentialsByID[credentialID]
        let owner = credential.flatMap { usersByID[$0.userID] }
        return SignInLookup(
            challenge: record, credential: credential, owner: owner, externalUserID: credential.flatMap { externalIDsByUserID[$0.userID] },
            ownerCredentialIDs: owner.map { credentials(userID: $0.id).map(\.id) })
    }

    // MARK: Secrets

    public func secret(named name: String, orCreate make: @escaping @Sendable () -> [UInt8]) -> [UInt8] {
        if let existing = secrets[name] { return existing }
        let created = make()
        secrets[name] = created
        return created
    }

    func insertUser(_ user: UserRecord) { usersByID[user.id] = user }
}

extension UserRecord {
    /// An account's last sign-in is the latest use of any of its passkeys, as the databases read it (their
    /// `userColumns`): a sign-in whose clock reads earlier than a previous one does not move it back.
    mutating func noteUse(at time: Date?) {
        guard let time, lastSignInAt.map({ $0 < time }) ?? true else { return }
        lastSignInAt = time
    }
}
