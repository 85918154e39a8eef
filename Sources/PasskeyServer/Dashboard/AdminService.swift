import PasskeyRelyingParty
import Crypto
public import Foundation
import PasskeyAPI
public import PasskeyCore
public import PasskeyStorage
import PasskeyWire

/// Dashboard administrators: invites, passkey setup and sign-in (verified by the same ``RelyingParty`` as users'
/// passkeys, stored apart), sessions with idle and absolute timeouts, CSRF tokens, fresh passkey checks, and the
/// break-glass token. HTTP-free: ``DashboardController`` binds it.
public struct AdminService<Repository: PasskeyRepository>: Sendable {
    let repository: Repository
    let relyingParty: RelyingParty
    let configuration: ServerConfiguration
    let now: @Sendable () -> Date
    let random: RandomSource
    let ceremonies = AdminCeremonies()

    var settings: DashboardConfiguration { configuration.dashboard }

    public init(
        repository: Repository, relyingParty: RelyingParty, configuration: ServerConfiguration,
        now: @escaping @Sendable () -> Date = Date.init, random: RandomSource = .system
    ) {
        self.repository = repository
        self.relyingParty = relyingParty
        self.configuration = configuration
        self.now = now
        self.random = random
    }

    /// Prefix of invite tokens and of session secrets.
    static var invitePrefix: String { BearerSecrets.adminInvitePrefix }
    static var sessionPrefix: String { "pas_" }

    // MARK: Invites

    /// When there is no admin yet: a new invite token for the first admin; otherwise `nil`.
    public func firstSetupToken() async throws(StorageError) -> String? {
        // Stored only while there is no admin, in one step with adding one: an instance whose first admin is being
        // added elsewhere gets no link (that addition's revocation of pending links could otherwise miss it).
        let (token, invite) = Administration.makeAdminInvite(lifetime: settings.inviteLifetime, now: now(), random: random)
        return try await repository.saveSetupInvite(invite) ? token : nil
    }

    func checkInvite(_ token: String?) async throws(APIError) -> [UInt8] {
        guard let token, token.hasPrefix(Self.invitePrefix) else { throw DashboardErrors.inviteInvalid }
        let hash = BearerSecrets.hash(token)
        do {
            guard try await repository.adminInvite(hash: hash, now: now()) != nil else { throw DashboardErrors.inviteInvalid }
        } catch let error as StorageError { throw APIError(error) } catch let error as APIError { throw error } catch {
            throw DashboardErrors.inviteInvalid
        }
        return hash
    }

    // MARK: Ceremonies

    func newKey() -> String { Base64URL.encode(random.bytes(16)) }

    var timeoutMilliseconds: Int { Int(configuration.challengeTTL * 1000) }

    /// Creation options for a new admin's passkey, for the holder of an invite.
    func setupOptions(token: String?, name rawName: String?) async throws(APIError) -> RegistrationOptionsAnswer {
        let inviteHash = try await checkInvite(token)
        let name = DisplayName.sanitized(rawName, fallback: "admin")
        let admin = AdminRecord(userHandle: RelyingParty.makeUserHandle(random: random), name: name, createdAt: now())
        let options = relyingParty.makeRegistrationOptions(
            userHandle: admin.userHandle, userName: name, displayName: "\(name) (passkey-server admin)",
            attestation: AttestationConveyancePreference.none, timeoutMilliseconds: timeoutMilliseconds, random: random)
        let key = newKey()
        await ceremonies.put(
            key, .init(challenge: options.challenge, purpose: .setup(inviteHash: inviteHash, admin: admin), expiresAt: deadline), now: now())
        return RegistrationOptionsAnswer(options: options, challengeKey: key)
    }

