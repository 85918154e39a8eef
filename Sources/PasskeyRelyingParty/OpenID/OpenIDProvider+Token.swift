import Crypto
import Foundation
public import PasskeyAPI
import PasskeyCore
public import PasskeyStorage
import PasskeyWire

/// `/token` and `/userinfo`.
extension OpenIDProvider {
    /// How the client authenticated at the token endpoint (RFC 6749 §2.3.1).
    public struct ClientCredentials: Sendable {
        /// From `Authorization: Basic` (its parts form-decoded), or nil.
        public var basic: (id: String, secret: String)?
        /// The body's `client_id` and `client_secret`.
        public var postedID: String?
        public var postedSecret: String?

        public init(basic: (id: String, secret: String)?, postedID: String?, postedSecret: String?) {
            self.basic = basic
            self.postedID = postedID
            self.postedSecret = postedSecret
        }
    }

    /// What a token request produced: the answer, and what the event log says about it.
    public struct Issued: Sendable {
        public var answer: OpenIDTokenAnswer
        public var client: OpenIDClientRecord
        public var user: UserRecord
    }

    /// `POST /token`: `grant_type` `authorization_code` or `refresh_token`.
    public func token(_ parameters: [String: String], credentials: ClientCredentials) async throws -> Issued {
        let client = try await authenticate(credentials)
        switch parameters["grant_type"] {
        case "authorization_code": return try await exchangeCode(parameters, client: client)
        case "refresh_token": return try await refresh(parameters, client: client)
        case nil: throw OpenIDTokenRefusal(.invalidRequest, "The request has no grant_type.")
        default: throw OpenIDTokenRefusal(.unsupportedGrantType, "The grant types are authorization_code and refresh_token.")
        }
    }

    /// The client the request authenticates: a confidential client by its secret (basic or post, not both), a public
    /// one by its id alone.
    func authenticate(_ credentials: ClientCredentials) async throws -> OpenIDClientRecord {
        if credentials.basic != nil, credentials.postedSecret != nil {
            throw OpenIDTokenRefusal(.invalidRequest, "Authenticate the client one way: the Authorization header or client_secret, not both.")
        }
        guard let id = credentials.basic?.id ?? credentials.postedID else { throw OpenIDTokenRefusal(.invalidClient, "The request names no client.") }
        if let posted = credentials.postedID, let basic = credentials.basic, posted != basic.id {
            throw OpenIDTokenRefusal(.invalidClient, "client_id differs from the Authorization header's.")
        }
        let found: OpenIDClientRecord?
        do { found = try await repository.openIDClient(id: id) } catch { throw RelyingPartyError(error) }
        guard let client = found, client.disabledAt == nil else {
            throw OpenIDTokenRefusal(.invalidClient, "Client authentication failed.", logDetail: "unknown or disabled client \(id.prefix(40))")
        }
        let secret = credentials.basic?.secret ?? credentials.postedSecret
        if client.isPublic {
            guard secret == nil || secret == "" else { throw OpenIDTokenRefusal(.invalidClient, "Client authentication failed.", logDetail: "a public client sent a secret") }
        } else {
            guard let secret, OpenIDClients.verify(secret: secret, of: client) else {
                throw OpenIDTokenRefusal(.invalidClient, "Client authentication failed.", logDetail: "wrong or missing secret for \(client.id)")
            }
        }
        return client
    }

