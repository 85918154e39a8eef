import Foundation
import PasskeyStorage
import Testing

/// The OpenID Provider's state on every store: clients, single-use codes, rotating refresh tokens whose replay revokes
/// their family, browser sessions, and the purge. The in-memory store is the reference; the databases must answer alike,
/// also when one code or refresh token is exchanged concurrently.
@Suite("Storage conformance: the OpenID Provider's clients, codes, tokens and sessions")
struct OpenIDStorageConformanceTests {
    static func hash(_ marker: UInt8) -> [UInt8] { [UInt8](repeating: marker, count: 32) }

    /// A confidential client with every field set (a comma and a non-ASCII letter in a redirect URI).
    static func client(_ id: String, at time: Date = t0) -> OpenIDClientRecord {
        OpenIDClientRecord(
            id: id, name: "Grafana \(id)", secretHash: hash(0xc0),
            redirectURIs: ["https://grafana.example.com/login/generic_oauth", "https://app.example.com/rückruf?a=1,2"],
            postLogoutRedirectURIs: ["https://grafana.example.com/logged-out"], scopes: ["openid", "profile", "email"], idTokenAlgorithm: "ES256",
            thirdParty: true, accessTokenLifetime: 900, refreshTokenLifetime: 86_400, createdAt: time, disabledAt: nil)
    }

    static func grant(_ family: String, client: String = "oc_one", nonce: String? = "n-0S6_WzA2Mj", verified: Bool = true) -> OpenIDGrantRecord {
        OpenIDGrantRecord(
            familyID: family, clientID: client, userID: "u-ann", scopes: ["openid", "profile", "email"], nonce: nonce,
            authTime: t0.addingTimeInterval(-30), userVerified: verified)
    }

    static func code(_ marker: UInt8, family: String, client: String = "oc_one", expires: TimeInterval = 60) -> OpenIDCodeRecord {
        OpenIDCodeRecord(
            hash: hash(marker), grant: grant(family, client: client), redirectURI: "https://app.example.com/callback",
            codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", expiresAt: t0.addingTimeInterval(expires))
    }

    static func token(
        _ marker: UInt8, _ kind: OpenIDTokenKind, family: String, client: String = "oc_one", expires: TimeInterval = 600
    ) -> OpenIDTokenRecord {
        OpenIDTokenRecord(hash: hash(marker), kind: kind, grant: grant(family, client: client), issuedAt: t0, expiresAt: t0.addingTimeInterval(expires))
    }

    static func session(_ marker: UInt8, expires: TimeInterval = 3600, verified: Bool = true) -> OpenIDSessionRecord {
        OpenIDSessionRecord(
            hash: hash(marker), userID: "u-ann", authTime: t0.addingTimeInterval(-5), userVerified: verified, expiresAt: t0.addingTimeInterval(expires))
    }

    /// The record a store returns for `code` exchanged at `time`.
    static func used(_ code: OpenIDCodeRecord, at time: Date) -> OpenIDCodeRecord {
        var code = code
        code.usedAt = time
        return code
    }

    static func used(_ token: OpenIDTokenRecord, at time: Date) -> OpenIDTokenRecord {
        var token = token
        token.usedAt = time
        return token
    }

    /// The outcome's name, to count outcomes of concurrent exchanges.
    static func name(_ redemption: OpenIDCodeRedemption) -> String {
        switch redemption {
        case .redeemed: "redeemed"
        case .reused: "reused"
        case .unknown: "unknown"
        }
    }

    static func name(_ rotation: OpenIDRefreshRotation) -> String {
        switch rotation {
        case .rotated: "rotated"
        case .reused: "reused"
        case .unknown: "unknown"
        }
    }

    /// Whether the tokens with these markers are found as `kind` at `t0`.
    static func found(_ repo: any PasskeyRepository, _ markers: [UInt8], _ kind: OpenIDTokenKind) async throws -> [Bool] {
        var found: [Bool] = []
        for marker in markers { found.append(try await repo.openIDToken(hash: hash(marker), kind: kind, now: t0) != nil) }
        return found
    }

    // MARK: Clients

    @Test("clients are added, listed oldest first, read, updated field by field and deleted; a second add or a missing one is refused", arguments: Backend.available)
    func clients(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let confidential = Self.client("oc_b", at: t0)
            let cli = OpenIDClientRecord(
                id: "oc_a", name: "CLI", secretHash: nil, redirectURIs: ["http://127.0.0.1/callback"], scopes: ["openid"],
                createdAt: t0.addingTimeInterval(1))
            try await repo.addOpenIDClient(confidential)
            try await repo.addOpenIDClient(cli)
            #expect(try await repo.openIDClients() == [confidential, cli])
            let read = try await repo.openIDClient(id: "oc_a")
            #expect(read == cli && read?.isPublic == true && read?.postLogoutRedirectURIs == [] && read?.idTokenAlgorithm == "RS256")
            #expect(try await repo.openIDClient(id: "oc_b") == confidential)
            #expect(try await repo.openIDClient(id: "oc_missing") == nil)

            var duplicate = cli
            duplicate.name = "Another"
            #expect(await storageCode { try await repo.addOpenIDClient(duplicate) } == .recordExists)
            #expect(try await repo.openIDClient(id: "oc_a") == cli)

            var updated = confidential
            updated.name = "Grafana (staging)"
            updated.secretHash = nil
            updated.redirectURIs = ["https://staging.example.com/cb"]
            updated.postLogoutRedirectURIs = []
            updated.scopes = ["openid"]
            updated.idTokenAlgorithm = "RS256"
            updated.thirdParty = false
            updated.accessTokenLifetime = 300
            updated.refreshTokenLifetime = 3600
            updated.disabledAt = t0.addingTimeInterval(60)
            try await repo.updateOpenIDClient(updated)
            #expect(try await repo.openIDClient(id: "oc_b") == updated)
            // And back: a secret and a list set again, the disable lifted.
            try await repo.updateOpenIDClient(confidential)
            #expect(try await repo.openIDClient(id: "oc_b") == confidential)
            #expect(await storageCode { try await repo.updateOpenIDClient(Self.client("oc_missing")) } == .notFound)
            #expect(try await repo.openIDClient(id: "oc_missing") == nil)

            try await repo.deleteOpenIDClient(id: "oc_b")
            #expect(try await repo.openIDClients() == [cli])
            #expect(try await repo.openIDClient(id: "oc_b") == nil)
            #expect(await storageCode { try await repo.deleteOpenIDClient(id: "oc_b") } == .notFound)
        }
    }