    /// Verifies the new admin's passkey, stores admin and passkey consuming the invite, and opens a session.
    func setupVerify(challengeKey: String, credential: RegistrationResponseJSON) async throws(APIError) -> (AdminRecord, String) {
        guard let pending = await ceremonies.take(challengeKey, now: now()), case .setup(let inviteHash, let admin) = pending.purpose else {
            throw APIError.challengeInvalid
        }
        let verified: VerifiedRegistration
        do {
            verified = try relyingParty.verifyRegistration(
                credential, expectedChallenge: pending.challenge, requireUserVerification: true, validationTime: now())
        } catch { throw APIError(error) }
        let entry = CredentialRecordEntry(verified, userID: admin.id, createdAt: now())
        do { try await repository.addAdmin(admin, credential: entry, consumingInvite: inviteHash, now: now()) } catch {
            throw error.code == .notFound ? DashboardErrors.inviteInvalid : APIError(error)
        }
        return (admin, try await openSession(for: admin))
    }

    /// Request options for an admin sign-in (discoverable: no username asked) or a fresh check (the admin's passkeys).
    func signInOptions(recheck principal: AdminPrincipal? = nil) async throws(APIError) -> AuthenticationOptionsAnswer {
        var allowed: [CredentialRecord] = []
        let purpose: AdminCeremonies.Purpose
        if let principal, let sessionHash = principal.sessionHash {
            do { allowed = try await repository.adminCredentials(adminID: principal.adminID).map(CeremonyService<Repository>.coreRecord) } catch {
                throw APIError(error)
            }
            purpose = .recheck(adminID: principal.adminID, sessionHash: sessionHash)
        } else {
            purpose = .signIn
        }
        let options = relyingParty.makeAuthenticationOptions(allowCredentials: allowed, timeoutMilliseconds: timeoutMilliseconds, random: random)
        let key = newKey()
        await ceremonies.put(key, .init(challenge: options.challenge, purpose: purpose, expiresAt: deadline), now: now())
        return AuthenticationOptionsAnswer(options: options, challengeKey: key)
    }

    /// Verifies an admin passkey assertion. A sign-in opens a session (returned); a re-check (`recheck` is the session's
    /// admin) marks its session verified. A challenge made for the other purpose is refused.
    func signInVerify(
        challengeKey: String, credential: AuthenticationResponseJSON, recheck principal: AdminPrincipal? = nil
    ) async throws(APIError) -> (AdminRecord, String?) {
        guard let pending = await ceremonies.take(challengeKey, now: now()) else { throw APIError.challengeInvalid }
        switch pending.purpose {
        case .signIn where principal == nil: break
        case .recheck(let adminID, let sessionHash) where adminID == principal?.adminID && sessionHash == principal?.sessionHash: break
        default: throw APIError.challengeInvalid
        }
        let credentialID: [UInt8]
        do { credentialID = try credential.credentialID() } catch { throw APIError(error) }
        let stored: CredentialRecordEntry
        let admin: AdminRecord
        do {
            guard let found = try await repository.adminCredential(id: credentialID), let owner = try await repository.admin(id: found.userID) else {
                throw DashboardErrors.notAnAdminPasskey
            }
            stored = found
            admin = owner
        } catch let error as StorageError { throw APIError(error) } catch let error as APIError { throw error } catch {
            throw DashboardErrors.notAnAdminPasskey
        }
        if case .recheck(let adminID, _) = pending.purpose, adminID != admin.id { throw DashboardErrors.notAnAdminPasskey }
        var record = CeremonyService<Repository>.coreRecord(stored)
        record.userHandle = admin.userHandle
        let verified: VerifiedAuthentication
        do {
            verified = try relyingParty.verifyAuthentication(
                credential, expectedChallenge: pending.challenge, credential: record, expectedUser: .discoverable,
                requireUserVerification: true)
        } catch { throw APIError(error) }
        do {
            try await repository.recordAdminSignIn(
                credentialID: credentialID, signCount: verified.newSignCount, backupState: verified.backupState, at: now())
        } catch { throw APIError(error) }
        if case .recheck(_, let sessionHash) = pending.purpose {
            do { try await repository.touchAdminSession(hash: sessionHash, at: now(), verified: true) } catch { throw APIError(error) }
            return (admin, nil)
        }
        return (admin, try await openSession(for: admin))
    }

