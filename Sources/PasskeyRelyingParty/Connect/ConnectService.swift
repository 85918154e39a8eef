public import Foundation
import PasskeyCore
public import PasskeyStorage
public import PasskeyWire

/// The connect API, HTTP-free: API-key calls of the app's backend (connect tokens, verifying `signedPasskeyData`,
/// managing a user's passkeys) and the connect-token calls of the app (append, list, rename, delete, decisions).
public struct ConnectService<Repository: PasskeyRepository>: Sendable {
    public let ceremonies: CeremonyService<Repository>
    public let issuer: TokenIssuer<Repository>
    /// Tokens, rollout and decisions (``ServerConfiguration/connect``).
    public let settings: ConnectConfiguration

    public init(ceremonies: CeremonyService<Repository>, issuer: TokenIssuer<Repository>, settings: ConnectConfiguration) {
        self.ceremonies = ceremonies
        self.issuer = issuer
        self.settings = settings
    }

    public var repository: Repository { ceremonies.repository }
    public func now() -> Date { ceremonies.now() }

    // MARK: Backend authentication

    /// The API key in `Authorization: Bearer pks_…`. Missing → 401 `api_key_missing`; unknown → 401 `api_key_invalid`;
    /// revoked → 401 `api_key_revoked`.
    public func authenticateBackend(_ authorization: String?) async throws(RelyingPartyError) -> APIKeyRecord {
        guard let secret = BearerSecrets.bearer(authorization) else {
            throw RelyingPartyError(.apiKeyMissing, "Send the backend's API key as Authorization: Bearer <key>.")
        }
        let key: APIKeyRecord?
        do { key = try await repository.apiKey(secretHash: BearerSecrets.hash(secret)) } catch { throw RelyingPartyError(error) }
        guard let key else { throw RelyingPartyError(.apiKeyInvalid, "The API key is not known to this server.") }
        guard key.revokedAt == nil else { throw RelyingPartyError(.apiKeyRevoked, "The API key was revoked.") }
        try? await repository.touchAPIKey(id: key.id, at: now())
        return key
    }

    // MARK: Connect tokens

    /// Whether `id` can be stored and compared exactly as sent (see ``mintToken(type:externalID:name:displayName:)``):
    /// nothing at either end that a backend may have added or dropped without meaning to (white space, invisible
    /// characters), and nothing that breaks a line in the dashboard or a log (``DisplayText``). Inside the id, joiners
    /// and variation selectors stay allowed: Persian and Indic names and emoji need them, and ids are compared as sent.
    public static func isExactUserID(_ id: String) -> Bool {
        guard let first = id.first, let last = id.last, DisplayText.isSafe(id) else { return false }
        // By character, not scalar: "❤️" ends in a variation selector yet shows.
        func blank(_ character: Character) -> Bool { character.unicodeScalars.allSatisfy(DisplayText.isBlank) }
        return !blank(first) && !blank(last)
    }

