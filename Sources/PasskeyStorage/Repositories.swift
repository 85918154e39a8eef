public import Foundation

/// Users and their accounts.
public protocol UserRepository: Sendable {
    func user(id: String) async throws(StorageError) -> UserRecord?
    /// Case-insensitive lookup.
    func user(username: String) async throws(StorageError) -> UserRecord?
    func user(userHandle: [UInt8]) async throws(StorageError) -> UserRecord?
    /// Newest first, optionally filtered by a username substring.
    func users(matching search: String?, limit: Int, offset: Int) async throws(StorageError) -> [UserRecord]
    func deleteUser(id: String) async throws(StorageError)
    /// Disables the account from `disabledAt` on, or enables it again with `nil`; returns the account as stored.
    /// Disabling an account that is already disabled keeps its first time. Disabling also, in the same transaction,
    /// deletes the account's connect tokens and spends its pending ceremonies (options to add a passkey, above all), and
    /// sets ``UserRecord/tokensRevokedAt``: enabling the account again brings back nothing made before (a suspected
    /// takeover's). `notFound` when there is no such account.
    func setUserDisabled(id: String, disabledAt: Date?) async throws(StorageError) -> UserRecord
    /// Accounts whose name is, under today's ``UsernameKey``, the name of an older account: made under an earlier rule
    /// that told them apart (`Zoë` and `ZOË` before keys; `carol` and the fullwidth `ｃａｒｏｌ` before the width mapping).
    /// The older account keeps the key; such an account keeps none, so a lookup by name finds the older one, while its
    /// own passkeys still sign in without a username. Never merged: an operator decides (rename or delete one), and the
    /// account gets its key at the next start once the key is free. Oldest first.
    func usernameCollisions() async throws(StorageError) -> [UsernameCollision]
}

/// An account that keeps no username key because an older account holds the key its name has
/// (``UserRepository/usernameCollisions()``).
public struct UsernameCollision: Sendable, Equatable {
    /// The account found by its passkeys only.
    public var account: UserRecord
    /// The account a lookup by the name finds; nil when it was deleted since (the key is handed out at the next start).
    public var holder: UserRecord?

    public init(account: UserRecord, holder: UserRecord?) {
        self.account = account
        self.holder = holder
    }
}

/// Credentials, registered and used in atomic steps.
public protocol CredentialRepository: Sendable {
    func credential(id: [UInt8]) async throws(StorageError) -> CredentialRecordEntry?
    func credentials(userID: String) async throws(StorageError) -> [CredentialRecordEntry]

    /// Stores a verified registration in one transaction: creates `user` if it does not exist yet, then the credential,
    /// and spends what `spending` names in the same transaction:
    /// - ``ChallengeSpend/nothing``: a record written outside a ceremony (an import, a test's seed).
    /// - ``ChallengeSpend/stored(key:)``: the ceremony's stored challenge is consumed: of concurrent completions of one
    ///   ceremony exactly one writes. When the challenge names a credential it replaces
    ///   (``ChallengeRecord/replacesCredentialID``), that credential of the same user is deleted in the same transaction.
    ///   When it was issued for an existing account (``ChallengeRecord/forExistingUser``), that account must still exist
    ///   (`not_found`) and be enabled (`account_disabled`): it is never created again.
    /// - ``ChallengeSpend/sealed(key:expiresAt:)``: a new account's sealed challenge, never stored, is recorded as spent
    ///   (``ChallengeRepository/spendChallenge(key:expiresAt:now:)``): of concurrent completions on any number of
    ///   instances exactly one writes. The account must not exist: its id comes from the ceremony, so an existing one
    ///   means the ceremony was completed before (its spent record lost, as after a move of the database), and adding
    ///   the passkey to that account would let anyone holding the challenge into it.
    /// - Throws: `challenge_consumed` when the challenge is gone, spent or expired at `now` (or a sealed ceremony's
    ///   account exists), `credential_exists` when the credential ID is registered to anyone, `username_taken` when a new
    ///   user's name belongs to another account. On any failure nothing is written, the challenge included: a caller
    ///   that wants it burnt consumes it separately.
    func register(_ credential: CredentialRecordEntry, for user: UserRecord, spending: ChallengeSpend, now: Date) async throws(StorageError)