    var deadline: Date { now().addingTimeInterval(configuration.challengeTTL) }

    // MARK: Sessions

    /// Stores a new session for `admin` and returns its secret (the cookie's value).
    func openSession(for admin: AdminRecord) async throws(APIError) -> String {
        let secret = BearerSecrets.make(prefix: Self.sessionPrefix, random: random)
        let time = now()
        do {
            try await repository.saveAdminSession(
                AdminSessionRecord(hash: BearerSecrets.hash(secret), adminID: admin.id, createdAt: time, lastSeenAt: time, verifiedAt: time))
        } catch { throw APIError(error) }
        return secret
    }

    /// The CSRF token of the session with this secret: derived from it, so nothing more is stored.
    static func csrfToken(sessionSecret: String) -> String {
        let key = SymmetricKey(data: Array(sessionSecret.utf8))
        return Base64URL.encode(Array(HMAC<SHA256>.authenticationCode(for: Array("dashboard csrf".utf8), using: key)))
    }

    /// Who the request acts as: the session whose secret is `sessionSecret` when it has not timed out (and its idle
    /// clock restarts), or the break-glass token in `bearer`. `nil` otherwise.
    func authenticate(sessionSecret: String?, bearer: String?) async throws(APIError) -> AdminPrincipal? {
        if let bearer, let token = settings.adminToken {
            // Compares hashes: equal-length values, no early exit on the secret's bytes.
            if BearerSecrets.hash(bearer) == BearerSecrets.hash(token) {
                return AdminPrincipal(
                    adminID: AdminPrincipal.breakGlassID, name: "break-glass token", sessionHash: nil, csrfToken: nil, verifiedAt: now())
            }
            return nil
        }
        guard let sessionSecret, sessionSecret.hasPrefix(Self.sessionPrefix) else { return nil }
        let hash = BearerSecrets.hash(sessionSecret)
        let time = now()
        do {
            guard let session = try await repository.adminSession(hash: hash) else { return nil }
            guard time.timeIntervalSince(session.createdAt) < settings.sessionAbsoluteTimeout,
                time.timeIntervalSince(session.lastSeenAt) < settings.sessionIdleTimeout,
                let admin = try await repository.admin(id: session.adminID)
            else {
                try await repository.deleteAdminSession(hash: hash)
                return nil
            }
            try await repository.touchAdminSession(hash: hash, at: time, verified: false)
            return AdminPrincipal(
                adminID: admin.id, name: admin.name, sessionHash: hash, csrfToken: Self.csrfToken(sessionSecret: sessionSecret),
                verifiedAt: session.verifiedAt)
        } catch { throw APIError(error) }
    }

    /// Whether a long-lived request (the live stream) may go on: its session still exists (not signed out, not purged)
    /// and is within the absolute timeout. The break-glass token stays valid.
    func isStillValid(_ principal: AdminPrincipal) async -> Bool {
        guard let hash = principal.sessionHash else { return true }
        guard let session = (try? await repository.adminSession(hash: hash)) ?? nil else { return false }
        return now().timeIntervalSince(session.createdAt) < settings.sessionAbsoluteTimeout
    }

    /// Whether the principal checked a passkey recently enough for a destructive action.
    func isFresh(_ principal: AdminPrincipal) -> Bool {
        principal.isBreakGlass || now().timeIntervalSince(principal.verifiedAt) <= settings.freshCheckWindow
    }

    func signOut(_ principal: AdminPrincipal) async throws(APIError) {
        guard let hash = principal.sessionHash else { return }
        do { try await repository.deleteAdminSession(hash: hash) } catch { throw APIError(error) }
    }
}