    /// Mints a connect token for the app's user `externalID`, linking (for append and list, creating) our account.
    /// `apiKey`: the key that asked for it, recorded with the token so that revoking the key deletes it.
    public func mintToken(type: ConnectTokenType, externalID: String, name: String?, displayName: String?, apiKey: APIKeyRecord) async throws(RelyingPartyError)
        -> (token: String, expiresAt: Date, user: UserRecord)
    {
        guard ConnectTokenType.all.contains(type) else {
            throw RelyingPartyError(.tokenTypeInvalid, "type must be passkey-append, passkey-list, passkey-delete or passkey-login.")
        }
        // The id is the app's key for its user and is taken exactly as sent: never trimmed or otherwise changed, since
        // "id" and "id\u{A0}" may be two users of the app, and mapping one onto the other would hand one user's passkey
        // account to the other. So an id that a backend may have padded without meaning to is refused: white space or an
        // invisible character at either end; and, because the id shows in the dashboard and in logs, control characters,
        // line breaks and direction overrides anywhere.
        guard !externalID.isEmpty, externalID.count <= 256, externalID.utf8.count <= 1_024, Self.isExactUserID(externalID) else {
            throw RelyingPartyError(
                .userIDInvalid,
                "user.id is the app's own user id, taken exactly as sent: 1 to 256 characters (at most 1024 UTF-8 bytes), no white space or invisible character at either end, no control or direction-changing characters.")
        }
        let time = now()
        let user: UserRecord
        do {
            // Append and list tokens link the app's user on first use (a new user has an empty list and may add one);
            // delete and login tokens need an account that exists.
            if type == .passkeyAppend || type == .passkeyList {
                // A name of the server's shape (``GeneratedUsername``) is taken as none: a backend that echoes the name an
                // unnamed account answered with, or whose users are called so, gets its token, and the account keeps
                // the name it has.
                let username = try UsernameRules.normalized(name).flatMap { GeneratedUsername.isReserved($0) ? nil : $0 }
                // A name new to the account (made now, or the app's new name for it) meets a new account's rules, as at
                // public registration: nobody can mistake it for another's, and it is not invisible. A name the account
                // already has is not checked again, so a token for it is still minted.
                if let username {
                    do { _ = try UsernameRules.normalized(username, newAccount: true) } catch {
                        if try await repository.user(externalID: externalID)?.username != username { throw error }
                    }
                }
                // Without the app's name the account gets the server's (``GeneratedUsername``), which its passkeys carry.
                let handle = RelyingParty.makeUserHandle(random: ceremonies.random)
                let candidate = UserRecord(
                    userHandle: handle, username: username ?? GeneratedUsername.make(userHandle: handle),
                    displayName: DisplayName.sanitized(displayName, fallback: username ?? Self.unnamedDisplayName),
                    isAnonymous: false, createdAt: time)
                let linked = try await repository.linkedUser(externalID: externalID, orCreate: candidate)
                // Refused before the names follow the app's: a disabled account changes in nothing.
                guard !linked.isDisabled else { throw RelyingPartyError.accountDisabled(linked) }
                user = linked.id == candidate.id ? linked : try await followNames(of: linked, username: username, displayName: displayName)
            } else {
                guard let linked = try await repository.user(externalID: externalID) else {
                    throw RelyingPartyError(.userNotFound, "No passkey account is linked to this user id yet.")
                }
                user = linked
            }
        } catch {
            throw RelyingPartyError(mapping: error)
        }
        // Nothing the app's user does with a token is allowed on a disabled account; the backend hears it here.
        guard !user.isDisabled else { throw RelyingPartyError.accountDisabled(user) }
        let token = BearerSecrets.make(prefix: BearerSecrets.connectTokenPrefix, random: ceremonies.random)
        let expiresAt = time.addingTimeInterval(settings.connectTokenLifetime)
        let record = ConnectTokenRecord(
            hash: BearerSecrets.hash(token), type: type.rawValue, userID: user.id, singleUse: type.isSingleUse, createdAt: time,
            expiresAt: expiresAt, apiKeyID: apiKey.id)
        do { try await repository.saveConnectToken(record) } catch { throw RelyingPartyError(error) }
        // The key was checked when the request arrived; a revocation since then deleted the tokens that existed, not
        // this one if it was saved after. Checked again now that it is saved: a revoked key mints nothing usable.
        let current: APIKeyRecord?
        do { current = try await repository.apiKey(secretHash: apiKey.secretHash) } catch { throw RelyingPartyError(error) }
        guard let current, current.revokedAt == nil else {
            _ = try? await repository.consumeConnectToken(hash: record.hash, now: time)
            throw RelyingPartyError(.apiKeyRevoked, "The API key was revoked.")
        }
        return (token, expiresAt, user)
    }

    /// The display name of an account linked without a name or display name.
    public static var unnamedDisplayName: String { "Passkey user" }