    /// Records a verified sign-in with compare-and-set on the counter (the row changes only if its sign count is still
    /// `expectedSignCount`, so two sign-ins racing with the same counter cannot both move it), spending what
    /// `spending` names in the same transaction (as ``register(_:for:spending:now:)`` spends it).
    /// - Throws: `challenge_consumed` when the challenge is gone, spent or expired at `time`; `counter_conflict` when the
    ///   stored counter moved meanwhile; `not_found` when the credential is gone. On any failure nothing is written.
    func recordSignIn(
        credentialID: [UInt8], expectedSignCount: UInt32, newSignCount: UInt32, backupState: Bool, at time: Date, spending: ChallengeSpend
    ) async throws(StorageError)

    /// Names `userID`'s passkey `id`, and returns it as stored after the change (one write, nothing read back).
    @discardableResult
    func renameCredential(id: [UInt8], userID: String, name: String) async throws(StorageError) -> CredentialRecordEntry
    func deleteCredential(id: [UInt8], userID: String) async throws(StorageError)
}

/// Ceremonies in progress.
public protocol ChallengeRepository: Sendable {
    func saveChallenge(_ challenge: ChallengeRecord) async throws(StorageError)

    /// The challenge stored under `key` for `ceremony`, without consuming it; `nil` when unknown or expired at `now`.
    /// Verification reads it, then consumes it in the transaction that records the outcome.
    func challenge(key: String, ceremony: ChallengeRecord.Ceremony, now: Date) async throws(StorageError) -> ChallengeRecord?

    /// The same, found by the challenge value (clients that send only the signed client data).
    func challenge(value: String, ceremony: ChallengeRecord.Ceremony, now: Date) async throws(StorageError) -> ChallengeRecord?

    /// Removes and returns the challenge stored under `key` for `ceremony`, if it exists and has not expired at `now`.
    /// Atomic: of many concurrent calls with the same key, exactly one gets the record.
    func consumeChallenge(key: String, ceremony: ChallengeRecord.Ceremony, now: Date) async throws(StorageError) -> ChallengeRecord?

    /// The same, found by the challenge value itself (clients that echo only the signed client data).
    func consumeChallenge(value: String, ceremony: ChallengeRecord.Ceremony, now: Date) async throws(StorageError) -> ChallengeRecord?

    /// Records as spent the challenge with `key` that was never stored (a sealed sign-in challenge, which carries its
    /// ceremony itself), until `expiresAt`, after which it cannot be used anyway. A sealed challenge is named by its key
    /// and expiry together (both are sealed in it), which lets storage keep spent ones in expiry order. Atomic across
    /// instances: of concurrent calls with one key and expiry exactly one returns true. False when it was spent before,
    /// or has expired at `now`.
    @discardableResult
    func spendChallenge(key: String, expiresAt: Date, now: Date) async throws(StorageError) -> Bool

    /// Whether the sealed challenge with `key` and `expiresAt` was recorded as spent. Read before a registration's
    /// verification, so that a used challenge is refused as cheaply as an unknown one, before any attestation is
    /// checked; single use itself is enforced by the write (``spendChallenge(key:expiresAt:now:)``).
    func isChallengeSpent(key: String, expiresAt: Date) async throws(StorageError) -> Bool

    /// Deletes challenges that expired before `now`, and the records of spent ones that expired
    /// ``ChallengeRecord/spentRecordRetention`` before it; returns how many of the former.
    @discardableResult
    func purgeExpiredChallenges(now: Date) async throws(StorageError) -> Int

    /// Challenges currently stored (expired ones included until purged), to bound storage.
    func challengeCount() async throws(StorageError) -> Int
}

/// Server secrets created once and kept with the data (for example the key that derives fake credential IDs for
/// unknown usernames, so answers stay the same across restarts and instances).
public protocol SecretRepository: Sendable {
    /// The secret stored under `name`, created from `make()` if there is none yet. Atomic: concurrent first calls
    /// agree on one value.
    func secret(named name: String, orCreate make: @escaping @Sendable () -> [UInt8]) async throws(StorageError) -> [UInt8]
}

/// How a ceremony's challenge is named by the client: its key, or the challenge value from the signed client data.
public enum ChallengeReference: Sendable, Hashable {
    case key(String)
    case value(String)
    /// A challenge that was never stored: it carries its ceremony itself, and the caller opened it and checked its seal.
    /// Storage reads nothing for it and gives it back as the lookup's challenge while it has not expired; single use is
    /// enforced by recording its key as spent in the write's transaction (``ChallengeRepository/spendChallenge(key:expiresAt:now:)``).
    case sealed(ChallengeRecord)

