import Foundation
import PasskeyCore
import PasskeyStorage
public import PasskeyWire
import Crypto

/// Sign-in: options (sealed, nothing stored), verification, the decision made on what storage read, and the signals a
/// verified sign-in passes to the client.
extension CeremonyService {
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
        if let refusal = refusalAfterSignature(stored, owner: owner, record: record, sealed: sealed, relyingParty: relyingParty) {
            return (.burn, .refused(refusal))
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

    /// What refuses a sign-in whose passkey proved itself: its model reported compromised, its account disabled, or a
    /// sealed challenge issued before the account's last disable. Checked only after the signature, so that only the
    /// passkey's holder learns why; nothing is recorded (the counter stays), and the challenge is spent.
    static func refusalAfterSignature(
        _ stored: CredentialRecordEntry, owner: UserRecord, record: ChallengeRecord, sealed: SealedChallenge.Opened?, relyingParty: RelyingParty
    ) -> RelyingPartyError? {
        // A passkey of a model whose keys the FIDO Metadata Service reported extractable since it was registered.
        let keyCompromised = relyingParty.policy.attestation.keyCompromisedAAGUIDs
        if !keyCompromised.isEmpty, let model = AAGUID(stored.aaguid), keyCompromised.contains(model) {
            return RelyingPartyError(
                WebAuthnError(
                    .authenticatorCompromised, "the FIDO Metadata Service reports that the keys of the passkey's authenticator model \(model) can be extracted",
                    received: model.description))
        }
        if owner.isDisabled { return .accountDisabled(owner) }
        // Disabling an account spends its pending ceremonies; a sealed challenge has nothing stored to spend, so one
        // issued before the account's last disable is refused here: enabling the account again brings back nothing
        // made before.
        if sealed != nil, let revoked = owner.tokensRevokedAt, record.createdAt < revoked { return .challengeInvalid }
        return nil
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
}