    /// An account linked before takes the names its app user has now, from the token request: the app owns its
    /// users' names, and an account first linked without one (a list token) or before a change of e-mail address
    /// had offered the old name in every passkey sheet since.
    ///
    /// A display name not given follows the new name when it was the old fallback (the old name, or "Passkey user").
    /// A name that is now another account's is not taken: the account keeps its name, and the token is still minted,
    /// since neither managing passkeys nor adding one depends on it.
    private func followNames(of user: UserRecord, username: String?, displayName: String?) async throws(StorageError) -> UserRecord {
        let fallback = user.displayName == Self.unnamedDisplayName || user.displayName == user.username
        let newDisplayName = displayName.map { DisplayName.sanitized($0, fallback: username ?? user.displayName) }
            ?? (fallback ? username : nil)
        let rename = username.flatMap { $0 == user.username ? nil : $0 }
        let redisplay = newDisplayName.flatMap { $0 == user.displayName ? nil : $0 }
        guard rename != nil || redisplay != nil else { return user }
        do {
            return try await repository.updateNames(userID: user.id, username: rename, displayName: redisplay)
        } catch let error where error.code == .usernameTaken {
            // The name stays; a display name the request gave still applies.
            guard displayName != nil, let redisplay else { return user }
            return try await repository.updateNames(userID: user.id, username: nil, displayName: redisplay)
        }
    }

    /// The user a connect token acts for. Unknown, expired or used → 401 `connect_token_invalid`; another type → 403
    /// `connect_token_wrong_type` (the token is not consumed then). Single-use tokens are consumed when `consume`.
    public func authorize(_ authorization: String?, _ type: ConnectTokenType, consume: Bool) async throws(RelyingPartyError) -> UserRecord {
        try await authorize(authorization, anyOf: [type], consume: consume)
    }

    /// ``authorize(_:_:consume:)`` for a step that tokens of several types authorize: a read of the account's own
    /// passkeys (the append decision) is within what a list token and an append token each allow.
    public func authorize(_ authorization: String?, anyOf types: [ConnectTokenType], consume: Bool) async throws(RelyingPartyError) -> UserRecord {
        try await authorizeNamingType(authorization, anyOf: types, consume: consume).user
    }

    /// ``authorize(_:anyOf:consume:)``, with the type of the token that authorized: an answer that more than one type
    /// authorizes says which, so an SDK that asked its app for one kind sees when it got another.
    public func authorizeNamingType(_ authorization: String?, anyOf types: [ConnectTokenType], consume: Bool) async throws(RelyingPartyError)
        -> (user: UserRecord, type: ConnectTokenType)
    {
        guard let token = BearerSecrets.bearer(authorization) else { throw Self.tokenMissing }
        let hash = BearerSecrets.hash(token)
        let time = now()
        do {
            guard let record = try await repository.connectToken(hash: hash, now: time) else { throw Self.tokenInvalid }
            guard types.contains(where: { $0.rawValue == record.type }) else {
                let wanted = types.map(\.rawValue).joined(separator: " or ")
                throw RelyingPartyError(.connectTokenWrongType, "This connect token is for \(record.type), not \(wanted).")
            }
            if consume && record.singleUse {
                guard try await repository.consumeConnectToken(hash: hash, now: time) != nil else { throw Self.tokenInvalid }
            }
            guard let user = try await repository.user(id: record.userID) else { throw Self.tokenInvalid }
            // Disabling deletes the account's tokens; one minted while the disable committed can still arrive here.
            guard !user.isDisabled else { throw RelyingPartyError.accountDisabled(user) }
            return (user, ConnectTokenType(rawValue: record.type))
        } catch {
            throw RelyingPartyError(mapping: error)
        }
    }

    /// Refuses a request that carries no connect token, before its input is read: routes that check their input before
    /// they use up a single-use token (so a malformed request does not spend it) still answer an anonymous caller
    /// `401 connect_token_missing` first, as every other connect route does.
    public static func requireToken(_ authorization: String?) throws(RelyingPartyError) {
        guard BearerSecrets.bearer(authorization) != nil else { throw tokenMissing }
    }