    func exchangeCode(_ parameters: [String: String], client: OpenIDClientRecord) async throws -> Issued {
        guard let code = parameters["code"], !code.isEmpty, code.utf8.count <= 200 else { throw OpenIDTokenRefusal(.invalidRequest, "The request has no code.") }
        let redemption: OpenIDCodeRedemption
        do { redemption = try await repository.redeemOpenIDCode(hash: BearerSecrets.hash(code), now: now) } catch { throw RelyingPartyError(error) }
        let record: OpenIDCodeRecord
        switch redemption {
        case .unknown: throw OpenIDTokenRefusal(.invalidGrant, "The code is unknown or expired.")
        case .reused:
            throw OpenIDTokenRefusal(.invalidGrant, "The code was already used; the tokens it gave were revoked.", logDetail: "authorization code reused", revokedFamily: true)
        case .redeemed(let redeemed): record = redeemed
        }
        // Every binding of the code (RFC 9700 §4.5): a refusal from here on leaves the code used, so it cannot be tried again.
        guard record.grant.clientID == client.id else {
            throw OpenIDTokenRefusal(.invalidGrant, "The code was issued to another client.", logDetail: "code of \(record.grant.clientID) presented by \(client.id)")
        }
        guard parameters["redirect_uri"] == record.redirectURI else {
            throw OpenIDTokenRefusal(.invalidGrant, "redirect_uri is not the one the code was issued for.")
        }
        // RFC 7636 §4.6, RFC 9700 §2.1.1: the verifier must match the challenge, and a verifier without a challenge is refused.
        switch (record.codeChallenge, parameters["code_verifier"]) {
        case (nil, nil): break
        case (nil, .some): throw OpenIDTokenRefusal(.invalidGrant, "code_verifier without a code_challenge in the authorization request.")
        case (.some, nil): throw OpenIDTokenRefusal(.invalidGrant, "The code needs its PKCE code_verifier.")
        case (.some(let challenge), .some(let verifier)):
            guard (43...128).contains(verifier.utf8.count), verifier.utf8.allSatisfy(AuthorizationRequest.isUnreserved),
                Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8)))) == challenge
            else { throw OpenIDTokenRefusal(.invalidGrant, "The PKCE code_verifier does not match the code_challenge.") }
        }
        let user = try await account(of: record.grant)
        return try await issue(record.grant, client: client, user: user, nonce: record.grant.nonce)
    }

    func refresh(_ parameters: [String: String], client: OpenIDClientRecord) async throws -> Issued {
        guard let token = parameters["refresh_token"], !token.isEmpty, token.utf8.count <= 200 else {
            throw OpenIDTokenRefusal(.invalidRequest, "The request has no refresh_token.")
        }
        let hash = BearerSecrets.hash(token)
        let current: OpenIDTokenRecord?
        do { current = try await repository.openIDToken(hash: hash, kind: .refresh, now: now) } catch { throw RelyingPartyError(error) }
        guard let current else {
            // Used before (it leaked: revoke what it belongs to), expired, or unknown.
            let outcome: OpenIDRefreshRotation
            do { outcome = try await repository.rotateOpenIDRefreshToken(hash: hash, replacements: [], now: now) } catch { throw RelyingPartyError(error) }
            if case .reused = outcome {
                throw OpenIDTokenRefusal(.invalidGrant, "The refresh token was already used; every token of this sign-in was revoked.", logDetail: "refresh token reused", revokedFamily: true)
            }
            throw OpenIDTokenRefusal(.invalidGrant, "The refresh token is unknown, expired or revoked.")
        }
        guard current.grant.clientID == client.id else {
            throw OpenIDTokenRefusal(.invalidGrant, "The refresh token was issued to another client.", logDetail: "refresh token of \(current.grant.clientID) presented by \(client.id)")
        }
        var grant = current.grant
        grant.nonce = nil
        if let asked = parameters["scope"] {
            let scopes = asked.split(separator: " ").map(String.init)
            guard Set(scopes).isSubset(of: grant.scopes), scopes.contains("openid") else {
                throw OpenIDTokenRefusal(.invalidScope, "A refresh may only narrow the scopes granted.")
            }
            grant.scopes = AuthorizationRequest.knownScopes.filter(scopes.contains)
            if !grant.scopes.contains("offline_access") { grant.scopes.append("offline_access") }
        }
        let user = try await account(of: grant)
        let (answer, records) = try await tokens(grant, client: client, user: user, nonce: nil)
        let outcome: OpenIDRefreshRotation
        do { outcome = try await repository.rotateOpenIDRefreshToken(hash: hash, replacements: records, now: now) } catch { throw RelyingPartyError(error) }
        switch outcome {
        case .rotated: return Issued(answer: answer, client: client, user: user)
        case .reused:
            throw OpenIDTokenRefusal(.invalidGrant, "The refresh token was already used; every token of this sign-in was revoked.", logDetail: "refresh token reused", revokedFamily: true)
        case .unknown: throw OpenIDTokenRefusal(.invalidGrant, "The refresh token is unknown, expired or revoked.")
        }
    }

    /// The account a grant is for, when it may still sign in: it exists, is enabled, and was not disabled since the
    /// passkey sign-in (a suspected takeover's tokens do not come back when it is enabled again).
    func account(of grant: OpenIDGrantRecord) async throws -> UserRecord {
        let user: UserRecord?
        do { user = try await repository.user(id: grant.userID) } catch { throw RelyingPartyError(error) }
        guard let user else { throw OpenIDTokenRefusal(.invalidGrant, "The account no longer exists.") }
        guard !user.isDisabled, user.tokensRevokedAt.map({ $0 < grant.authTime }) ?? true else {
            throw OpenIDTokenRefusal(.invalidGrant, "The account is disabled.", logDetail: "account \(user.id) disabled")
        }
        return user
    }

    func issue(_ grant: OpenIDGrantRecord, client: OpenIDClientRecord, user: UserRecord, nonce: String?) async throws -> Issued {
        let (answer, records) = try await tokens(grant, client: client, user: user, nonce: nonce)
        do { try await repository.saveOpenIDTokens(records) } catch { throw RelyingPartyError(error) }
        return Issued(answer: answer, client: client, user: user)
    }

    /// An access token, a refresh token with `offline_access`, and the ID token (OpenID Connect Core §2, §3.1.3.6).
    func tokens(_ grant: OpenIDGrantRecord, client: OpenIDClientRecord, user: UserRecord, nonce: String?) async throws(RelyingPartyError)
        -> (OpenIDTokenAnswer, [OpenIDTokenRecord])
    {
        let time = now
        let access = BearerSecrets.make(prefix: "", random: ceremonies.random)
        var records = [
            OpenIDTokenRecord(
                hash: BearerSecrets.hash(access), kind: .access, grant: grant, issuedAt: time, expiresAt: time.addingTimeInterval(Double(client.accessTokenLifetime)))
        ]
        var refresh: String?
        if grant.scopes.contains("offline_access") {
            let token = BearerSecrets.make(prefix: "", random: ceremonies.random)
            refresh = token
            records.append(
                OpenIDTokenRecord(
                    hash: BearerSecrets.hash(token), kind: .refresh, grant: grant, issuedAt: time,
                    expiresAt: time.addingTimeInterval(Double(client.refreshTokenLifetime))))
        }
        // at_hash: the left half of SHA-256 of the access token (both algorithms hash with SHA-256).
        let atHash = Base64URL.encode(Array(SHA256.hash(data: Array(access.utf8)).prefix(16)))
        var claims = JSONObject()
        claims["iss"] = .string(settings.issuer)
        claims["sub"] = .string(user.id)
        claims["aud"] = .string(client.id)
        claims["azp"] = .string(client.id)
        claims["iat"] = .number(Double(Int(time.timeIntervalSince1970)))
        claims["exp"] = .number(Double(Int(time.timeIntervalSince1970) + client.accessTokenLifetime))
        claims["auth_time"] = .number(Double(Int(grant.authTime.timeIntervalSince1970)))
        if let nonce { claims["nonce"] = .string(nonce) }
        // RFC 8176: a hardware-protected key (hwk) signed; with user verification, a second factor (user: biometrics or
        // PIN) made it multi-factor.
        claims["amr"] = .array(grant.userVerified ? ["hwk", "user", "mfa"] : ["hwk"])
        claims["acr"] = .string(grant.userVerified ? Self.acrMultiFactor : Self.acrSingleFactor)
        claims["at_hash"] = .string(atHash)
        if case .object(let released) = self.claims(of: user, scopes: grant.scopes).json {
            for member in released where member.name != "sub" { claims[member.name] = member.value }
        }
        let idToken = try await signer.sign(.object(claims), algorithm: client.idTokenAlgorithm)
        let answer = OpenIDTokenAnswer(
            accessToken: access, expiresIn: client.accessTokenLifetime, idToken: idToken, refreshToken: refresh, scope: grant.scopes.joined(separator: " "))
        return (answer, records)
    }

    /// `acr` values: a passkey with user verification, and one without.
    public static var acrMultiFactor: String { "urn:passkey:mfa" }
    public static var acrSingleFactor: String { "urn:passkey:1fa" }

    /// The claims `scopes` release about `user` (OpenID Connect Core §5.4), in the ID token and at `/userinfo` alike.
    func claims(of user: UserRecord, scopes: [String]) -> OpenIDUserInfoAnswer {
        var answer = OpenIDUserInfoAnswer(sub: user.id)
        if scopes.contains("profile") {
            answer.preferredUsername = user.entityName
            answer.name = user.displayName.isEmpty ? user.entityName : user.displayName
        }
        // The account's email: its name, when that is an address (an account made from the iOS 26 sign-up sheet's
        // contact). Not verified: this server never sent it a message.
        if scopes.contains("email"), let name = user.username, ContactIdentifier.isEmailAddress(name) {
            answer.email = name
            answer.emailVerified = false
        }
        return answer
    }

    /// `GET /userinfo` with a bearer access token.
    public func userInfo(accessToken: String?) async throws -> (OpenIDUserInfoAnswer, OpenIDClientRecord, UserRecord) {
        guard let accessToken, !accessToken.isEmpty, accessToken.utf8.count <= 200 else {
            throw OpenIDTokenRefusal(.invalidToken, "The request has no access token.")
        }
        let record: OpenIDTokenRecord?
        let client: OpenIDClientRecord?
        do {
            record = try await repository.openIDToken(hash: BearerSecrets.hash(accessToken), kind: .access, now: now)
            if let record { client = try await repository.openIDClient(id: record.grant.clientID) } else { client = nil }
        } catch { throw RelyingPartyError(error) }
        guard let record, let client, client.disabledAt == nil else { throw OpenIDTokenRefusal(.invalidToken, "The access token is unknown, expired or revoked.") }
        let user: UserRecord
        do { user = try await account(of: record.grant) } catch is OpenIDTokenRefusal {
            throw OpenIDTokenRefusal(.invalidToken, "The access token's account is disabled or gone.")
        }
        let answer = claims(of: user, scopes: record.grant.scopes)
        return (answer, client, user)
    }
}
