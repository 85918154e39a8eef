public import Foundation
public import PasskeyCore
public import PasskeyStorage
import PasskeyWire

/// Managing OpenID clients, one set of rules for the backend API, the dashboard and `passkey-server oidc-clients`.
/// Every change writes an audit entry naming who made it.
public struct OpenIDClients: Sendable {
    public let repository: any OpenIDRepository
    let audit: any AuditLog
    let now: @Sendable () -> Date
    let random: RandomSource

    public init(
        repository: any OpenIDRepository, audit: any AuditLog, now: @escaping @Sendable () -> Date = Date.init,
        random: RandomSource = .system
    ) {
        self.repository = repository
        self.audit = audit
        self.now = now
        self.random = random
    }

    /// What a client is made with or changed to; nil leaves a member as it is (or takes its default, when making one).
    public struct Settings: Sendable, Hashable {
        public var name: String?
        public var redirectURIs: [String]?
        public var postLogoutRedirectURIs: [String]?
        public var scopes: [String]?
        public var idTokenAlgorithm: String?
        public var thirdParty: Bool?
        public var accessTokenLifetime: Int?
        public var refreshTokenLifetime: Int?
        public var enabled: Bool?

        public init(
            name: String? = nil, redirectURIs: [String]? = nil, postLogoutRedirectURIs: [String]? = nil, scopes: [String]? = nil,
            idTokenAlgorithm: String? = nil, thirdParty: Bool? = nil, accessTokenLifetime: Int? = nil, refreshTokenLifetime: Int? = nil,
            enabled: Bool? = nil
        ) {
            self.name = name
            self.redirectURIs = redirectURIs
            self.postLogoutRedirectURIs = postLogoutRedirectURIs
            self.scopes = scopes
            self.idTokenAlgorithm = idTokenAlgorithm
            self.thirdParty = thirdParty
            self.accessTokenLifetime = accessTokenLifetime
            self.refreshTokenLifetime = refreshTokenLifetime
            self.enabled = enabled
        }
    }

    /// The ID token algorithms a client may choose.
    public static let algorithms = ["RS256", "ES256"]

    /// A new client. Returns it and, for a confidential client, its secret: shown once, stored only as a hash.
    /// - Throws: `oidc_client_invalid`.
    public func create(_ settings: Settings, isPublic: Bool, by actor: AuditActor) async throws(RelyingPartyError) -> (OpenIDClientRecord, secret: String?) {
        guard let name = settings.name else { throw Self.invalid("A client needs a name.") }
        guard let redirects = settings.redirectURIs, !redirects.isEmpty else { throw Self.invalid("A client needs at least one redirect URI.") }
        let secret = isPublic ? nil : BearerSecrets.make(prefix: BearerSecrets.openIDClientSecretPrefix, random: random)
        var client = OpenIDClientRecord(
            id: "oc_" + Base64URL.encode(random.bytes(12)), name: name, secretHash: secret.map(BearerSecrets.hash), redirectURIs: redirects,
            scopes: AuthorizationRequest.knownScopes, createdAt: now())
        try apply(settings, to: &client)
        do { try await repository.addOpenIDClient(client) } catch { throw RelyingPartyError(error) }
        await audit.record(actor.entry("oidc_client_added", detail: "OpenID client \(client.name) (\(client.id)) added", time: now()))
        return (client, secret)
    }

    public func list() async throws(RelyingPartyError) -> [OpenIDClientRecord] {
        do { return try await repository.openIDClients() } catch { throw RelyingPartyError(error) }
    }

    /// - Throws: `oidc_client_not_found`.
    public func client(id: String) async throws(RelyingPartyError) -> OpenIDClientRecord {
        let found: OpenIDClientRecord?
        do { found = try await repository.openIDClient(id: id) } catch { throw RelyingPartyError(error) }
        guard let found else { throw Self.notFound }
        return found
    }

    /// Changes what `settings` gives. Disabling a client stops its codes and tokens at once (they are checked against
    /// it at every use).
    public func update(id: String, _ settings: Settings, by actor: AuditActor) async throws(RelyingPartyError) -> OpenIDClientRecord {
        var client = try await self.client(id: id)
        try apply(settings, to: &client)
        try await store(client)
        await audit.record(actor.entry("oidc_client_updated", detail: "OpenID client \(client.name) (\(client.id)) changed", time: now()))
        return client
    }

    /// A new secret for a confidential client; the old one stops working at once. Returns it: shown once.
    public func rotateSecret(id: String, by actor: AuditActor) async throws(RelyingPartyError) -> (OpenIDClientRecord, secret: String) {
        var client = try await self.client(id: id)
        guard !client.isPublic else { throw Self.invalid("A public client has no secret to rotate.") }
        let secret = BearerSecrets.make(prefix: BearerSecrets.openIDClientSecretPrefix, random: random)
        client.secretHash = BearerSecrets.hash(secret)
        try await store(client)
        await audit.record(actor.entry("oidc_client_secret_rotated", detail: "OpenID client \(client.name) (\(client.id)) got a new secret", time: now()))
        return (client, secret)
    }