    static var tokenMissing: RelyingPartyError {
        RelyingPartyError(.connectTokenMissing, "Send a connect token as Authorization: Bearer <token>.")
    }

    public static var tokenInvalid: RelyingPartyError {
        RelyingPartyError(.connectTokenInvalid, "The connect token is unknown, expired or already used. Ask the backend for a new one.")
    }

    // MARK: signedPasskeyData

    /// A token for a passkey added to an account: it names the app's user the account is linked to.
    public func signedData(_ registration: CompletedRegistration) async throws(RelyingPartyError) -> String {
        let externalID: String?
        do { externalID = try await repository.externalID(userID: registration.user.id) } catch { throw RelyingPartyError(error) }
        return try await issuer.sign(SignedPasskeySubject(registration, externalUserID: externalID)).token
    }

    /// `POST /connect/verify`: checks a token once and says whom it proves.
    public func verifySignedData(_ token: String) async throws(RelyingPartyError) -> SignedPasskeyClaims {
        // Used up only once it is accepted: a token refused for the account's state (deleted, disabled, revoked, its
        // passkey deleted) keeps that answer, rather than reading as a replay the second time it is checked.
        let claims = try await issuer.verify(token, consume: false)
        // A token for an account or passkey deleted since it was issued proves nothing any more.
        do {
            guard let user = try await repository.user(id: claims.sub) else {
                throw RelyingPartyError(.userNotFound, "The account this token names was deleted.")
            }
            // Disabled since the sign-in: the token no longer admits anyone.
            guard !user.isDisabled else { throw RelyingPartyError.accountDisabled(user) }
            // A sign-in from before the account's last disable does not count once it is enabled again (iat is in whole
            // seconds: a token of the disable's own second is refused too).
            if let revoked = user.tokensRevokedAt, Double(claims.iat) <= revoked.timeIntervalSince1970 {
                throw RelyingPartyError(
                    .tokenRevoked, "This sign-in happened before the account was disabled; it no longer counts. Sign in again.")
            }
            if let id = Base64URL.decode(claims.credentialID), try await repository.credential(id: id) == nil {
                throw RelyingPartyError(.passkeyDeletedOnServer, "The passkey this token names was deleted.")
            }
        } catch {
            throw RelyingPartyError(mapping: error)
        }
        try await issuer.consume(claims)
        return claims
    }

    // MARK: Backend management

    /// A user named in a backend URL: by the app's own id (`externalUserId`, what the app passed when it minted tokens)
    /// or by ours (`userId`, the tokens' `sub`).
    ///
    /// `by` says which (`?by=externalUserId` or `?by=userId`). Without it, the id may be either, as long as that names
    /// one account: an id that is one account's app user id and another account's own id is 409 `user_id_ambiguous`,
    /// never a guess. Before, the app's id won, so an app user whose id the app let someone choose (a username, say)
    /// could shadow another account, and a delete meant for that account removed the wrong one.
    public func backendUser(_ id: String, by: String?) async throws(RelyingPartyError) -> UserRecord {
        guard by == nil || by == "externalUserId" || by == "userId" else {
            throw RelyingPartyError(.fieldInvalid, "by must be externalUserId or userId, not \(RelyingPartyError.clipped(by ?? "")).")
        }
        let byExternal: UserRecord?
        let byOwn: UserRecord?
        do {
            byExternal = by == "userId" ? nil : try await repository.user(externalID: id)
            byOwn = by == "externalUserId" ? nil : try await repository.user(id: id)
        } catch { throw RelyingPartyError(error) }
        switch (byExternal, byOwn) {
        case (let external?, let own?) where external.id != own.id:
            throw RelyingPartyError(
                .userIDAmbiguous,
                "This id is one account's externalUserId and another account's userId: say which with ?by=externalUserId or ?by=userId.")
        case (let user?, _), (nil, let user?):
            return user
        case (nil, nil):
            throw RelyingPartyError(.userNotFound, "No such user.")
        }
    }