    /// Whether the challenge was never stored: its use is recorded as spent rather than a stored row consumed.
    public var isSealed: Bool {
        if case .sealed = self { return true }
        return false
    }
}

/// What a registration or a sign-in spends in its transaction (``CredentialRepository/register(_:for:spending:now:)``,
/// ``CredentialRepository/recordSignIn(credentialID:expectedSignCount:newSignCount:backupState:at:spending:)``): the
/// storage learns what to spend, never a ceremony's rules.
public enum ChallengeSpend: Sendable, Hashable {
    /// Nothing: a record written outside a ceremony (an import, a test's seed).
    case nothing
    /// The stored challenge with this key, consumed.
    case stored(key: String)
    /// A sealed challenge, never stored (it carries its ceremony itself), recorded as spent until it expires.
    case sealed(key: String, expiresAt: Date)

    /// What completing the ceremony `record` spends: a sealed one's key until its expiry, or the stored one, by its key
    /// whichever way it was found.
    public init(_ record: ChallengeRecord, sealed: Bool) {
        self = sealed ? .sealed(key: record.key, expiresAt: record.expiresAt) : .stored(key: record.key)
    }
}

extension CredentialRepository {
    /// ``register(_:for:spending:now:)`` outside a ceremony: nothing spent.
    public func register(_ credential: CredentialRecordEntry, for user: UserRecord) async throws(StorageError) {
        try await register(credential, for: user, spending: .nothing, now: Date())
    }

    /// ``recordSignIn(credentialID:expectedSignCount:newSignCount:backupState:at:spending:)`` outside a ceremony.
    public func recordSignIn(
        credentialID: [UInt8], expectedSignCount: UInt32, newSignCount: UInt32, backupState: Bool, at time: Date
    ) async throws(StorageError) {
        try await recordSignIn(
            credentialID: credentialID, expectedSignCount: expectedSignCount, newSignCount: newSignCount, backupState: backupState, at: time,
            spending: .nothing)
    }
}

/// What finishing a sign-in needs, read together: the ceremony, the credential, and its owner.
public struct SignInLookup: Sendable, Hashable {
    public var challenge: ChallengeRecord?
    public var credential: CredentialRecordEntry?
    public var owner: UserRecord?
    /// The app's own user id linked to the owner (connect), for the sign-in's signed token.
    public var externalUserID: String?
    /// The IDs of the owner's passkeys, oldest first, read with the rest (for the Signal API's list after the sign-in,
    /// which a sign-in's write does not change); nil where the storage did not read them.
    public var ownerCredentialIDs: [[UInt8]]?

    public init(
        challenge: ChallengeRecord?, credential: CredentialRecordEntry?, owner: UserRecord?, externalUserID: String? = nil,
        ownerCredentialIDs: [[UInt8]]? = nil
    ) {
        self.challenge = challenge
        self.credential = credential
        self.owner = owner
        self.externalUserID = externalUserID
        self.ownerCredentialIDs = ownerCredentialIDs
    }
}

/// What a sign-in decided about its ``SignInLookup``, to be written with it.
public enum SignInWrite: Sendable, Hashable {
    /// Verified: consume the challenge and move the counter (compare-and-set from `expectedSignCount`), the backup state
    /// and the last use.
    case record(expectedSignCount: UInt32, newSignCount: UInt32, backupState: Bool, at: Date)
    /// Refused: consume the challenge only, so the ceremony cannot be tried again.
    case burn
    /// Nothing to write: no usable challenge was found.
    case nothing
}

/// Reads a sign-in's context in one round trip to storage, and completes a sign-in.
public protocol SignInReader: Sendable {
    /// The unexpired challenge (not consumed), the credential with `credentialID`, the credential's owner, the owner's
    /// external (app) user id and the IDs of the owner's passkeys.
    func lookUpSignIn(challenge: ChallengeReference, credentialID: [UInt8], now: Date) async throws(StorageError) -> SignInLookup

