import Crypto
public import Foundation
import JWTKit
public import PasskeyCore
public import PasskeyStorage
public import PasskeyWire

/// Signs and verifies `signedPasskeyData` with the signing keys kept in storage, and publishes their public halves.
///
/// Every instance reads the same keys from the database: it loads them at first use, again every 30 seconds (so a
/// `passkey-server keys rotate` run elsewhere takes effect), and at once when a token names a key it does not know.
/// Only the newest key without a retirement time signs; retired keys verify until they leave the JWKS.
public actor TokenIssuer<Repository: SigningKeyRepository & ConnectTokenRepository> {
    public let repository: Repository
    public let issuer: String
    public let audience: String
    public let lifetime: TimeInterval
    public let now: @Sendable () -> Date
    public let random: RandomSource

    private var collection = JWTKeyCollection()
    private var keys: [SigningKeyRecord] = []
    private var publicKeys: [String: P256.Signing.PublicKey] = [:]
    /// The key that signs, and its JWS header already base64url-encoded (`{"alg":"ES256","kid":…,"typ":"JWT"}`).
    private var signer: (key: P256.Signing.PrivateKey, encodedHeader: String)?
    private var loadedAt: Date?

    public static var reloadInterval: TimeInterval { 30 }

    /// - Parameters:
    ///   - issuer, audience: the `iss` and `aud` of every token, checked again by ``verify(_:consume:)``.
    ///   - lifetime: seconds from `iat` to `exp`.
    public init(
        repository: Repository, issuer: String, audience: String, lifetime: TimeInterval, now: @escaping @Sendable () -> Date = Date.init,
        random: RandomSource = .system
    ) {
        self.repository = repository
        self.issuer = issuer
        self.audience = audience
        self.lifetime = lifetime
        self.now = now
        self.random = random
    }

    /// Loads the keys (creating the first one when storage has none) unless they were loaded recently.
    public func load(force: Bool = false) async throws(RelyingPartyError) {
        let time = now()
        if !force, let loadedAt, time.timeIntervalSince(loadedAt) < Self.reloadInterval, time >= loadedAt { return }
        let stored: [SigningKeyRecord]
        do { stored = try await repository.ensureSigningKey { SigningKeys.make(now: time) } } catch { throw RelyingPartyError(error) }
        let fresh = JWTKeyCollection()
        var publics: [String: P256.Signing.PublicKey] = [:]
        var usable: [SigningKeyRecord] = []
        var current: (key: P256.Signing.PrivateKey, encodedHeader: String)?
        for record in stored where record.algorithm == "ES256" && (record.retiresAt.map { $0 > time } ?? true) {
            guard let key = try? P256.Signing.PrivateKey(pemRepresentation: record.privateKeyPEM),
                let verifier = try? ES256PrivateKey(backing: key)
            else { continue }
            await fresh.add(ecdsa: verifier, kid: JWKIdentifier(string: record.id))
            publics[record.id] = key.publicKey
            usable.append(record)
            if current == nil, record.retiresAt == nil {
                let header: JSONValue = .object(["alg": .string("ES256"), "kid": .string(record.id), "typ": .string("JWT")])
                current = (key, Base64URL.encode(header.serializedBytes))
            }
        }
        guard let current else {
            throw RelyingPartyError.internalError("no usable signing key")
        }
        collection = fresh
        publicKeys = publics
        keys = usable
        signer = current
        loadedAt = time
    }

    /// Signs the claims of a verified ceremony; returns the token and its expiry.
    ///
    /// The JWS is put together here (RFC 7515 compact serialisation: base64url header `.` payload, ES256 over both,
    /// the signature as `r || s`) rather than by jwt-kit, whose Foundation `JSONEncoder` cost more per sign-in than the
    /// signature itself. jwt-kit still verifies (``verify(_:consume:)``), and the tests check every token with joserfc.
    public func sign(_ subject: SignedPasskeySubject) async throws(RelyingPartyError) -> (token: String, expiresAt: Date) {
        let issuedAt = now()
        let expiresAt = issuedAt.addingTimeInterval(lifetime)
        let claims = SignedPasskeyClaims(
            iss: issuer, sub: subject.userID, aud: audience, iat: Int(issuedAt.timeIntervalSince1970),
            exp: Int(expiresAt.timeIntervalSince1970), jti: Base64URL.encode(random.bytes(16)), amr: subject.userVerified ? ["fido", "mfa"] : ["fido"],
            ceremony: subject.ceremony.rawValue, username: subject.username, externalUserID: subject.externalUserID,
            credentialID: Base64URL.encode(subject.credentialID), counterRegressed: subject.counterRegressed ? true : nil)
        return (try await signClaims(claims.json), expiresAt)
    }

    /// Signs any claims with the current ES256 key (an OpenID Connect ID token): the same header, key and JWKS as
    /// `signedPasskeyData`.
    public func signClaims(_ claims: JSONValue) async throws(RelyingPartyError) -> String {
        try await load()
        guard let signer else { throw RelyingPartyError.internalError("no signing key") }
        let signingInput = signer.encodedHeader + "." + Base64URL.encode(claims.serializedBytes)
        do {
            let signature = try signer.key.signature(for: Array(signingInput.utf8))
            return signingInput + "." + Base64URL.encode(Array(signature.rawRepresentation))
        } catch {
            throw RelyingPartyError.internalError("signing failed: \(error)")
        }
    }

    /// Verifies a token this server issued: header (`alg` ES256 and a `kid` of ours; nothing else is trusted from it),
    /// signature, issuer, audience, expiry; then, when `consume`, that its `jti` was not verified before.
    public func verify(_ token: String, consume: Bool) async throws(RelyingPartyError) -> SignedPasskeyClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(String(parts[0])),
            let header = try? JSONValue.parse(headerBytes), case .object(let object) = header
        else { throw Self.invalid("not a JWS compact token") }
        guard object["alg"]?.stringValue == "ES256" else { throw Self.invalid("alg must be ES256") }
        guard object["jku"] == nil, object["jwk"] == nil, object["x5u"] == nil, object["x5c"] == nil, object["crit"] == nil else {
            throw Self.invalid("key material or crit in the header")
        }
        guard let kid = object["kid"]?.stringValue else { throw Self.invalid("no kid") }
        try await load()
        if publicKeys[kid] == nil { try await load(force: true) }
        guard publicKeys[kid] != nil else { throw Self.invalid("unknown or retired kid") }
        let claims: SignedPasskeyClaims
        do { claims = try await collection.verify(token, as: SignedPasskeyClaims.self) } catch { throw Self.invalid("signature or payload: \(error)") }
        guard claims.iss == issuer else { throw Self.invalid("iss \(claims.iss), expected \(issuer)") }
        guard claims.aud == audience else { throw Self.invalid("aud \(claims.aud), expected \(audience)") }
        let time = Int(now().timeIntervalSince1970)
        guard claims.exp > time else {
            throw RelyingPartyError(.tokenExpired, "The signed passkey data has expired. Sign in again.")
        }
        if consume { try await self.consume(claims) }
        return claims
    }

    /// Records the token of `claims` as used: the first call for a token returns, every later one is `token_replayed`.
    public func consume(_ claims: SignedPasskeyClaims) async throws(RelyingPartyError) {
        let first: Bool
        do { first = try await repository.markTokenUsed(id: claims.jti, expiresAt: Date(timeIntervalSince1970: Double(claims.exp))) } catch {
            throw RelyingPartyError(error)
        }
        guard first else {
            throw RelyingPartyError(.tokenReplayed, "This signed passkey data was already verified. Each one is accepted once.")
        }
    }

    public static func invalid(_ detail: String) -> RelyingPartyError {
        RelyingPartyError(.tokenInvalid, "The signed passkey data is not valid for this server.", logDetail: detail)
    }

    /// `{"keys": [...]}`: every key that signs or still verifies.
    public func jwks() async throws(RelyingPartyError) -> JSONValue {
        try await load()
        return .object(["keys": .array(keys.compactMap { record in publicKeys[record.id].map { SigningKeys.jwk(record, $0) } })])
    }
}