    @Test("deleting a client deletes its codes and tokens, and no other client's", arguments: Backend.available)
    func clientDeletionCascades(backend: Backend) async throws {
        try await backend.withRepository { repo in
            try await repo.addOpenIDClient(Self.client("oc_one"))
            try await repo.addOpenIDClient(Self.client("oc_two", at: t0.addingTimeInterval(1)))
            try await repo.saveOpenIDCode(Self.code(1, family: "f1", client: "oc_one"))
            try await repo.saveOpenIDCode(Self.code(2, family: "f2", client: "oc_two"))
            try await repo.saveOpenIDTokens([Self.token(11, .access, family: "f1", client: "oc_one"), Self.token(12, .refresh, family: "f1", client: "oc_one")])
            try await repo.saveOpenIDTokens([Self.token(21, .access, family: "f2", client: "oc_two"), Self.token(22, .refresh, family: "f2", client: "oc_two")])

            try await repo.deleteOpenIDClient(id: "oc_one")
            #expect(try await Self.found(repo, [11, 21], .access) == [false, true])
            #expect(try await Self.found(repo, [12, 22], .refresh) == [false, true])
            #expect(try await repo.redeemOpenIDCode(hash: Self.hash(1), now: t0) == .unknown)
            #expect(try await repo.redeemOpenIDCode(hash: Self.hash(2), now: t0) == .redeemed(Self.used(Self.code(2, family: "f2", client: "oc_two"), at: t0)))
            #expect(try await repo.openIDClients().map(\.id) == ["oc_two"])
        }
    }

    // MARK: Codes