    /// The account's passkeys, and, when the app described the device (`client`), whether to offer adding one there
    /// (as the append decision decides): what a management screen shows after a change, in the change's own answer, so
    /// the app needs no second token (a delete or append token is used up).
    public func passkeyList(of user: UserRecord, client: ClientReport? = nil, lastDeclinedAt: Date? = nil) async throws(RelyingPartyError)
        -> PasskeyList
    {
        let credentials: [CredentialRecordEntry]
        do { credentials = try await repository.credentials(userID: user.id) } catch { throw RelyingPartyError(error) }
        var append: RolloutPolicy.Decision?
        if let client {
            let usable = credentials.contains { PasskeyListing.isUsable($0, on: client.platform) }
            append = settings.rollout.appendDecision(
                client: client, userID: user.id, hasUsablePasskey: usable, lastDeclinedAt: lastDeclinedAt, now: now())
        }
        return PasskeyList(user: user, credentials: credentials, append: append)
    }

    public func credentialID(_ encoded: String?) throws(RelyingPartyError) -> [UInt8] {
        guard let encoded, let id = Base64URL.decode(encoded), !id.isEmpty, id.count <= 1023 else {
            throw RelyingPartyError(.credentialIDInvalid, "The passkey id is not base64url.")
        }
        return id
    }

    // MARK: Decisions

    /// Whether to offer this device a passkey now, and how many passkeys the account has.
    public func appendDecision(user: UserRecord, client: ClientReport, lastDeclinedAt: Date?) async throws(RelyingPartyError)
        -> (decision: RolloutPolicy.Decision, passkeys: Int)
    {
        let credentials: [CredentialRecordEntry]
        do { credentials = try await repository.credentials(userID: user.id) } catch { throw RelyingPartyError(error) }
        let usable = credentials.contains { PasskeyListing.isUsable($0, on: client.platform) }
        let decision = settings.rollout.appendDecision(
            client: client, userID: user.id, hasUsablePasskey: usable, lastDeclinedAt: lastDeclinedAt, now: now())
        return (decision, credentials.count)
    }

    /// Login decision; `one-tap` names the account as it spells its name, `text-field` with conditional mediation
    /// carries fresh options for AutoFill.
    public func loginDecision(client: ClientReport, identifier: String?, recentFailures: Int) async throws(RelyingPartyError)
        -> LoginDecision
    {
        var known: (userID: String, passkeys: Int)?
        let username = try UsernameRules.normalized(identifier)
        // The account's own spelling of its name, for one-tap: the device keeps what the server answers, not what was
        // typed ("ANN@example.com" finds "ann@example.com").
        var storedName: String?
        if let username {
            do {
                if let user = try await repository.user(username: username) {
                    known = (user.id, try await repository.credentials(userID: user.id).count)
                    storedName = user.username
                }
            } catch { throw RelyingPartyError(error) }
        }
        let decision = settings.rollout.loginDecision(client: client, recentFailures: recentFailures, knownUser: known)
        var made = LoginDecision(decision: decision)
        if decision.step == "one-tap" { made.identifier = storedName ?? username }
        if decision.step == "text-field" && client.conditionalMediation {
            made.options = try await ceremonies.authenticationOptions(username: nil)
        }
        return made
    }
}

/// An account's passkeys, and the append decision for the device the app described.
public struct PasskeyList: Sendable {
    public let user: UserRecord
    public let credentials: [CredentialRecordEntry]
    public let append: RolloutPolicy.Decision?
}

/// The login decision, with what it hands the app: the account's own spelling of its name (`one-tap`), or options for
/// AutoFill (`text-field` on a device with conditional mediation).
public struct LoginDecision: Sendable {
    public let decision: RolloutPolicy.Decision
    public var identifier: String?
    public var options: (options: PublicKeyCredentialRequestOptionsJSON, challengeKey: String)?
}
