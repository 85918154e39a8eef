import Crypto
import Foundation
import PasskeyAPI
import PasskeyCore
public import PasskeyStorage
public import PasskeyWire

/// The OpenID Provider (OpenID Connect Core 1.0, authorization code flow), without HTTP: what `/authorize`, the sign-in
/// page, `/token` and `/userinfo` decide. Codes, tokens and browser sessions are stored (``OpenIDRepository``), so any
/// instance on the same database continues what another began.
public struct OpenIDProvider<Repository: PasskeyRepository>: Sendable {
    public let settings: OpenIDSettings
    public let ceremonies: CeremonyService<Repository>
    public let signer: OpenIDSigner<Repository>
    let secrets = CeremonySecrets()

    public var repository: Repository { ceremonies.repository }
    var now: Date { ceremonies.now() }

    public init(settings: OpenIDSettings, ceremonies: CeremonyService<Repository>, signer: OpenIDSigner<Repository>) {
        self.settings = settings
        self.ceremonies = ceremonies
        self.signer = signer
    }

    // MARK: Authorization

    /// What `/authorize` does with a request.
    public enum Decision: Sendable {
        /// The browser session answers it: send the browser to the client with this response.
        case respond(AuthorizationResponse)
        /// Show the sign-in page with the sealed request; `session` is the person already signed in, when a consent
        /// (third-party client) is all the page asks for.
        case signIn(sealed: String, client: OpenIDClientRecord, request: AuthorizationRequest, session: UserRecord?)
    }

    /// Reads an authorization request and decides it with the browser's session (`sessionSecret`, its cookie).
    /// - Throws: ``AuthorizationRefusal``: to the client when ``AuthorizationRefusal/redirect`` is set, otherwise an
    ///   error page.
    public func authorize(_ parameters: [(name: String, value: String)], sessionSecret: String?) async throws -> Decision {
        let (request, client) = try await AuthorizationRequest.read(parameters) { id throws(RelyingPartyError) in
            do throws(StorageError) { return try await repository.openIDClient(id: id) } catch { throw RelyingPartyError(error) }
        }
        let session = try await usableSession(sessionSecret, for: request)
        if request.prompt.contains("none") {
            guard let session else { throw AuthorizationRefusal(.loginRequired, "No one is signed in here (prompt=none).", redirect: request) }
            guard !client.thirdParty else {
                throw AuthorizationRefusal(.consentRequired, "This client needs the person's consent (prompt=none).", redirect: request)
            }
            return .respond(try await issueCode(request, client: client, user: session.user, authTime: session.record.authTime, userVerified: session.record.userVerified))
        }
        if let session, !client.thirdParty, request.prompt.isDisjoint(with: ["login", "consent", "select_account"]) {
            return .respond(try await issueCode(request, client: client, user: session.user, authTime: session.record.authTime, userVerified: session.record.userVerified))
        }
        let key = try await sealKey()
        let sealed = SealedAuthorizationRequest.seal(request, expiresAt: now.addingTimeInterval(settings.requestLifetime), key: key)
        // Signed in already, a third-party client needs only consent; any other page is a passkey sign-in (prompt=login,
        // select_account: another account may be wanted).
        let consentOnly = client.thirdParty && request.prompt.isDisjoint(with: ["login", "select_account"]) ? session?.user : nil
        return .signIn(sealed: sealed, client: client, request: request, session: consentOnly)
    }

    /// The page's answer for a sealed request: a verified passkey (`credential`), or the consent of the person already
    /// signed in (`consent`, without a credential). Returns where the browser goes, and the new session's secret (for
    /// the cookie) after a passkey sign-in.
    /// - Throws: ``AuthorizationRefusal`` (redirected when it carries the request), or the ceremony's `RelyingPartyError`
    ///   for a passkey that does not verify (the page shows it and the person may try again).
    public func completeSignIn(
        sealed: String, credential: AuthenticationResponseJSON?, challengeKey: String?, consent: Bool?, sessionSecret: String?
    ) async throws -> (response: AuthorizationResponse, newSession: String?, signIn: CompletedSignIn?) {
        guard let request = SealedAuthorizationRequest.open(sealed, key: try await sealKey(), now: now) else {
            throw AuthorizationRefusal(.invalidRequest, "This sign-in page expired. Go back to the application and start again.", redirect: nil)
        }
        let client: OpenIDClientRecord?
        do { client = try await repository.openIDClient(id: request.clientID) } catch { throw RelyingPartyError(error) }
        guard let client, client.disabledAt == nil, client.redirectURIs.contains(request.redirectURI) else {
            throw AuthorizationRefusal(.oidcClientUnknown, "This application is no longer allowed to sign in here.", redirect: nil)
        }
        if consent == false { throw AuthorizationRefusal(.accessDenied, "The person declined.", redirect: request) }
        if let credential {
            let result = try await ceremonies.verifyAuthentication(credential, challengeKey: challengeKey)
            let secret = BearerSecrets.make(prefix: "", random: ceremonies.random)
            let time = now
            let record = OpenIDSessionRecord(
                hash: BearerSecrets.hash(secret), userID: result.user.id, authTime: time, userVerified: result.userVerified,
                expiresAt: time.addingTimeInterval(settings.sessionLifetime))
            do { try await repository.saveOpenIDSession(record) } catch { throw RelyingPartyError(error) }
            let response = try await issueCode(request, client: client, user: result.user, authTime: time, userVerified: result.userVerified)
            return (response, secret, result)
        }
        var satisfied = request
        satisfied.prompt.remove("consent")
        guard !request.prompt.contains("login"), let session = try await usableSession(sessionSecret, for: satisfied) else {
            throw AuthorizationRefusal(.loginRequired, "Sign in with your passkey first.", redirect: nil)
        }
        let response = try await issueCode(request, client: client, user: session.user, authTime: session.record.authTime, userVerified: session.record.userVerified)
        return (response, nil, nil)
    }