    @Test("a code is redeemed once; a second exchange reports it reused and revokes its family's tokens, no other's", arguments: Backend.available)
    func codeRedeemedOnce(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let code = Self.code(1, family: "f1")
            try await repo.saveOpenIDCode(code)
            #expect(try await repo.redeemOpenIDCode(hash: Self.hash(1), now: t0) == .redeemed(Self.used(code, at: t0)))
            // The tokens issued for it, and another grant's.
            try await repo.saveOpenIDTokens([Self.token(11, .access, family: "f1"), Self.token(12, .refresh, family: "f1")])
            try await repo.saveOpenIDTokens([Self.token(21, .access, family: "f2"), Self.token(22, .refresh, family: "f2")])
            #expect(try await Self.found(repo, [11, 21], .access) == [true, true])

            let later = t0.addingTimeInterval(5)
            #expect(try await repo.redeemOpenIDCode(hash: Self.hash(1), now: later) == .reused(Self.used(code, at: t0)))
            #expect(try await Self.found(repo, [11, 21], .access) == [false, true])
            #expect(try await Self.found(repo, [12, 22], .refresh) == [false, true])
            // Still reused (the code stays until it is purged), also after it expired.
            #expect(try await repo.redeemOpenIDCode(hash: Self.hash(1), now: t0.addingTimeInterval(120)) == .reused(Self.used(code, at: t0)))
            #expect(try await repo.redeemOpenIDCode(hash: Self.hash(9), now: t0) == .unknown)
        }
    }

    @Test("an expired code is unknown, at its expiry and after, and stays unused", arguments: Backend.available)
    func expiredCode(backend: Backend) async throws {
        try await backend.withRepository { repo in
            try await repo.saveOpenIDCode(Self.code(1, family: "f1", expires: 60))
            try await repo.saveOpenIDTokens([Self.token(11, .access, family: "f1")])
            #expect(try await repo.redeemOpenIDCode(hash: Self.hash(1), now: t0.addingTimeInterval(60)) == .unknown)
            #expect(try await repo.redeemOpenIDCode(hash: Self.hash(1), now: t0.addingTimeInterval(61)) == .unknown)
            // Not marked used: nothing was revoked, and before its expiry it would still redeem.
            #expect(try await Self.found(repo, [11], .access) == [true])
            #expect(try await repo.redeemOpenIDCode(hash: Self.hash(1), now: t0.addingTimeInterval(59)) == .redeemed(Self.used(Self.code(1, family: "f1"), at: t0.addingTimeInterval(59))))
        }
    }

    @Test("of 8 concurrent exchanges of one code exactly one redeems it, the others find it reused", arguments: Backend.available)
    func concurrentRedemption(backend: Backend) async throws {
        try await backend.withRepository { repo in
            for marker in UInt8(1)...3 {
                try await repo.saveOpenIDCode(Self.code(marker, family: "f\(marker)"))
                let outcomes = try await withThrowingTaskGroup(of: OpenIDCodeRedemption.self) { group in
                    for _ in 0..<8 { group.addTask { try await repo.redeemOpenIDCode(hash: Self.hash(marker), now: t0) } }
                    return try await group.reduce(into: [OpenIDCodeRedemption]()) { $0.append($1) }
                }
                let names = outcomes.map(Self.name)
                #expect(names.filter { $0 == "redeemed" }.count == 1 && names.filter { $0 == "reused" }.count == 7, "\(names)")
                #expect(outcomes.contains(.redeemed(Self.used(Self.code(marker, family: "f\(marker)"), at: t0))))
            }
        }
    }

    // MARK: Refresh tokens

    @Test("a refresh token rotates: the old one is returned used and no longer found, its replacements are found by kind", arguments: Backend.available)
    func refreshRotation(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let refresh = Self.token(12, .refresh, family: "f1")
            try await repo.saveOpenIDTokens([Self.token(11, .access, family: "f1"), refresh])
            #expect(try await repo.openIDToken(hash: Self.hash(12), kind: .refresh, now: t0) == refresh)
            #expect(try await repo.openIDToken(hash: Self.hash(12), kind: .access, now: t0) == nil)

            let now = t0.addingTimeInterval(10)
            let access2 = Self.token(13, .access, family: "f1")
            let refresh2 = Self.token(14, .refresh, family: "f1")
            #expect(try await repo.rotateOpenIDRefreshToken(hash: Self.hash(12), replacements: [access2, refresh2], now: now) == .rotated(Self.used(refresh, at: now)))
            #expect(try await repo.openIDToken(hash: Self.hash(12), kind: .refresh, now: now) == nil)
            #expect(try await repo.openIDToken(hash: Self.hash(14), kind: .refresh, now: now) == refresh2)
            #expect(try await repo.openIDToken(hash: Self.hash(13), kind: .access, now: now) == access2)
            #expect(try await repo.openIDToken(hash: Self.hash(14), kind: .access, now: now) == nil)
            // The access token issued before stays until it expires.
            #expect(try await repo.openIDToken(hash: Self.hash(11), kind: .access, now: now) != nil)
            #expect(try await repo.openIDToken(hash: Self.hash(11), kind: .access, now: t0.addingTimeInterval(600)) == nil)

            // An access token, or none, does not rotate.
            #expect(try await repo.rotateOpenIDRefreshToken(hash: Self.hash(13), replacements: [Self.token(15, .refresh, family: "f1")], now: now) == .unknown)
            #expect(try await repo.rotateOpenIDRefreshToken(hash: Self.hash(99), replacements: [Self.token(15, .refresh, family: "f1")], now: now) == .unknown)
            #expect(try await repo.openIDToken(hash: Self.hash(15), kind: .refresh, now: now) == nil)
            #expect(try await repo.openIDToken(hash: Self.hash(13), kind: .access, now: now) == access2)
            // The replacement rotates in turn.
            let refresh3 = Self.token(16, .refresh, family: "f1")
            #expect(try await repo.rotateOpenIDRefreshToken(hash: Self.hash(14), replacements: [refresh3], now: now) == .rotated(Self.used(refresh2, at: now)))
            #expect(try await repo.openIDToken(hash: Self.hash(16), kind: .refresh, now: now) == refresh3)
        }
    }

    @Test("a refresh token presented again is reused: its whole family (replacements, access tokens, code) is revoked, no other", arguments: Backend.available)
    func refreshReuse(backend: Backend) async throws {
        try await backend.withRepository { repo in
            try await repo.saveOpenIDCode(Self.code(1, family: "f1"))
            _ = try await repo.redeemOpenIDCode(hash: Self.hash(1), now: t0)
            let refresh = Self.token(12, .refresh, family: "f1")
            try await repo.saveOpenIDTokens([Self.token(11, .access, family: "f1"), refresh])
            try await repo.saveOpenIDCode(Self.code(2, family: "f2"))
            try await repo.saveOpenIDTokens([Self.token(21, .access, family: "f2"), Self.token(22, .refresh, family: "f2")])
            let now = t0.addingTimeInterval(10)
            #expect(
                try await repo.rotateOpenIDRefreshToken(hash: Self.hash(12), replacements: [Self.token(13, .access, family: "f1"), Self.token(14, .refresh, family: "f1")], now: now)
                    == .rotated(Self.used(refresh, at: now)))

            let replay = try await repo.rotateOpenIDRefreshToken(hash: Self.hash(12), replacements: [Self.token(15, .refresh, family: "f1")], now: now.addingTimeInterval(1))
            #expect(replay == .reused(Self.used(refresh, at: now)))
            #expect(try await Self.found(repo, [11, 13, 21], .access) == [false, false, true])
            #expect(try await Self.found(repo, [12, 14, 15, 22], .refresh) == [false, false, false, true])
            // The family's code went too (a replay of it is unknown, not reused); the other family's did not.
            #expect(try await repo.redeemOpenIDCode(hash: Self.hash(1), now: t0) == .unknown)
            #expect(try await repo.redeemOpenIDCode(hash: Self.hash(2), now: t0) == .redeemed(Self.used(Self.code(2, family: "f2"), at: t0)))
            // The revoked tokens are gone: presented again, they are unknown.
            #expect(try await repo.rotateOpenIDRefreshToken(hash: Self.hash(12), replacements: [], now: now) == .unknown)
            #expect(try await repo.rotateOpenIDRefreshToken(hash: Self.hash(14), replacements: [], now: now) == .unknown)
        }
    }

    @Test("an expired, unused refresh token does not rotate: unknown, its replacements not stored, nothing revoked", arguments: Backend.available)
    func expiredRefresh(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let refresh = Self.token(12, .refresh, family: "f1", expires: 600)
            try await repo.saveOpenIDTokens([Self.token(11, .access, family: "f1", expires: 900), refresh])
            let expiry = t0.addingTimeInterval(600)
            #expect(try await repo.rotateOpenIDRefreshToken(hash: Self.hash(12), replacements: [Self.token(14, .refresh, family: "f1")], now: expiry) == .unknown)
            #expect(try await repo.openIDToken(hash: Self.hash(14), kind: .refresh, now: t0) == nil)
            #expect(try await repo.openIDToken(hash: Self.hash(12), kind: .refresh, now: t0) == refresh)
            #expect(try await repo.openIDToken(hash: Self.hash(11), kind: .access, now: expiry) != nil)
        }
    }

    @Test("of 8 concurrent rotations of one refresh token exactly one rotates; the next is a replay that revokes the family", arguments: Backend.available)
    func concurrentRotation(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let refresh = Self.token(12, .refresh, family: "f1")
            try await repo.saveOpenIDTokens([refresh])
            let outcomes = try await withThrowingTaskGroup(of: OpenIDRefreshRotation.self) { group in
                for index in UInt8(0)..<8 {
                    group.addTask {
                        try await repo.rotateOpenIDRefreshToken(hash: Self.hash(12), replacements: [Self.token(100 + index, .refresh, family: "f1")], now: t0)
                    }
                }
                return try await group.reduce(into: [OpenIDRefreshRotation]()) { $0.append($1) }
            }
            let names = outcomes.map(Self.name)
            // As if one at a time: the first rotates, the second is a replay and revokes the family (the token with
            // it), the rest find nothing.
            #expect(names.filter { $0 == "rotated" }.count == 1, "\(names)")
            #expect(names.filter { $0 == "reused" }.count == 1 && names.filter { $0 == "unknown" }.count == 6, "\(names)")
            #expect(outcomes.contains(.rotated(Self.used(refresh, at: t0))))
            #expect(try await Self.found(repo, Array(UInt8(100)..<108) + [12], .refresh) == Array(repeating: false, count: 9))
        }
    }

    @Test("revoking a family deletes its tokens and code, counts its tokens, and leaves other families", arguments: Backend.available)
    func revokeFamily(backend: Backend) async throws {
        try await backend.withRepository { repo in
            try await repo.saveOpenIDCode(Self.code(1, family: "f1"))
            try await repo.saveOpenIDCode(Self.code(2, family: "f2"))
            try await repo.saveOpenIDTokens([Self.token(11, .access, family: "f1"), Self.token(12, .refresh, family: "f1")])
            try await repo.saveOpenIDTokens([Self.token(21, .access, family: "f2")])
            #expect(try await repo.revokeOpenIDFamily(id: "f1") == 2)
            #expect(try await repo.revokeOpenIDFamily(id: "f1") == 0)
            #expect(try await repo.revokeOpenIDFamily(id: "f-none") == 0)
            #expect(try await Self.found(repo, [11, 21], .access) == [false, true])
            #expect(try await repo.redeemOpenIDCode(hash: Self.hash(1), now: t0) == .unknown)
            #expect(try await repo.redeemOpenIDCode(hash: Self.hash(2), now: t0) == .redeemed(Self.used(Self.code(2, family: "f2"), at: t0)))
        }
    }

    // MARK: Sessions and purge

    @Test("a session is read until it expires, replaced by a save with its hash, and deleted", arguments: Backend.available)
    func sessions(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let first = Self.session(31, expires: 3600)
            let second = Self.session(32, expires: 60, verified: false)
            try await repo.saveOpenIDSession(first)
            try await repo.saveOpenIDSession(second)
            #expect(try await repo.openIDSession(hash: Self.hash(31), now: t0) == first)
            #expect(try await repo.openIDSession(hash: Self.hash(32), now: t0.addingTimeInterval(59)) == second)
            #expect(try await repo.openIDSession(hash: Self.hash(32), now: t0.addingTimeInterval(60)) == nil)
            #expect(try await repo.openIDSession(hash: Self.hash(33), now: t0) == nil)
            var extended = second
            extended.expiresAt = t0.addingTimeInterval(7200)
            extended.userVerified = true
            try await repo.saveOpenIDSession(extended)
            #expect(try await repo.openIDSession(hash: Self.hash(32), now: t0.addingTimeInterval(60)) == extended)
            try await repo.deleteOpenIDSession(hash: Self.hash(31))
            try await repo.deleteOpenIDSession(hash: Self.hash(33))
            #expect(try await repo.openIDSession(hash: Self.hash(31), now: t0) == nil)
            #expect(try await repo.openIDSession(hash: Self.hash(32), now: t0) == extended)
        }
    }

    @Test("the purge deletes the codes, tokens and sessions expired at its time (used or not) and counts them", arguments: Backend.available)
    func purge(backend: Backend) async throws {
        try await backend.withRepository { repo in
            try await repo.saveOpenIDCode(Self.code(1, family: "f1", expires: 60))
            try await repo.saveOpenIDCode(Self.code(2, family: "f2", expires: 120))
            try await repo.saveOpenIDCode(Self.code(3, family: "f3", expires: 60))
            _ = try await repo.redeemOpenIDCode(hash: Self.hash(3), now: t0)
            try await repo.saveOpenIDTokens([Self.token(11, .access, family: "f1", expires: 60), Self.token(12, .refresh, family: "f1", expires: 600)])
            try await repo.saveOpenIDSession(Self.session(31, expires: 60))
            try await repo.saveOpenIDSession(Self.session(32, expires: 3600))

            let expiry = t0.addingTimeInterval(60)
            #expect(try await repo.purgeOpenIDRecords(now: expiry) == 4)
            #expect(try await repo.purgeOpenIDRecords(now: expiry) == 0)
            // Gone, as a code or token never seen: a purged used code is unknown, not reused.
            #expect(try await repo.redeemOpenIDCode(hash: Self.hash(3), now: t0) == .unknown)
            #expect(try await repo.redeemOpenIDCode(hash: Self.hash(1), now: t0) == .unknown)
            #expect(try await Self.found(repo, [11], .access) == [false])
            #expect(try await repo.openIDSession(hash: Self.hash(31), now: t0) == nil)
            // Kept: what expires later.
            #expect(try await Self.found(repo, [12], .refresh) == [true])
            #expect(try await repo.openIDSession(hash: Self.hash(32), now: t0) == Self.session(32, expires: 3600))
            #expect(try await repo.redeemOpenIDCode(hash: Self.hash(2), now: t0) == .redeemed(Self.used(Self.code(2, family: "f2", expires: 120), at: t0)))
            #expect(try await repo.purgeOpenIDRecords(now: t0.addingTimeInterval(3600)) == 3)
        }
    }

    @Test("every field reads back as stored, absent ones absent: no nonce, no PKCE challenge, no user verification", arguments: Backend.available)
    func fieldsRoundTrip(backend: Backend) async throws {
        try await backend.withRepository { repo in
            var bare = Self.code(1, family: "f1")
            bare.grant = Self.grant("f1", nonce: nil, verified: false)
            bare.grant.scopes = ["openid"]
            bare.codeChallenge = nil
            bare.redirectURI = "http://127.0.0.1:53682/callback?state=a,b"
            try await repo.saveOpenIDCode(bare)
            #expect(try await repo.redeemOpenIDCode(hash: Self.hash(1), now: t0) == .redeemed(Self.used(bare, at: t0)))

            var token = Self.token(11, .access, family: "f1")
            token.grant = bare.grant
            token.issuedAt = t0.addingTimeInterval(0.125)
            var custom = Self.token(12, OpenIDTokenKind(rawValue: "device"), family: "f1")
            custom.grant.nonce = nil
            try await repo.saveOpenIDTokens([token, custom])
            #expect(try await repo.openIDToken(hash: Self.hash(11), kind: .access, now: t0) == token)
            #expect(try await repo.openIDToken(hash: Self.hash(12), kind: "device", now: t0) == custom)

            // A client with an empty list of logout URIs and no secret.
            let cli = OpenIDClientRecord(
                id: "oc_cli", name: "Command line", secretHash: nil, redirectURIs: ["http://127.0.0.1/callback"], postLogoutRedirectURIs: [],
                scopes: ["openid", "offline_access"], createdAt: t0.addingTimeInterval(0.5), disabledAt: t0.addingTimeInterval(1.25))
            try await repo.addOpenIDClient(cli)
            #expect(try await repo.openIDClient(id: "oc_cli") == cli)
        }
    }
}
