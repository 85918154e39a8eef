public import Foundation
public import PasskeyCore
public import PasskeyStorage
public import PasskeyWire

/// Where a registration is completed. The public endpoints complete both kinds of options: a new account's, and
/// options to add a passkey to an existing account made with an append token (so apps written against the
/// app-backend guide's `/api/complete-registration` can complete them). The append endpoint, which needs no token of
/// its own, completes only the latter: it never creates an account.
public enum RegistrationEndpoint: Sendable, Equatable {
    case publicAPI
    case append
    /// Redeeming a recovery or onboarding link (the token with this hash): completes only options made for the link's
    /// account, and stores the passkey in the transaction that consumes the link, deleting the account's other passkeys
    /// when `replacingOtherPasskeys`.
    case accountLink(tokenHash: [UInt8], replacingOtherPasskeys: Bool)

    var isAccountLink: Bool {
        if case .accountLink = self { return true }
        return false
    }
}

/// The four ceremony operations of the documented API, over any repository. HTTP-free: the router binds them.
///
/// Challenges are single use (consumed before verification, so a failed attempt burns them too), bound to their
/// ceremony and user, and expire after ``CeremonyConfiguration/challengeTTL``.
public struct CeremonyService<Repository: CeremonyRepository>: Sendable {
    public let repository: Repository
    /// Replaced while the server runs when a new metadata BLOB arrives.
    public let relyingPartyInForce: RelyingPartyInForce
    public var relyingParty: RelyingParty { relyingPartyInForce.current }
    public let configuration: CeremonyConfiguration
    public let now: @Sendable () -> Date
    public let random: RandomSource
    /// Shared by copies of the service: the pending-ceremony estimate of this instance.
    let gauge = PendingChallengeGauge()
    /// What a sign-in with a made-up credential ID is checked against (``DecoyCredential``).
    let decoy = DecoyCredential()
    /// Shared by copies of the service: the server secrets, read once.
    let secrets = CeremonySecrets()

    public init(
        repository: Repository, relyingParty: RelyingParty, configuration: CeremonyConfiguration,
        now: @escaping @Sendable () -> Date = Date.init, random: RandomSource = .system
    ) {
        self.init(repository: repository, relyingParty: RelyingPartyInForce(relyingParty), configuration: configuration, now: now, random: random)
    }

    public init(
        repository: Repository, relyingParty: RelyingPartyInForce, configuration: CeremonyConfiguration,
        now: @escaping @Sendable () -> Date = Date.init, random: RandomSource = .system
    ) {
        self.repository = repository
        self.relyingPartyInForce = relyingParty
        self.configuration = configuration
        self.now = now
        self.random = random
    }

    /// ``UserEntityName/make(username:userHandle:)``.
    public static func userEntityName(username: String?, userHandle: [UInt8]) -> String {
        UserEntityName.make(username: username, userHandle: userHandle)
    }

    /// The account as its passkeys know it (user handle, name, display name): with the RP ID, what a client needs to
    /// keep the device's passkey manager in step with the server (WebAuthn L3 §5.1.10 `signalCurrentUserDetails`, and
    /// with a passkey list `signalAllAcceptedCredentials`). Part of every passkey list and every verified sign-in.
    public func userEntity(for user: UserRecord) -> PublicKeyCredentialUserEntityJSON {
        PublicKeyCredentialUserEntityJSON(
            id: Base64URL.encode(user.userHandle), name: Self.userEntityName(username: user.username, userHandle: user.userHandle),
            displayName: user.displayName)
    }

    public func newChallengeKey() -> String { Base64URL.encode(random.bytes(16)) }

    /// Refuses new options with 503 `busy` while ``CeremonyConfiguration/maximumPendingChallenges`` ceremonies are pending
    /// (after purging expired ones), so storage stays bounded whatever clients do. Counts one issued challenge.
    func ensureCapacity() async throws(RelyingPartyError) {
        let time = now()
        let limit = configuration.maximumPendingChallenges
        if let estimate = gauge.estimate(now: time), estimate < limit {
            gauge.issued()
            return
        }
        let count: Int
        do { count = try await pendingChallenges(limit: limit, now: time) } catch { throw RelyingPartyError(error) }
        gauge.record(count: count, at: time)
        guard count < limit else {
            throw RelyingPartyError(.busy, "Too many ceremonies are in progress. Try again shortly.")
        }
        gauge.issued()
    }

    /// The pending challenges, counted again after purging expired ones when there are `limit` or more.
    func pendingChallenges(limit: Int, now time: Date) async throws(StorageError) -> Int {
        let count = try await repository.challengeCount()
        guard count >= limit else { return count }
        try await repository.purgeExpiredChallenges(now: time)
        return try await repository.challengeCount()
    }

    // MARK: Shared

    /// Finds the ceremony's challenge without consuming it: by `challengeKey` when the client sent one, otherwise by the
    /// challenge in the signed client data (only a lookup key: verification compares it again). It is consumed in the
    /// transaction that records a success, or burnt on failure.
    public func findChallenge(
        challengeKey: String?, signedChallenge: () throws(WebAuthnError) -> String, ceremony: ChallengeRecord.Ceremony
    ) async throws(RelyingPartyError) -> ChallengeRecord {
        let time = now()
        let record: ChallengeRecord?
        if let challengeKey, !challengeKey.isEmpty {
            do { record = try await repository.challenge(key: challengeKey, ceremony: ceremony, now: time) } catch { throw RelyingPartyError(error) }
        } else {
            let value: String
            do { value = try signedChallenge() } catch { throw RelyingPartyError(error) }
            do { record = try await repository.challenge(value: value, ceremony: ceremony, now: time) } catch { throw RelyingPartyError(error) }
        }
        guard let record else { throw RelyingPartyError.challengeInvalid }
        return record
    }

    /// Consumes a challenge whose ceremony failed, so a response can never be retried against it.
    public func burn(_ record: ChallengeRecord) async {
        _ = try? await repository.consumeChallenge(key: record.key, ceremony: record.ceremony, now: now())
    }

    public static func coreRecord(_ entry: CredentialRecordEntry) -> CredentialRecord {
        CredentialRecord(
            id: entry.id, publicKey: entry.publicKey, signCount: entry.signCount, uvInitialized: entry.uvInitialized,
            transports: entry.transports.map(AuthenticatorTransport.init(rawValue:)), backupEligible: entry.backupEligible,
            backupState: entry.backupState)
    }
}