    /// Ends the browser session (RP-initiated logout). Returns where to send the browser: `postLogoutRedirectURI` when
    /// the client named by `clientID` (or by the ID token hint's `aud`) registered it exactly, else nil.
    public func endSession(
        sessionSecret: String?, idTokenHint: String?, clientID: String?, postLogoutRedirectURI: String?, state: String?
    ) async throws(RelyingPartyError) -> String? {
        if let sessionSecret { do { try await repository.deleteOpenIDSession(hash: BearerSecrets.hash(sessionSecret)) } catch { throw RelyingPartyError(error) } }
        guard let postLogoutRedirectURI else { return nil }
        // The hint only chooses whose registered list to look in; the redirect is always one the client registered.
        let audience = idTokenHint.flatMap(Self.unverifiedAudience)
        guard let id = clientID ?? audience else { return nil }
        let client: OpenIDClientRecord?
        do { client = try await repository.openIDClient(id: id) } catch { throw RelyingPartyError(error) }
        guard let client, client.disabledAt == nil, client.postLogoutRedirectURIs.contains(postLogoutRedirectURI) else { return nil }
        guard let state else { return postLogoutRedirectURI }
        return AuthorizationResponse(redirectURI: postLogoutRedirectURI, mode: .query, parameters: [("state", state)]).location
    }

    /// A refusal as the client receives it at its redirect URI (OpenID Connect Core §3.1.2.6, RFC 9207's `iss`).
    public func response(for refusal: AuthorizationRefusal) -> AuthorizationResponse? {
        guard let request = refusal.redirect else { return nil }
        var parameters = [("error", refusal.code.rawValue), ("error_description", refusal.description)]
        if let state = request.state { parameters.append(("state", state)) }
        parameters.append(("iss", settings.issuer))
        return AuthorizationResponse(redirectURI: request.redirectURI, mode: request.responseMode, parameters: parameters)
    }

    /// A session that satisfies `request`: unexpired, its account enabled, within `max_age`.
    func usableSession(_ secret: String?, for request: AuthorizationRequest) async throws(RelyingPartyError) -> (record: OpenIDSessionRecord, user: UserRecord)? {
        guard let secret, !secret.isEmpty, secret.utf8.count <= 100 else { return nil }
        let time = now
        let record: OpenIDSessionRecord?
        let user: UserRecord?
        do {
            record = try await repository.openIDSession(hash: BearerSecrets.hash(secret), now: time)
            if let record { user = try await repository.user(id: record.userID) } else { user = nil }
        } catch { throw RelyingPartyError(error) }
        guard let record, let user, !user.isDisabled, (user.tokensRevokedAt.map { $0 < record.authTime } ?? true) else { return nil }
        if let maxAge = request.maxAge, time.timeIntervalSince(record.authTime) > Double(maxAge) { return nil }
        return (record, user)
    }

    func issueCode(
        _ request: AuthorizationRequest, client: OpenIDClientRecord, user: UserRecord, authTime: Date, userVerified: Bool
    ) async throws(RelyingPartyError) -> AuthorizationResponse {
        let code = BearerSecrets.make(prefix: "", random: ceremonies.random)
        let grant = OpenIDGrantRecord(
            familyID: Base64URL.encode(ceremonies.random.bytes(16)), clientID: client.id, userID: user.id, scopes: request.scopes, nonce: request.nonce,
            authTime: authTime, userVerified: userVerified)
        let record = OpenIDCodeRecord(
            hash: BearerSecrets.hash(code), grant: grant, redirectURI: request.redirectURI, codeChallenge: request.codeChallenge,
            expiresAt: now.addingTimeInterval(settings.codeLifetime))
        do { try await repository.saveOpenIDCode(record) } catch { throw RelyingPartyError(error) }
        var parameters = [("code", code)]
        if let state = request.state { parameters.append(("state", state)) }
        parameters.append(("iss", settings.issuer))
        return AuthorizationResponse(redirectURI: request.redirectURI, mode: request.responseMode, parameters: parameters)
    }

    func sealKey() async throws(RelyingPartyError) -> SymmetricKey {
        do { return try await secrets.key(CeremonySecrets.openIDRequestSealKey, in: repository) } catch { throw RelyingPartyError(error) }
    }

    /// The `aud` of a JWS's payload, unverified.
    static func unverifiedAudience(_ token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])), let claims = try? JSONValue.parse(payload) else { return nil }
        return claims.objectValue?["aud"]?.stringValue
    }
}
