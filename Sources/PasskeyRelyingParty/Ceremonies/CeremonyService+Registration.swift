import Foundation
import PasskeyCore
public import PasskeyStorage
public import PasskeyWire
import Crypto

/// Registration: options for a new account (sealed, nothing stored) and their verification, which stores the account
/// and its passkey in the transaction that spends the challenge.
extension CeremonyService {
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
        let (record, sealed) = try await registrationChallenge(challengeKey: challengeKey, credential: credential, at: endpoint)
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
            let replaced = try await store(entry, for: user, spending: record, sealed: sealed, at: endpoint, now: time)
            // A passkey added to an existing account: the answer describes the account as stored (its creation time,
            // whether it is anonymous), not as the challenge sketched it.
            if record.forExistingUser, let stored = try? await repository.user(id: userID) {
                return CompletedRegistration(user: stored, credential: entry, replacedCredentialIDs: replaced, addedToExistingAccount: true)
            }
            return CompletedRegistration(user: user, credential: entry, replacedCredentialIDs: replaced, addedToExistingAccount: record.forExistingUser)
        } catch {
            if sealed {
                _ = try? await repository.spendChallenge(key: record.key, expiresAt: record.expiresAt, now: now())
            } else {
                await burn(record)
            }
            throw error
        }
    }

    /// The registration's ceremony, and whether it was sealed. A new account's options seal their ceremony in the
    /// challenge (refused here when it expired or was spent, before any check costs more than this read; the write that
    /// records the account is what enforces single use); other options are stored, and a link's are found only where
    /// the link is redeemed, and other options never there: elsewhere the passkey would be stored without using up the
    /// link (or replacing the passkeys a lost-device link replaces).
    func registrationChallenge(challengeKey: String?, credential: RegistrationResponseJSON, at endpoint: RegistrationEndpoint)
        async throws(RelyingPartyError) -> (record: ChallengeRecord, sealed: Bool)
    {
        if let sealed = try await openSealedRegistration(challengeKey: challengeKey, credential: credential) {
            guard sealed.expiresAt > now() else { throw RelyingPartyError.challengeInvalid }
            let spent: Bool
            do { spent = try await repository.isChallengeSpent(key: sealed.key, expiresAt: sealed.expiresAt) } catch { throw RelyingPartyError(error) }
            guard !spent else { throw RelyingPartyError.challengeInvalid }
            return (sealed, true)
        }
        let record = try await findChallenge(
            challengeKey: challengeKey, signedChallenge: { () throws(WebAuthnError) in try credential.signedChallenge() },
            ceremony: endpoint.isAccountLink ? .accountLinkRegistration : .registration)
        return (record, false)
    }

    /// One transaction spends the challenge and stores the account and credential: of concurrent completions of one
    /// ceremony exactly one writes. A link's redemption uses up the link in it too, and returns the passkeys it replaced.
    func store(
        _ entry: CredentialRecordEntry, for user: UserRecord, spending record: ChallengeRecord, sealed: Bool, at endpoint: RegistrationEndpoint,
        now time: Date
    ) async throws(RelyingPartyError) -> [[UInt8]] {
        do {
            if case .accountLink(let tokenHash, let replacing) = endpoint {
                return try await repository.redeemAccountToken(
                    hash: tokenHash, registering: entry, for: user, consumingChallenge: record.key, replacingOtherPasskeys: replacing, now: time)
            }
            try await repository.register(entry, for: user, spending: ChallengeSpend(record, sealed: sealed), now: time)
            return []
        } catch {
            switch error.code {
            case .challengeConsumed: throw RelyingPartyError.challengeInvalid
            case .notFound where endpoint.isAccountLink: throw RelyingPartyError.accountLinkInvalid
            case .notFound: throw RelyingPartyError.accountDeleted(error)
            default: throw RelyingPartyError(error)
            }
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
}
