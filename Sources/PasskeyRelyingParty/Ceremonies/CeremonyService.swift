public import Foundation
public import PasskeyCore
public import PasskeyStorage
public import PasskeyWire
import Crypto

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
    public let relyingParty: RelyingParty
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
        self.repository = repository
        self.relyingParty = relyingParty
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

    // MARK: Registration

    /// Options for a new account (named, or anonymous when `username` is nil).
    ///
    /// An existing username is refused with `username_taken`: adding a passkey to an existing account needs that
    /// account's authorization, never just its name.
    ///
    /// Nothing is stored: the challenge carries the ceremony (``SealedRegistrationChallenge``) and is the returned
    /// `challengeKey` too; the account (`user`, its id and user handle derived from the challenge) is created when the
    /// registration verifies. Two options for one free name may both be issued: the first to verify gets it.
    ///
    /// - Parameter acceptedContacts: options for the system's sign-up sheet (Apple's account creation), which creates
    ///   the passkey and lets the person pick an email address or phone number of these kinds: the account is named by
    ///   that contact when the registration is verified. No username then.
    public func registrationOptions(
        username rawUsername: String?, displayName rawDisplayName: String?, acceptedContacts: [ContactKind] = []
    ) async throws(RelyingPartyError)
        -> (options: PublicKeyCredentialCreationOptionsJSON, challengeKey: String, user: UserRecord)
    {
        guard configuration.publicRegistration else { throw RelyingPartyError.registrationClosed }
        if !acceptedContacts.isEmpty, rawUsername?.isEmpty == false {
            throw RelyingPartyError(
                .fieldInvalid, "Options with contact are for an account named by the contact picked in the sign-up sheet: send no username.")
        }
        // The options are for the two kinds of contact verification knows: sealed, a challenge carries them by name.
        guard Set(acceptedContacts).count == acceptedContacts.count, acceptedContacts.allSatisfy({ $0 == .email || $0 == .phone }) else {
            throw RelyingPartyError(.contactKindInvalid, "contact takes email, phone, or both (email,phone), each once.")
        }
        // A phone number in international form is kept as + and its digits, as the sign-up sheet's are, so that one
        // number names one account however it was spaced; the rules for new names apply to what is kept.
        let username = try UsernameRules.normalized(rawUsername).map { ContactIdentifier.phoneNumber($0) ?? $0 }
        if let username {
            try UsernameRules.requireNewAccountName(username)
            let existing: UserRecord?
            do { existing = try await repository.user(username: username) } catch { throw RelyingPartyError(error) }
            if existing != nil {
                throw RelyingPartyError(.usernameTaken, "This username is taken. Choose another one.")
            }
        }
        let displayName: String
        let storedDisplayName: String?
        if acceptedContacts.isEmpty {
            displayName = DisplayName.sanitized(rawDisplayName, fallback: username ?? "Anonymous")
            storedDisplayName = displayName
        } else {
            // For the sign-up sheet: a display name the app gave is the account's unless the person gives one in the
            // sheet; without either, the contact is. "New account" only fills the options' required member.
            let given = DisplayName.sanitized(rawDisplayName, fallback: "")
            displayName = given.isEmpty ? "New account" : given
            storedDisplayName = given.isEmpty ? nil : given
        }
        // Nothing is stored: the challenge carries the ceremony (``SealedRegistrationChallenge``), and the account's
        // user handle and id derive from its nonce. Storage is written once, when the registration verifies.
        let sealKey: SymmetricKey
        do { sealKey = try await secrets.key(CeremonySecrets.challengeSealKey, in: repository) } catch { throw RelyingPartyError(error) }
        let time = now()
        let sealed = SealedRegistrationChallenge(
            issuedAt: time, expiresAt: time.addingTimeInterval(configuration.challengeTTL), nonce: random.bytes(SealedChallenge.nonceLength),
            username: username, displayName: storedDisplayName, acceptedContacts: acceptedContacts)
        guard let challenge = sealed.sealed(key: sealKey) else {
            throw RelyingPartyError(.fieldInvalid, "The username or display name is too long.")
        }
        let userHandle = sealed.userHandle(key: sealKey)
        let user = UserRecord(
            id: sealed.userID(key: sealKey), userHandle: userHandle, username: username, displayName: displayName,
            isAnonymous: username == nil && acceptedContacts.isEmpty, createdAt: sealed.issuedAt)
        // An account without a name is given one (``GeneratedUsername``): its passkeys carry it, and it is stored as the
        // account's username when the registration verifies.
        let options = relyingParty.makeRegistrationOptions(
            userHandle: userHandle, userName: username ?? GeneratedUsername.make(userHandle: userHandle), displayName: displayName,
            attestation: configuration.attestation, timeoutMilliseconds: Int(configuration.challengeTTL * 1000), challenge: challenge,
            random: random)
        return (options, challenge, user)
    }

    /// Verifies a registration and stores the credential (and the new account) in one transaction.
    ///
    /// - Parameters:
    ///   - rawUsername: for options made with accepted contacts, the contact the person picked in the sign-up sheet,
    ///     which names the new account (``ContactIdentifier``; taken names are refused in the transaction that consumes
    ///     the challenge); otherwise, when given, the username the options were made for.
    ///   - rawDisplayName: for options made with accepted contacts, the name the person gave in the sheet, if any.
    public func verifyRegistration(
        _ credential: RegistrationResponseJSON, challengeKey: String?, username rawUsername: String?, displayName rawDisplayName: String? = nil,
        at endpoint: RegistrationEndpoint = .publicAPI
    ) async throws(RelyingPartyError) -> CompletedRegistration {
        // A new account's options seal their ceremony in the challenge, and give it as their challengeKey too; others
        // (adding a passkey, a link, options made before challenges were sealed) are stored under a random key. As with
        // a stored ceremony, the key decides when the client sent one, and verification then compares the signed
        // challenge with it (§7.1 step 8: a response made for other options is `challenge_mismatch`).
        let sealed = try await openSealedRegistration(challengeKey: challengeKey, credential: credential)
        let record: ChallengeRecord
        if let sealed {
            guard sealed.expiresAt > now() else { throw RelyingPartyError.challengeInvalid }
            // Used before: refused as an unknown ceremony is, before any check costs more than this read (the write
            // that records the account is what enforces single use).
            let spent: Bool
            do { spent = try await repository.isChallengeSpent(key: sealed.key, expiresAt: sealed.expiresAt) } catch { throw RelyingPartyError(error) }
            guard !spent else { throw RelyingPartyError.challengeInvalid }
            record = sealed
        } else {
            // A link's options are found only where the link is redeemed, and other options never there: elsewhere the
            // passkey would be stored without using up the link (or replacing the passkeys a lost-device link replaces).
            record = try await findChallenge(
                challengeKey: challengeKey, signedChallenge: { () throws(WebAuthnError) in try credential.signedChallenge() },
                ceremony: endpoint.isAccountLink ? .accountLinkRegistration : .registration)
        }
        do throws(RelyingPartyError) {
            if !record.forExistingUser {
                // Only the public endpoints make accounts: append and link options are for an existing one.
                guard endpoint == .publicAPI else { throw RelyingPartyError.challengeInvalid }
                // Closing public registration also closes the ceremonies started before it closed.
                guard configuration.publicRegistration else { throw RelyingPartyError.registrationClosed }
            }
            let forContact = !record.acceptedContacts.isEmpty
            if !forContact {
                // The username sent with the response, when there is one, must be the one the options were made for: as
                // sent, or as the options keep a phone number (+ and its digits). For an anonymous account, clients that
                // echo the options' `user.name` send the name the server made (`anonymous-…`): that one is the options'.
                if let username = try UsernameRules.normalized(rawUsername), !UsernameKey.same(username, record.username),
                    !UsernameKey.same(ContactIdentifier.phoneNumber(username) ?? username, record.username),
                    !(record.username == nil && record.userHandle.map { GeneratedUsername.isGenerated(username, userHandle: $0) } == true)
                {
                    throw RelyingPartyError(.usernameMismatch, "The username is not the one these options were created for.")
                }
            }
            guard let userID = record.userID, let userHandle = record.userHandle else { throw RelyingPartyError.challengeInvalid }
            // An account disabled since its options were made: a disable spends the account's pending ceremonies, and the
            // registration's transaction refuses one that raced it (`StorageError.accountDisabled`, below).
            let verified: VerifiedRegistration
            do {
                // WebAuthn L3 §7.1 step 14: a conditional create has no prompt, so neither presence nor verification.
                verified = try relyingParty.verifyRegistration(
                    credential, expectedChallenge: record.challenge, requireUserPresence: !record.conditional,
                    requireUserVerification: record.conditional ? false : nil, validationTime: now())
            } catch {
                throw RelyingPartyError(error)
            }
            // Account creation: the sheet's contact names the account, under every username rule; checked once the
            // response itself verified, so a response for other options says so first.
            // An anonymous account is named by the name its passkey carries (``GeneratedUsername``), which finds it like any.
            let accountName =
                forContact
                ? try ContactIdentifier.username(rawUsername, accepting: record.acceptedContacts)
                : record.username ?? GeneratedUsername.make(userHandle: userHandle)
            let displayName =
                forContact
                ? DisplayName.sanitized(rawDisplayName, fallback: record.displayName ?? accountName)
                : record.displayName ?? record.username ?? "Anonymous"
            let time = now()
            let user = UserRecord(
                id: userID, userHandle: userHandle, username: accountName, displayName: displayName, isAnonymous: !forContact && record.username == nil,
                createdAt: record.createdAt, lastSignInAt: nil)
            let entry = CredentialRecordEntry(verified, userID: userID, createdAt: time)
            // One transaction consumes the challenge and stores the account and credential: of concurrent completions of
            // one ceremony exactly one writes. A link's redemption consumes the link in it too.
            var replaced: [[UInt8]] = []
            do {
                if case .accountLink(let tokenHash, let replacing) = endpoint {
                    replaced = try await repository.redeemAccountToken(
                        hash: tokenHash, registering: entry, for: user, consumingChallenge: record.key, replacingOtherPasskeys: replacing, now: time)
                } else if sealed != nil {
                    try await repository.register(entry, for: user, spendingChallenge: record.key, expiresAt: record.expiresAt, now: time)
                } else {
                    try await repository.register(entry, for: user, consumingChallenge: record.key, now: time)
                }
            } catch {
                switch error.code {
                case .challengeConsumed: throw RelyingPartyError.challengeInvalid
                case .notFound where endpoint.isAccountLink: throw RelyingPartyError.accountLinkInvalid
                case .notFound: throw RelyingPartyError.accountDeleted(error)
                default: throw RelyingPartyError(error)
                }
            }
            // A passkey added to an existing account: the answer describes the account as stored (its creation time,
            // whether it is anonymous), not as the challenge sketched it.
            if record.forExistingUser, let stored = try? await repository.user(id: userID) {
                return CompletedRegistration(user: stored, credential: entry, replacedCredentialIDs: replaced, addedToExistingAccount: true)
            }
            return CompletedRegistration(user: user, credential: entry, replacedCredentialIDs: replaced, addedToExistingAccount: record.forExistingUser)
        } catch {
            if sealed != nil {
                _ = try? await repository.spendChallenge(key: record.key, expiresAt: record.expiresAt, now: now())
            } else {
                await burn(record)
            }
            throw error
        }
    }

    /// The ceremony a new account's sealed challenge (``SealedRegistrationChallenge``) carries, as verification reads
    /// it: the `challengeKey` when the client sent one, otherwise the challenge in the signed client data. Nil when it
    /// is not one (then storage is asked).
    func openSealedRegistration(challengeKey: String?, credential: RegistrationResponseJSON) async throws(RelyingPartyError)
        -> ChallengeRecord?
    {
        let value: String
        if let challengeKey, !challengeKey.isEmpty {
            value = challengeKey
        } else if let signed = try? credential.signedChallenge() {
            value = signed
        } else {
            return nil
        }
        let key: SymmetricKey
        do { key = try await secrets.key(CeremonySecrets.challengeSealKey, in: repository) } catch { throw RelyingPartyError(error) }
        return SealedRegistrationChallenge.open(value, key: key)?.record(challenge: value, key: key)
    }

    // MARK: Authentication

    /// Options for a sign-in. With a username: its credentials in `allowCredentials` — or, for an unknown username or
    /// an account without passkeys, deterministic fake ones, so the answer does not reveal whether the account exists
    /// (WebAuthn L3 §14.6.2).
    /// Without: empty `allowCredentials` for discoverable sign-in and AutoFill.
    public func authenticationOptions(username rawUsername: String?) async throws(RelyingPartyError)
        -> (options: PublicKeyCredentialRequestOptionsJSON, challengeKey: String)
    {
        let username = try UsernameRules.normalized(rawUsername)
        var allowed: [CredentialRecord] = []
        var userID: String?
        if let username {
            do {
                // The account and its passkeys in one round trip to storage.
                var found = try await repository.signInAccount(username: username)
                // A phone number finds its account however it is spaced (new accounts keep + and the digits).
                if found == nil, let phone = ContactIdentifier.phoneNumber(username), phone != username {
                    found = try await repository.signInAccount(username: phone)
                }
                if let account = found {
                    userID = account.user.id
                    allowed = account.credentials.map(Self.coreRecord)
                }
                // An account without passkeys (the connect flow makes them; deleting the last passkey leaves one) gets
                // the fake list an unknown name gets: an empty list would tell the two apart.
                if allowed.isEmpty { allowed = try await fakeCredentials(for: username) }
            } catch { throw RelyingPartyError(error) }
        }
        // Options for a name carry its account's tag, or random bytes in its place when it has none (``SealedChallenge``).
        let account: SealedChallenge.Account = if let userID { .named(userID: userID) } else if username != nil { .unknown } else { .any }
        let (challenge, key) = try await sealedChallenge(for: account)
        var options = relyingParty.makeAuthenticationOptions(
            allowCredentials: allowed, timeoutMilliseconds: Int(configuration.challengeTTL * 1000), challenge: challenge, random: random)
        if username == nil { options.allowCredentials = [] }
        return (options, key)
    }

    /// A sealed challenge (``SealedChallenge``) for sign-in options: nothing is stored until the sign-in is verified.
    /// Returns it (base64url) and its key (its nonce), which the options give as `challengeKey`.
    func sealedChallenge(for account: SealedChallenge.Account) async throws(RelyingPartyError) -> (challenge: String, key: String) {
        let key: SymmetricKey
        do { key = try await secrets.key(CeremonySecrets.challengeSealKey, in: repository) } catch { throw RelyingPartyError(error) }
        let time = now()
        let tag: [UInt8]? = switch account {
        case .any: nil
        case .named(let userID): SealedChallenge.accountTag(userID: userID, key: key)
        case .unknown: random.bytes(SealedChallenge.accountTagLength)
        }
        let sealed = SealedChallenge(
            issuedAt: time, expiresAt: time.addingTimeInterval(configuration.challengeTTL), nonce: random.bytes(SealedChallenge.nonceLength),
            accountTag: tag)
        return (sealed.sealed(key: key), sealed.key)
    }

    /// One to three credential IDs derived from the username with a server secret: stable for a given name, unlinkable
    /// to real ones, so probing usernames learns nothing. They take the shapes real entries take, so that no one shape
    /// marks an answer as fake: IDs of the lengths common authenticators use (iCloud Keychain 20 bytes, Google Password
    /// Manager and many security keys 16 or 32, others 64), transports as browsers report them (`getTransports()`
    /// returns them sorted) or none (passkeys registered by clients that did not report them), and one passkey most
    /// often, sometimes two or three. An account with a shape outside these (more passkeys, an unusual ID length) can
    /// still be told from a fake; with public registration open, `username_taken` tells it anyway.
    public func fakeCredentials(for username: String) async throws(StorageError) -> [CredentialRecord] {
        let key = try await secrets.key(CeremonySecrets.fakeCredentialKey, in: repository)
        let mac = Array(HMAC<SHA256>.authenticationCode(for: Array(UsernameKey.of(username).utf8), using: key))
        // One passkey in 4 of 8 names, two in 3, three in 1.
        let count = [1, 1, 1, 1, 2, 2, 2, 3][Int(mac[0] & 7)]
        let lengths = [16, 20, 20, 32, 32, 64]
        let transportSets: [[AuthenticatorTransport]] = [[.hybrid, .internal], [.hybrid, .internal], [.internal], [.nfc, .usb], [.usb], []]
        return (0..<count).map { index in
            let seed = Array(HMAC<SHA256>.authenticationCode(for: mac + [UInt8(index)], using: key))
            let length = lengths[Int(seed[0]) % lengths.count]
            let transports = transportSets[Int(seed[1]) % transportSets.count]
            // The ID: 64 bytes drawn from the seed (two MACs of it), cut to the chosen length, its last bytes a tag.
            let pool = Array(HMAC<SHA256>.authenticationCode(for: seed + [1], using: key)) + Array(HMAC<SHA256>.authenticationCode(for: seed + [2], using: key))
            let body = Array(pool.prefix(length - Self.fakeTagLength))
            return CredentialRecord(id: body + Self.fakeTag(body, key: key), publicKey: [], signCount: 0, transports: transports)
        }
    }

    /// A made-up credential ID ends in a MAC of the rest under the server's secret, so that a sign-in naming one is
    /// recognised (``isFakeCredentialID(_:)``) and answered as a real passkey signed with a wrong key would be. 8 bytes:
    /// a real credential ID ends so by chance once in 2^64.
    static var fakeTagLength: Int { 8 }

    static func fakeTag(_ body: [UInt8], key: SymmetricKey) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array("fake-credential-tag".utf8) + body, using: key).prefix(fakeTagLength))
    }

    /// Whether `id` is one ``fakeCredentials(for:)`` made up.
    public func isFakeCredentialID(_ id: [UInt8]) async -> Bool {
        guard id.count > Self.fakeTagLength, let key = try? await secrets.key(CeremonySecrets.fakeCredentialKey, in: repository) else {
            return false
        }
        let body = Array(id.dropLast(Self.fakeTagLength))
        return constantTimeEqual(Array(id.suffix(Self.fakeTagLength)), Self.fakeTag(body, key: key))
    }

    /// Verifies a sign-in and records the new counter, backup state and last use.
    /// - Parameter expectedUsername: when the caller says who is signing in (the app-backend `/api` paths), the
    ///   passkey's account must have that username; checked before anything is recorded (`username_mismatch`).
    public func verifyAuthentication(_ credential: AuthenticationResponseJSON, challengeKey: String?, expectedUsername: String? = nil)
        async throws(RelyingPartyError) -> CompletedSignIn
    {
        // Client data that cannot be read names no ceremony: the answer says what is wrong with the response, not that
        // its challenge is unknown (which sends a client off to fetch new options for a defect they would repeat).
        let signedChallenge: String
        do { signedChallenge = try credential.signedChallenge() } catch { throw RelyingPartyError(error) }
        // A sealed challenge carries its ceremony: nothing stored to read for it.
        let sealed = try await openSealedChallenge(signedChallenge)
        // One read gathers the ceremony (a stored one), the credential and its owner.
        let credentialID: [UInt8]
        do { credentialID = try credential.credentialID() } catch {
            // A malformed response still burns the ceremony it names.
            if let sealed {
                _ = try? await repository.spendChallenge(key: sealed.opened.challenge.key, expiresAt: sealed.opened.challenge.expiresAt, now: now())
            } else if let challengeKey {
                _ = try? await repository.consumeChallenge(key: challengeKey, ceremony: .authentication, now: now())
            }
            throw RelyingPartyError(error)
        }
        let reference: ChallengeReference
        if let sealed {
            // A client that sends the options' challengeKey sends this ceremony's.
            if let challengeKey, !challengeKey.isEmpty, challengeKey != sealed.opened.challenge.key { throw RelyingPartyError.challengeInvalid }
            reference = .sealed(sealed.opened.challenge.record(challenge: sealed.value))
        } else if let challengeKey, !challengeKey.isEmpty {
            reference = .key(challengeKey)
        } else {
            reference = .value(signedChallenge)
        }
        let opened = sealed?.opened
        // Options for a name list made-up IDs when it has no account or no passkey: whether this is one, for the check
        // against what the options listed (a sealed challenge lists none).
        let madeUp = opened?.identified == true ? await isFakeCredentialID(credentialID) : false
        // The lookup, the checks and the write in one piece of storage work (one transaction on SQLite): the checks run
        // inside, and say what to write — the new counter, or only the challenge consumed when they fail.
        let relyingParty = relyingParty
        let now = now
        let outcome: SignInOutcome
        do {
            outcome = try await repository.completeSignIn(challenge: reference, credentialID: credentialID, now: now()) { lookup in
                Self.decideSignIn(
                    lookup, credential, credentialID: credentialID, sealed: opened, credentialIsMadeUp: madeUp, relyingParty: relyingParty,
                    expectedUsername: expectedUsername, now: now)
            }
        } catch {
            switch error.code {
            case .challengeConsumed: throw RelyingPartyError.challengeInvalid
            case .counterConflict: throw RelyingPartyError(WebAuthnError(.counterRegressed, "a concurrent sign-in already used this counter value"))
            default: throw RelyingPartyError(error)
            }
        }
        switch outcome {
        case .verified(let signIn):
            if signIn.counterRegressed { await reportCounterRegression(owner: signIn.user, credential: signIn.credential, accepted: true) }
            return signIn
        case .unknownCredential(let challenge, let identified):
            throw await unknownCredentialError(credential, credentialID: credentialID, challenge: challenge, identified: identified)
        case .counterRegressed(var error, let owner, let stored):
            await reportCounterRegression(owner: owner, credential: stored, accepted: false)
            error.accountID = owner.id
            error.accountUsername = owner.username
            throw error
        case .refused(let error): throw error
        }
    }

    /// The response's challenge `value` opened as a sealed one (``SealedChallenge``); nil when it is not one (a stored
    /// ceremony's, from options made before challenges were sealed, or anything else: then storage is asked).
    func openSealedChallenge(_ value: String) async throws(RelyingPartyError) -> (opened: SealedChallenge.Opened, value: String)? {
        let key: SymmetricKey
        do { key = try await secrets.key(CeremonySecrets.challengeSealKey, in: repository) } catch { throw RelyingPartyError(error) }
        guard let challenge = SealedChallenge.open(value, key: key) else { return nil }
        return (SealedChallenge.Opened(challenge: challenge, key: key), value)
    }

    /// A counter regression is written to the webhook outbox (`signin.counter_regressed`) before the answer, where the
    /// storage keeps one: no stored row reports it. Best effort: the sign-in's own outcome stands if this write fails.
    func reportCounterRegression(owner: UserRecord, credential: CredentialRecordEntry, accepted: Bool) async {
        guard let outbox = repository as? any WebhookRepository else { return }
        try? await outbox.enqueueWebhookMessage(
            WebhookMessageRecord(
                id: WebhookMessageRecord.newID(), type: WebhookEventType.signInCounterRegressed.rawValue, createdAt: now(), userID: owner.id,
                username: owner.username, displayName: owner.displayName, credentialID: credential.id, credentialName: credential.name,
                detail: accepted ? "accepted" : "refused"))
    }

    /// What a sign-in's checks concluded, inside its storage work.
    enum SignInOutcome: Sendable {
        /// `counterRegressed`: accepted under ``CounterPolicy/reportRegression`` although the counter did not increase.
        case verified(CompletedSignIn)
        /// The passkey is not stored: which answer fits needs another read
        /// (``unknownCredentialError(_:credentialID:challenge:identified:)``). `identified`: the options named an account.
        case unknownCredential(ChallengeRecord, identified: Bool)
        /// Refused because the signature counter did not increase (a possible clone): reported to webhooks.
        case counterRegressed(RelyingPartyError, owner: UserRecord, credential: CredentialRecordEntry)
        case refused(RelyingPartyError)
    }

    /// The checks of a sign-in against what storage holds (WebAuthn L3 §7.2, through ``RelyingParty``), and what to
    /// write: the new counter, backup state and last use when they pass; only the challenge consumed when they fail, so
    /// a refused ceremony cannot be retried.
    static func decideSignIn(
        _ lookup: SignInLookup, _ credential: AuthenticationResponseJSON, credentialID: [UInt8], sealed: SealedChallenge.Opened?,
        credentialIsMadeUp: Bool, relyingParty: RelyingParty, expectedUsername: String?,
        now: @Sendable () -> Date
    ) -> (write: SignInWrite, result: SignInOutcome) {
        guard let record = lookup.challenge else { return (.nothing, .refused(.challengeInvalid)) }
        let identified = record.userID != nil || sealed?.identified == true
        // Until the signature verified, no answer may depend on what is stored (whether the credential exists, whose
        // it is): otherwise anyone holding a credential ID, or the IDs the options for a username list, learns whether
        // that account exists. So a credential outside the options' allowCredentials is refused first, for what the
        // client was told (WebAuthn L3 §7.2 step 5), and the account checks come after the signature.
        if !record.allowedCredentialIDs.isEmpty, !record.allowedCredentialIDs.contains(where: { constantTimeEqual($0, credentialID) }) {
            return (.burn, .refused(RelyingPartyError(WebAuthnError(.credentialNotAllowed, "the credential is not among allowCredentials"))))
        }
        // A sealed challenge lists no IDs. Options for a name listed its account's passkeys, or made-up ones when it had
        // none: a stored passkey of another account, or an ID neither stored nor made up, is refused here as one outside
        // allowCredentials is. (A made-up ID goes on to the decoy, whichever name it was made for: the answer is the same
        // whether or not the name has an account.)
        if let sealed, sealed.identified {
            let listed = if let stored = lookup.credential { sealed.admits(userID: stored.userID) } else { credentialIsMadeUp }
            guard listed else {
                return (.burn, .refused(RelyingPartyError(WebAuthnError(.credentialNotAllowed, "the credential is not among allowCredentials"))))
            }
        }
        guard let stored = lookup.credential else { return (.burn, .unknownCredential(record, identified: identified)) }
        guard let owner = lookup.owner else {
            return (.burn, .refused(RelyingPartyError(.credentialUnknown, "This passkey's account no longer exists.")))
        }
        var coreRecord = coreRecord(stored)
        coreRecord.userHandle = owner.userHandle
        let verified: VerifiedAuthentication
        do {
            verified = try relyingParty.verifyAuthentication(
                credential, expectedChallenge: record.challenge, credential: coreRecord,
                expectedUser: identified ? .identified(userHandle: owner.userHandle) : .discoverable,
                allowedCredentialIDs: record.allowedCredentialIDs)
        } catch {
            if error.code == .counterRegressed { return (.burn, .counterRegressed(RelyingPartyError(error), owner: owner, credential: stored)) }
            return (.burn, .refused(RelyingPartyError(error)))
        }
        // Sign-in with a username: the credential must be the named user's.
        if let userID = record.userID, userID != stored.userID {
            return (.burn, .refused(RelyingPartyError(WebAuthnError(.credentialNotAllowed, "the credential belongs to another account"))))
        }
        if let expectedUsername, !UsernameKey.same(expectedUsername, owner.username) {
            return (.burn, .refused(RelyingPartyError(.usernameMismatch, "The passkey belongs to another account than the username sent.")))
        }
        // A disabled account: refused once the passkey proved itself, so that only its holder learns why. Nothing is
        // recorded (the counter stays), and the challenge is spent.
        if owner.isDisabled {
            return (.burn, .refused(.accountDisabled(owner)))
        }
        // Disabling an account spends its pending ceremonies; a sealed challenge has nothing stored to spend, so one
        // issued before the account's last disable is refused here: enabling the account again brings back nothing
        // made before.
        if sealed != nil, let revoked = owner.tokensRevokedAt, record.createdAt < revoked {
            return (.burn, .refused(.challengeInvalid))
        }
        let time = now()
        var updated = stored
        updated.signCount = verified.newSignCount
        updated.backupState = verified.backupState
        updated.lastUsedAt = time
        var user = owner
        user.lastSignInAt = time
        return (
            .record(expectedSignCount: stored.signCount, newSignCount: verified.newSignCount, backupState: verified.backupState, at: time),
            .verified(
                CompletedSignIn(
                    user: user, credential: updated, userVerified: verified.userVerified, externalUserID: lookup.externalUserID,
                    counterRegressed: verified.counterRegressed, accountCredentialIDs: lookup.ownerCredentialIDs))
        )
    }

    /// The answer for a credential that is not stored.
    ///
    /// - One the options for a username without an account made up (``isFakeCredentialID(_:)``): verified against a
    ///   decoy key, so it fails as a real account's passkey signed with a wrong key does (`signature_invalid`, or an
    ///   earlier failure of what the client sent), with the same work.
    /// - When the response names (by user handle) an account that still exists, the passkey was registered to it and
    ///   later deleted here while the device kept it: `passkey_deleted_on_server`, so the app can tell the person and the
    ///   device can forget the passkey. A user handle is 64 random bytes: it reveals nothing to someone who guesses.
    /// - Otherwise `credential_unknown`: a credential ID no options listed tells nothing about any account.
    func unknownCredentialError(
        _ credential: AuthenticationResponseJSON, credentialID: [UInt8], challenge: ChallengeRecord, identified: Bool
    ) async -> RelyingPartyError {
        if await isFakeCredentialID(credentialID) {
            let userHandle = (try? credential.userHandleBytes()) ?? nil
            do {
                _ = try relyingParty.verifyAuthentication(
                    credential, expectedChallenge: challenge.challenge, credential: decoy.record(for: credentialID, userHandle: userHandle),
                    expectedUser: identified ? .identified(userHandle: nil) : .discoverable,
                    allowedCredentialIDs: challenge.allowedCredentialIDs)
            } catch {
                // The client sees a real passkey's answer; the log says what it was.
                let answer = RelyingPartyError(error)
                return answer.withLogDetail("a credential ID made up for a username without an account: \(answer.logDetail ?? answer.code.rawValue)")
            }
            return RelyingPartyError(WebAuthnError(.signatureInvalid, "a made-up credential's response verified against the decoy key"))
        }
        var error: RelyingPartyError
        let ours: Bool
        if let encoded = credential.response.userHandle, let handle = Base64URL.decode(encoded), !handle.isEmpty,
            (try? await repository.user(userHandle: handle)) ?? nil != nil
        {
            error = RelyingPartyError(
                .passkeyDeletedOnServer, "This passkey was removed from your account. Sign in another way, then add a new passkey.")
            ours = true
        } else {
            error = RelyingPartyError(
                .credentialUnknown, "This passkey is not registered here (it may have been deleted). Use another passkey or sign in another way.")
            ours = false
        }
        // WebAuthn L3 §5.1.10: the client may tell the device to forget the passkey. Here no account holds the ID (the
        // lookup found none, and it is not a made-up one); it must also be a passkey for this server's RP ID, or a
        // response for another relying party (a misconfigured page) would delete passkeys that work elsewhere. A passkey
        // whose user handle names an account here was this server's; one naming none could be another server's on the
        // same RP ID, so it is signalled only while ``CeremonyConfiguration/signalUnknownCredentials`` says none exists.
        if ours || configuration.signalUnknownCredentials, let rpID = relyingParty.scopedRPID(of: credential) {
            error.unknownCredential = UnknownCredentialSignal(rpID: rpID, credentialID: credentialID)
        }
        return error
    }

    /// What a verified sign-in's client passes to the Signal API: the account's current passkeys and names. The passkeys
    /// come with the sign-in where storage read them in its transaction (a sign-in changes none); otherwise one read of
    /// the account's passkeys, after the sign-in was recorded.
    public func signals(after signIn: CompletedSignIn) async throws(RelyingPartyError) -> SignedInAccountSignals {
        if let ids = signIn.accountCredentialIDs {
            return SignedInAccountSignals(rpID: configuration.rpID, user: signIn.user, acceptedCredentialIDs: ids)
        }
        let credentials: [CredentialRecordEntry]
        do { credentials = try await repository.credentials(userID: signIn.user.id) } catch { throw RelyingPartyError(error) }
        return SignedInAccountSignals(rpID: configuration.rpID, user: signIn.user, acceptedCredentialIDs: credentials.map(\.id))
    }

    // MARK: Adding a passkey to an existing account

    /// Options to add a passkey to `user`: their credentials in `excludeCredentials`. With `replacing`, one of the user's
    /// credentials is removed in the transaction that stores the new one (reset), never before it verified. With
    /// `conditional`, the options are for conditional create (no prompt; presence and verification not required).
    /// With `excludingExisting` false, no passkey is excluded: a link that replaces them all lets any authenticator,
    /// one holding an old passkey included, make the new one. With `forAccountLink`, only the link's redemption
    /// (``RegistrationEndpoint/accountLink(tokenHash:replacingOtherPasskeys:)``) completes them.
    public func appendOptions(
        for user: UserRecord, replacing: [UInt8]? = nil, conditional: Bool = false, excludingExisting: Bool = true, forAccountLink: Bool = false
    ) async throws(RelyingPartyError)
        -> (options: PublicKeyCredentialCreationOptionsJSON, challengeKey: String)
    {
        guard !user.isDisabled else { throw RelyingPartyError.accountDisabled(user) }
        try await ensureCapacity()
        let existing: [CredentialRecordEntry]
        do { existing = try await repository.credentials(userID: user.id) } catch { throw RelyingPartyError(error) }
        if let replacing, !existing.contains(where: { $0.id == replacing }) {
            throw RelyingPartyError(.passkeyNotFound, "The passkey to replace does not belong to this account.")
        }
        let time = now()
        // The passkey being replaced is not excluded: the authenticator that holds it overwrites it (same RP ID and
        // user handle), which is what a reset wants.
        let excluded = excludingExisting ? existing.filter { $0.id != replacing }.map(Self.coreRecord) : []
        let options = relyingParty.makeRegistrationOptions(
            userHandle: user.userHandle, userName: Self.userEntityName(username: user.username, userHandle: user.userHandle), displayName: user.displayName,
            excludeCredentials: excluded, attestation: configuration.attestation,
            timeoutMilliseconds: Int(configuration.challengeTTL * 1000), random: random)
        let key = newChallengeKey()
        let record = ChallengeRecord(
            key: key, challenge: options.challenge, ceremony: forAccountLink ? .accountLinkRegistration : .registration, userID: user.id,
            username: user.username, displayName: user.displayName, userHandle: user.userHandle, replacesCredentialID: replacing, conditional: conditional,
            forExistingUser: true, createdAt: time,
            expiresAt: time.addingTimeInterval(configuration.challengeTTL))
        do { try await repository.saveChallenge(record) } catch { throw RelyingPartyError(error) }
        return (options, key)
    }

    /// Options to sign in as `user` (their passkeys in `allowCredentials`).
    public func authenticationOptions(for user: UserRecord) async throws(RelyingPartyError)
        -> (options: PublicKeyCredentialRequestOptionsJSON, challengeKey: String)
    {
        let allowed: [CredentialRecord]
        do { allowed = try await repository.credentials(userID: user.id).map(Self.coreRecord) } catch { throw RelyingPartyError(error) }
        // Empty allowCredentials would let the person pick any passkey for the RP, and every pick would then fail
        // (credential_not_allowed): say at once that there is nothing to confirm with.
        guard !allowed.isEmpty else {
            throw RelyingPartyError(.passkeyNotFound, "This account has no passkey to confirm with.")
        }
        let (challenge, key) = try await sealedChallenge(for: .named(userID: user.id))
        let options = relyingParty.makeAuthenticationOptions(
            allowCredentials: allowed, timeoutMilliseconds: Int(configuration.challengeTTL * 1000), challenge: challenge, random: random)
        return (options, key)
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