    /// A whole sign-in's storage work: reads its ``SignInLookup``, lets `decide` check it (the signature, the account),
    /// and writes what `decide` chose, consuming the challenge in the write's transaction. Returns `decide`'s result;
    /// throws when a `.record` write failed (`challengeConsumed`, `counterConflict`, `notFound`, or storage itself), and
    /// then the challenge is consumed all the same where storage still works. When `decide` refused (`.burn`), its
    /// result is returned even if burning the challenge failed: the refusal stands, and only a verified sign-in must
    /// never be answered unless it was recorded. `.record` when the lookup found no usable challenge is
    /// `challengeConsumed`. A storage may run all of it in one transaction (SQLite: on its writer connection, whose page
    /// cache other connections' commits do not invalidate); the default reads, decides, then writes.
    func completeSignIn<T: Sendable>(
        challenge: ChallengeReference, credentialID: [UInt8], now: Date, decide: @escaping @Sendable (SignInLookup) -> (write: SignInWrite, result: T)
    ) async throws(StorageError) -> T

    /// The account `username` names (matched as ``UserRepository/user(username:)`` matches) with its passkeys, oldest
    /// first, as ``CredentialRepository/credentials(userID:)`` lists them: what sign-in options for a name list. One round
    /// trip to storage where the storage can (SQLite: one read transaction; PostgreSQL: one statement); the default
    /// asks for the two in turn.
    func signInAccount(username: String) async throws(StorageError) -> SignInAccount?
}

/// An account and its passkeys, oldest first (``SignInReader/signInAccount(username:)``).
public struct SignInAccount: Sendable, Equatable {
    public var user: UserRecord
    public var credentials: [CredentialRecordEntry]

    public init(user: UserRecord, credentials: [CredentialRecordEntry]) {
        self.user = user
        self.credentials = credentials
    }
}

extension SignInReader where Self: UserRepository & CredentialRepository {
    public func signInAccount(username: String) async throws(StorageError) -> SignInAccount? {
        guard let user = try await user(username: username) else { return nil }
        return SignInAccount(user: user, credentials: try await credentials(userID: user.id))
    }
}

extension SignInReader where Self: CredentialRepository & ChallengeRepository {
    public func completeSignIn<T: Sendable>(
        challenge reference: ChallengeReference, credentialID: [UInt8], now: Date,
        decide: @escaping @Sendable (SignInLookup) -> (write: SignInWrite, result: T)
    ) async throws(StorageError) -> T {
        let lookup = try await lookUpSignIn(challenge: reference, credentialID: credentialID, now: now)
        let (write, result) = decide(lookup)
        guard let record = lookup.challenge else {
            // Nothing to consume, so nothing may be recorded either.
            if case .record = write { throw StorageError(.challengeConsumed, "the challenge was already used or has expired") }
            return result
        }
        let sealed = reference.isSealed
        switch write {
        case .record(let expectedSignCount, let newSignCount, let backupState, let time):
            do {
                try await recordSignIn(
                    credentialID: credentialID, expectedSignCount: expectedSignCount, newSignCount: newSignCount, backupState: backupState,
                    at: time, spending: ChallengeSpend(record, sealed: reference.isSealed))
            } catch {
                await burn(record, sealed: sealed, now: now)
                throw error
            }
        case .burn:
            await burn(record, sealed: sealed, now: now)
        case .nothing:
            break
        }
        return result
    }

    /// Consumes a sign-in's challenge whose sign-in was not recorded, so the ceremony cannot be tried again. Best effort:
    /// the outcome that burns it stands either way.
    func burn(_ record: ChallengeRecord, sealed: Bool, now: Date) async {
        if sealed {
            _ = try? await spendChallenge(key: record.key, expiresAt: record.expiresAt, now: now)
        } else {
            _ = try? await consumeChallenge(key: record.key, ceremony: .authentication, now: now)
        }
    }
}

/// What the relying-party library's ceremonies store (`PasskeyRelyingParty`'s `CeremonyService`): accounts, passkeys,
/// challenges, a secret for made-up credentials, sign-ins in one step, and the link of an account to an app's user. An
/// app that brings its own store implements these; the server needs more (``PasskeyRepository``).
public typealias CeremonyRepository = UserRepository & CredentialRepository & ChallengeRepository & SecretRepository & SignInReader
    & ExternalUserRepository & ConnectTokenRepository

/// Everything the relying-party server stores.
public typealias PasskeyRepository = UserRepository & CredentialRepository & ChallengeRepository & SecretRepository & SignInReader
    & SigningKeyRepository & APIKeyRepository & ConnectTokenRepository & ExternalUserRepository & EventRepository & AdminRepository
    & TotalsRepository & TransferRepository & WebhookRepository & MetadataRepository & OpenIDRepository
