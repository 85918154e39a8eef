public import Foundation

/// The OpenID Provider's clients, codes, tokens and sessions, in memory.
struct InMemoryOpenID {
    var clients: [OpenIDClientRecord] = []
    var codes: [[UInt8]: OpenIDCodeRecord] = [:]
    var tokens: [[UInt8]: OpenIDTokenRecord] = [:]
    var sessions: [[UInt8]: OpenIDSessionRecord] = [:]

    mutating func revoke(family: String) -> Int {
        let before = tokens.count
        tokens = tokens.filter { $0.value.grant.familyID != family }
        return before - tokens.count
    }
}

extension InMemoryRepository {
    public func addOpenIDClient(_ client: OpenIDClientRecord) throws(StorageError) {
        guard !openID.clients.contains(where: { $0.id == client.id }) else { throw StorageError(.recordExists, "client \(client.id) exists") }
        openID.clients.append(client)
    }

    public func openIDClients() -> [OpenIDClientRecord] { openID.clients }

    public func openIDClient(id: String) -> OpenIDClientRecord? { openID.clients.first { $0.id == id } }

    public func updateOpenIDClient(_ client: OpenIDClientRecord) throws(StorageError) {
        guard let index = openID.clients.firstIndex(where: { $0.id == client.id }) else { throw StorageError(.notFound, "no client \(client.id)") }
        openID.clients[index] = client
    }

    public func deleteOpenIDClient(id: String) throws(StorageError) {
        guard openID.clients.contains(where: { $0.id == id }) else { throw StorageError(.notFound, "no client \(id)") }
        openID.clients.removeAll { $0.id == id }
        openID.codes = openID.codes.filter { $0.value.grant.clientID != id }
        openID.tokens = openID.tokens.filter { $0.value.grant.clientID != id }
    }

    public func saveOpenIDCode(_ code: OpenIDCodeRecord) { openID.codes[code.hash] = code }

    public func redeemOpenIDCode(hash: [UInt8], now: Date) -> OpenIDCodeRedemption {
        guard var code = openID.codes[hash] else { return .unknown }
        if code.usedAt != nil {
            _ = openID.revoke(family: code.grant.familyID)
            return .reused(code)
        }
        guard code.expiresAt > now else { return .unknown }
        code.usedAt = now
        openID.codes[hash] = code
        return .redeemed(code)
    }

    public func saveOpenIDTokens(_ tokens: [OpenIDTokenRecord]) {
        for token in tokens { openID.tokens[token.hash] = token }
    }

    public func openIDToken(hash: [UInt8], kind: OpenIDTokenKind, now: Date) -> OpenIDTokenRecord? {
        guard let token = openID.tokens[hash], token.kind == kind, token.usedAt == nil, token.expiresAt > now else { return nil }
        return token
    }

    public func rotateOpenIDRefreshToken(hash: [UInt8], replacements: [OpenIDTokenRecord], now: Date) -> OpenIDRefreshRotation {
        guard var token = openID.tokens[hash], token.kind == .refresh else { return .unknown }
        if token.usedAt != nil {
            _ = openID.revoke(family: token.grant.familyID)
            openID.codes = openID.codes.filter { $0.value.grant.familyID != token.grant.familyID }
            return .reused(token)
        }
        guard token.expiresAt > now else { return .unknown }
        token.usedAt = now
        openID.tokens[hash] = token
        saveOpenIDTokens(replacements)
        return .rotated(token)
    }

    public func revokeOpenIDFamily(id: String) -> Int {
        openID.codes = openID.codes.filter { $0.value.grant.familyID != id }
        return openID.revoke(family: id)
    }

    public func saveOpenIDSession(_ session: OpenIDSessionRecord) { openID.sessions[session.hash] = session }

    public func openIDSession(hash: [UInt8], now: Date) -> OpenIDSessionRecord? {
        openID.sessions[hash].flatMap { $0.expiresAt > now ? $0 : nil }
    }

    public func deleteOpenIDSession(hash: [UInt8]) { openID.sessions[hash] = nil }

    public func purgeOpenIDRecords(now: Date) -> Int {
        let before = openID.codes.count + openID.tokens.count + openID.sessions.count
        openID.codes = openID.codes.filter { $0.value.expiresAt > now }
        openID.tokens = openID.tokens.filter { $0.value.expiresAt > now }
        openID.sessions = openID.sessions.filter { $0.value.expiresAt > now }
        return before - (openID.codes.count + openID.tokens.count + openID.sessions.count)
    }
}