    /// Deletes the client, its codes and its tokens.
    public func delete(id: String, by actor: AuditActor) async throws(RelyingPartyError) {
        let client = try await self.client(id: id)
        do { try await repository.deleteOpenIDClient(id: id) } catch {
            throw error.code == .notFound ? Self.notFound : RelyingPartyError(error)
        }
        await audit.record(actor.entry("oidc_client_removed", detail: "OpenID client \(client.name) (\(client.id)) removed", time: now()))
    }

    /// Whether `secret` is the client's, compared in constant time over the hashes.
    public static func verify(secret: String, of client: OpenIDClientRecord) -> Bool {
        guard let stored = client.secretHash else { return false }
        let given = BearerSecrets.hash(secret)
        return given.count == stored.count && zip(given, stored).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private func store(_ client: OpenIDClientRecord) async throws(RelyingPartyError) {
        do { try await repository.updateOpenIDClient(client) } catch {
            throw error.code == .notFound ? Self.notFound : RelyingPartyError(error)
        }
    }

    private func apply(_ settings: Settings, to client: inout OpenIDClientRecord) throws(RelyingPartyError) {
        if let name = settings.name {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard (1...100).contains(trimmed.count), !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format }) else {
                throw Self.invalid("The name must be 1 to 100 characters, without control or format characters.")
            }
            client.name = trimmed
        }
        if let uris = settings.redirectURIs {
            guard !uris.isEmpty, uris.count <= 20 else { throw Self.invalid("A client has 1 to 20 redirect URIs.") }
            for uri in uris { try Self.check(uri, "redirect URI") }
            client.redirectURIs = uris
        }
        if let uris = settings.postLogoutRedirectURIs {
            guard uris.count <= 20 else { throw Self.invalid("A client has at most 20 post-logout redirect URIs.") }
            for uri in uris { try Self.check(uri, "post-logout redirect URI") }
            client.postLogoutRedirectURIs = uris
        }
        if let scopes = settings.scopes {
            guard scopes.contains("openid") else { throw Self.invalid("A client's scopes must include openid.") }
            if let unknown = scopes.first(where: { !AuthorizationRequest.knownScopes.contains($0) }) {
                throw Self.invalid("Unknown scope \(unknown): the scopes are \(AuthorizationRequest.knownScopes.joined(separator: ", ")).")
            }
            client.scopes = AuthorizationRequest.knownScopes.filter(scopes.contains)
        }
        if let algorithm = settings.idTokenAlgorithm {
            guard Self.algorithms.contains(algorithm) else { throw Self.invalid("The ID token algorithm is RS256 or ES256.") }
            client.idTokenAlgorithm = algorithm
        }
        if let thirdParty = settings.thirdParty { client.thirdParty = thirdParty }
        if let lifetime = settings.accessTokenLifetime {
            guard (60...86_400).contains(lifetime) else { throw Self.invalid("The access token lifetime is 60 to 86400 seconds.") }
            client.accessTokenLifetime = lifetime
        }
        if let lifetime = settings.refreshTokenLifetime {
            guard (300...31_536_000).contains(lifetime) else { throw Self.invalid("The refresh token lifetime is 300 seconds to 365 days.") }
            client.refreshTokenLifetime = lifetime
        }
        if let enabled = settings.enabled { client.disabledAt = enabled ? nil : (client.disabledAt ?? now()) }
    }

    /// A redirect URI as RFC 9700 §2.1 and OAuth 2.0 for Native Apps (RFC 8252 §7.3) allow: absolute, `https`, or `http`
    /// to a loopback host, or an app's private-use scheme (`com.example.app:/callback`); no fragment.
    static func check(_ uri: String, _ what: String) throws(RelyingPartyError) {
        guard uri.utf8.count <= 2000, uri.utf8.allSatisfy({ (33...126).contains($0) }), !uri.contains("#"),
            let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased()
        else { throw invalid("The \(what) \(uri.prefix(200)) is not an absolute URI without a fragment.") }
        switch scheme {
        case "https":
            guard let host = components.host, !host.isEmpty else { throw invalid("The \(what) has no host.") }
        case "http":
            guard let host = components.host?.lowercased(), ["localhost", "127.0.0.1", "[::1]", "::1"].contains(host) else {
                throw invalid("The \(what) may use http only on this machine (localhost, 127.0.0.1, [::1]); use https.")
            }
        case "javascript", "data", "file", "vbscript":
            throw invalid("The \(what) may not use the \(scheme) scheme.")
        default:
            // A native app's private-use scheme: reverse domain name, RFC 8252 §7.1.
            guard scheme.contains(".") else { throw invalid("The \(what) needs https, or a private-use scheme named like com.example.app.") }
        }
    }

    static func invalid(_ message: String) -> RelyingPartyError { RelyingPartyError(.oidcClientInvalid, message) }
    static var notFound: RelyingPartyError { RelyingPartyError(.oidcClientNotFound, "There is no OpenID client with this id.") }
}
