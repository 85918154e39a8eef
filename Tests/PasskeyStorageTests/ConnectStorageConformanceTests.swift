import Foundation
import PasskeyStorage
import Testing

@Suite("Storage conformance: signing keys, API keys, connect tokens, external users")
struct ConnectStorageConformanceTests {
    func key(_ id: String, at time: Date = t0) -> SigningKeyRecord {
        SigningKeyRecord(id: id, privateKeyPEM: "-----BEGIN PRIVATE KEY-----\n\(id)\n-----END PRIVATE KEY-----", createdAt: time)
    }

    @Test("the first signing key is created once, even by concurrent first calls", arguments: Backend.available)
    func ensureSigningKey(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let results = try await withThrowingTaskGroup(of: [SigningKeyRecord].self) { group in
                for index in 0..<20 {
                    group.addTask { try await repo.ensureSigningKey { self.key("k\(index)") } }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let stored = try await repo.signingKeys()
            #expect(stored.count == 1)
            #expect(Set(results.map { $0.map { $0.id } }) == [stored.map { $0.id }], "every caller sees the one key")
            #expect(stored[0].retiresAt == nil)
            #expect(stored[0].privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        }
    }

    @Test("rotation retires the current keys in the same step and keeps them until their time", arguments: Backend.available)
    func rotation(backend: Backend) async throws {
        try await backend.withRepository { repo in
            _ = try await repo.ensureSigningKey { self.key("old") }
            try await repo.addSigningKey(key("new", at: t0.addingTimeInterval(10)), retiringOthersAt: t0.addingTimeInterval(100))
            let keys = try await repo.signingKeys()
            #expect(keys.map(\.id) == ["new", "old"], "newest first")
            #expect(keys[0].retiresAt == nil)
            #expect(keys[1].retiresAt == t0.addingTimeInterval(100))
            // ensureSigningKey does not add a key while one signs.
            #expect(try await repo.ensureSigningKey { self.key("extra") }.count == 2)
            #expect(try await repo.deleteRetiredSigningKeys(now: t0.addingTimeInterval(99)) == 0)
            #expect(try await repo.deleteRetiredSigningKeys(now: t0.addingTimeInterval(100)) == 1)
            #expect(try await repo.signingKeys().map(\.id) == ["new"])
        }
    }

    @Test("a rotation retires every earlier key by its time: overlap 0 after a compromise leaves none of them", arguments: Backend.available)
    func compromiseRotation(backend: Backend) async throws {
        try await backend.withRepository { repo in
            _ = try await repo.ensureSigningKey { self.key("first") }
            try await repo.addSigningKey(key("second", at: t0.addingTimeInterval(10)), retiringOthersAt: t0.addingTimeInterval(86_400))
            // A second rotation with a longer overlap does not extend the first key's life.
            try await repo.addSigningKey(key("third", at: t0.addingTimeInterval(20)), retiringOthersAt: t0.addingTimeInterval(200_000))
            var retires = Dictionary(uniqueKeysWithValues: try await repo.signingKeys().map { ($0.id, $0.retiresAt) })
            #expect(retires["first"] == t0.addingTimeInterval(86_400))
            #expect(retires["second"] == t0.addingTimeInterval(200_000))
            // A compromise: overlap 0 retires both earlier keys now, not only the one that was signing.
            try await repo.addSigningKey(key("fresh", at: t0.addingTimeInterval(30)), retiringOthersAt: t0.addingTimeInterval(30))
            retires = Dictionary(uniqueKeysWithValues: try await repo.signingKeys().map { ($0.id, $0.retiresAt) })
            #expect(retires["first"] == t0.addingTimeInterval(30) && retires["second"] == t0.addingTimeInterval(30))
            #expect(retires["third"] == t0.addingTimeInterval(30) && retires["fresh"] == .some(nil))
            #expect(try await repo.deleteRetiredSigningKeys(now: t0.addingTimeInterval(30)) == 3)
            #expect(try await repo.signingKeys().map(\.id) == ["fresh"])
        }
    }

    @Test("API keys are found by hash, listed, revoked, touched", arguments: Backend.available)
    func apiKeys(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let first = APIKeyRecord(id: "a", name: "shop", prefix: "pks_abcdef", secretHash: [1, 2, 3], createdAt: t0)
            let second = APIKeyRecord(id: "b", name: "crm", prefix: "pks_ghijkl", secretHash: [4, 5, 6], createdAt: t0.addingTimeInterval(1))
            try await repo.addAPIKey(first)
            try await repo.addAPIKey(second)
            #expect(try await repo.apiKeys().map(\.id) == ["a", "b"])
            #expect(try await repo.apiKey(secretHash: [4, 5, 6]) == second)
            #expect(try await repo.apiKey(secretHash: [9]) == nil)
            try await repo.touchAPIKey(id: "a", at: t0.addingTimeInterval(5))
            try await repo.revokeAPIKey(id: "a", at: t0.addingTimeInterval(6))
            try await repo.revokeAPIKey(id: "a", at: t0.addingTimeInterval(7))
            let revoked = try #require(try await repo.apiKey(secretHash: [1, 2, 3]))
            #expect(revoked.lastUsedAt == t0.addingTimeInterval(5))
            #expect(revoked.revokedAt == t0.addingTimeInterval(6), "the first revocation time stays")
            #expect(await storageCode { try await repo.revokeAPIKey(id: "zzz", at: t0) } == .notFound)
        }
    }

    @Test("revoking an API key deletes the unused connect tokens it minted, and only those", arguments: Backend.available)
    func revokeDeletesMintedTokens(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let user = makeUser("ann", handle: 1)
            try await repo.register(makeCredential(1, user: user), for: user)
            try await repo.addAPIKey(APIKeyRecord(id: "a", name: "shop", prefix: "pks_abcdef", secretHash: [1], createdAt: t0))
            try await repo.addAPIKey(APIKeyRecord(id: "b", name: "crm", prefix: "pks_ghijkl", secretHash: [2], createdAt: t0))
            func token(_ hash: UInt8, key: String?) -> ConnectTokenRecord {
                ConnectTokenRecord(
                    hash: [hash], type: "passkey-append", userID: user.id, singleUse: true, createdAt: t0, expiresAt: t0.addingTimeInterval(300),
                    apiKeyID: key)
            }
            for (hash, key) in [(1, "a"), (2, "a"), (3, "b"), (4, nil)] as [(UInt8, String?)] { try await repo.saveConnectToken(token(hash, key: key)) }
            #expect(try await repo.connectToken(hash: [1], now: t0)?.apiKeyID == "a", "the minting key is stored")
            try await repo.revokeAPIKey(id: "a", at: t0.addingTimeInterval(1))
            #expect(try await repo.connectToken(hash: [1], now: t0) == nil)
            #expect(try await repo.connectToken(hash: [2], now: t0) == nil)
            #expect(try await repo.connectToken(hash: [3], now: t0) == token(3, key: "b"), "another key's token stays")
            #expect(try await repo.connectToken(hash: [4], now: t0) == token(4, key: nil), "a token without a key stays")
        }
    }

    @Test("disabling an account deletes its connect tokens (enabling does not bring them back) and stops a passkey being added to it", arguments: Backend.available)
    func disablingEndsTokensAndAppends(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let (ann, bob) = try await registerAnnAndBob(repo)
            for (hash, user) in [(UInt8(1), ann), (2, bob)] {
                try await repo.saveConnectToken(
                    ConnectTokenRecord(hash: [hash], type: "passkey-list", userID: user.id, singleUse: false, createdAt: t0, expiresAt: t0.addingTimeInterval(300)))
            }
            // Options to add a passkey to ann, made before she is disabled.
            var append = makeChallenge("append", .registration)
            append.userID = ann.id
            append.forExistingUser = true
            try await repo.saveChallenge(append)

            var bobs = makeChallenge("bobs", .registration)
            bobs.userID = bob.id
            try await repo.saveChallenge(bobs)

            _ = try await repo.setUserDisabled(id: ann.id, disabledAt: t0)
            #expect(try await repo.connectToken(hash: [1], now: t0) == nil)
            #expect(try await repo.connectToken(hash: [2], now: t0) != nil, "another account's tokens stay")
            // Her pending ceremonies are spent; another account's stay.
            #expect(try await repo.challenge(key: "append", ceremony: .registration, now: t0) == nil)
            #expect(try await repo.challenge(key: "bobs", ceremony: .registration, now: t0) != nil)
            // Options stored after the disable (as a ceremony racing it could) still add nothing.
            append.key = "append-2"
            append.challenge = "challenge-append-2"
            try await repo.saveChallenge(append)
            let added = await storageCode { try await repo.register(makeCredential(3, user: ann), for: ann, spending: .stored(key: "append-2"), now: t0) }
            #expect(added == .accountDisabled)
            #expect(try await repo.credential(id: [3, 3, 3]) == nil)

            _ = try await repo.setUserDisabled(id: ann.id, disabledAt: nil)
            #expect(try await repo.connectToken(hash: [1], now: t0) == nil)
            // Enabling does not delete anything.
            #expect(try await repo.connectToken(hash: [2], now: t0) != nil)
        }
    }

    @Test("connect tokens: read without consuming, consumed once under concurrency, expire, go with their user", arguments: Backend.available)
    func connectTokens(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let user = makeUser("ann", handle: 1)
            try await repo.register(makeCredential(1, user: user), for: user)
            let token = ConnectTokenRecord(hash: [7, 7], type: "passkey-append", userID: user.id, singleUse: true, createdAt: t0, expiresAt: t0.addingTimeInterval(300))
            try await repo.saveConnectToken(token)
            #expect(try await repo.connectToken(hash: [7, 7], now: t0) == token)
            #expect(try await repo.connectToken(hash: [7, 7], now: t0.addingTimeInterval(300)) == nil, "expired at its time")
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<50 { group.addTask { try await repo.consumeConnectToken(hash: [7, 7], now: t0) != nil } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1)
            #expect(try await repo.connectToken(hash: [7, 7], now: t0) == nil)

            try await repo.saveConnectToken(ConnectTokenRecord(hash: [8], type: "passkey-list", userID: user.id, singleUse: false, createdAt: t0, expiresAt: t0.addingTimeInterval(10)))
            try await repo.saveConnectToken(ConnectTokenRecord(hash: [9], type: "passkey-list", userID: user.id, singleUse: false, createdAt: t0, expiresAt: t0.addingTimeInterval(1000)))
            #expect(try await repo.purgeExpiredTokens(now: t0.addingTimeInterval(20)) == 1)
            try await repo.deleteUser(id: user.id)
            #expect(try await repo.connectToken(hash: [9], now: t0) == nil, "a deleted user's tokens go with it")
        }
    }

    @Test(
        "an account token is redeemed once, with its registration and the challenge, replacing the other passkeys when asked; a refused redemption writes nothing",
        arguments: Backend.available)
    func redeemAccountToken(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let (ann, bob) = try await registerAnnAndBob(repo)
            try await repo.register(makeCredential(3, user: ann), for: ann)
            func token(_ hash: UInt8, for user: UserRecord, type: String = "account-recovery-reset", expires: TimeInterval = 86_400) -> ConnectTokenRecord {
                ConnectTokenRecord(hash: [hash], type: type, userID: user.id, singleUse: true, createdAt: t0, expiresAt: t0.addingTimeInterval(expires))
            }
            func challenge(_ key: String, for user: UserRecord) -> ChallengeRecord {
                ChallengeRecord(
                    key: key, challenge: "challenge-" + key, ceremony: .registration, userID: user.id, username: user.username,
                    displayName: user.displayName, userHandle: user.userHandle, forExistingUser: true, createdAt: t0,
                    expiresAt: t0.addingTimeInterval(60))
            }
            try await repo.saveConnectToken(token(1, for: ann))
            try await repo.saveConnectToken(token(2, for: ann, expires: 10))
            try await repo.saveConnectToken(token(3, for: bob))
            for key in ["r1", "r2", "r3", "r4"] { try await repo.saveChallenge(challenge(key, for: ann)) }
            let fresh = makeCredential(9, user: ann)

            // Refused: an expired token, another account's token, an unknown one. Nothing is written, the challenge stays.
            for (hash, what) in [(2, "expired"), (3, "another account's"), (4, "unknown")] as [(UInt8, String)] {
                let code = await storageCode {
                    _ = try await repo.redeemAccountToken(
                        hash: [hash], registering: fresh, for: ann, consumingChallenge: "r1", replacingOtherPasskeys: true, now: t0.addingTimeInterval(20))
                }
                #expect(code == .notFound, "\(what)")
            }
            #expect(try await repo.credential(id: fresh.id) == nil)
            #expect(try await repo.challenge(key: "r1", ceremony: .registration, now: t0) != nil, "the challenge is not consumed")
            #expect(try await repo.connectToken(hash: [3], now: t0) != nil, "bob's token is untouched")
            // A consumed challenge: the token stays usable.
            _ = try await repo.consumeChallenge(key: "r2", ceremony: .registration, now: t0)
            let consumed = await storageCode {
                _ = try await repo.redeemAccountToken(hash: [1], registering: fresh, for: ann, consumingChallenge: "r2", replacingOtherPasskeys: true, now: t0)
            }
            #expect(consumed == .challengeConsumed)
            #expect(try await repo.connectToken(hash: [1], now: t0) != nil)

            // Redeemed: the new passkey in, ann's others out, bob's untouched, token and challenge used up.
            let deleted = try await repo.redeemAccountToken(
                hash: [1], registering: fresh, for: ann, consumingChallenge: "r1", replacingOtherPasskeys: true, now: t0)
            #expect(Set(deleted) == [[1, 1, 1], [3, 3, 3]])
            #expect(try await repo.credentials(userID: ann.id).map(\.id) == [fresh.id])
            #expect(try await repo.credentials(userID: bob.id).map(\.id) == [[2, 2, 2]])
            #expect(try await repo.connectToken(hash: [1], now: t0) == nil)
            #expect(try await repo.challenge(key: "r1", ceremony: .registration, now: t0) == nil)
            let again = await storageCode {
                _ = try await repo.redeemAccountToken(
                    hash: [1], registering: makeCredential(10, user: ann), for: ann, consumingChallenge: "r3", replacingOtherPasskeys: false, now: t0)
            }
            #expect(again == .notFound, "single use")

            // Without replacing, the account keeps its passkeys.
            try await repo.saveConnectToken(token(5, for: ann, type: "account-recovery"))
            let kept = try await repo.redeemAccountToken(
                hash: [5], registering: makeCredential(11, user: ann), for: ann, consumingChallenge: "r4", replacingOtherPasskeys: false, now: t0)
            #expect(kept.isEmpty)
            #expect(Set(try await repo.credentials(userID: ann.id).map(\.id)) == [fresh.id, [11, 11, 11]])

            // Revoking deletes only the named types of the named account.
            try await repo.saveConnectToken(token(6, for: ann, type: "account-recovery"))
            try await repo.saveConnectToken(token(7, for: ann, type: "passkey-list"))
            try await repo.saveConnectToken(token(8, for: bob, type: "account-recovery"))
            // Token 6, and token 2 (expired, not yet purged).
            #expect(try await repo.deleteConnectTokens(userID: ann.id, types: ["account-recovery", "account-recovery-reset"]) == 2)
            #expect(try await repo.connectToken(hash: [7], now: t0) != nil)
            #expect(try await repo.connectToken(hash: [8], now: t0) != nil)
        }
    }

    @Test("expired tokens of the named types are taken once, for their expiry to be reported; others stay", arguments: Backend.available)
    func takeExpiredConnectTokens(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let (ann, bob) = try await registerAnnAndBob(repo)
            for (hash, user, type, expires) in [
                (1, ann, "account-link", 10.0), (2, bob, "account-link-reset", 20), (3, ann, "account-link", 1000), (4, ann, "passkey-list", 10),
            ] as [(UInt8, UserRecord, String, TimeInterval)] {
                try await repo.saveConnectToken(
                    ConnectTokenRecord(hash: [hash], type: type, userID: user.id, singleUse: true, createdAt: t0, expiresAt: t0.addingTimeInterval(expires)))
            }
            let takers = try await withThrowingTaskGroup(of: [ConnectTokenRecord].self) { group in
                for _ in 0..<8 {
                    group.addTask { try await repo.takeExpiredConnectTokens(types: ["account-link", "account-link-reset"], now: t0.addingTimeInterval(30)) }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(takers.map(\.hash) == [[1], [2]], "each expired link once, oldest first: \(takers.map(\.hash))")
            #expect(takers.map(\.userID) == [ann.id, bob.id])
            #expect(try await repo.connectToken(hash: [3], now: t0) != nil, "not expired")
            #expect(try await repo.purgeExpiredTokens(now: t0.addingTimeInterval(30)) == 1, "the expired list token is left to the plain purge")
        }
    }

    @Test("a signed token id is accepted once, even by concurrent verifiers; ids are purged after expiry", arguments: Backend.available)
    func tokenReplay(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let firsts = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<50 { group.addTask { try await repo.markTokenUsed(id: "jti-1", expiresAt: t0.addingTimeInterval(300)) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(firsts == 1)
            #expect(try await repo.purgeExpiredTokens(now: t0.addingTimeInterval(301)) == 1)
        }
    }

    @Test("external users are linked once; a taken name is refused; links go with the user", arguments: Backend.available)
    func externalUsers(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let ann = makeUser("ann", handle: 1)
            let linked = try await repo.linkedUser(externalID: "ext-1", orCreate: ann)
            #expect(linked == ann)
            let again = try await repo.linkedUser(externalID: "ext-1", orCreate: makeUser("other", handle: 2))
            #expect(again.id == ann.id, "an existing link wins over the new user")
            #expect(try await repo.user(username: "other") == nil)
            #expect(try await repo.user(externalID: "ext-1")?.id == ann.id)
            #expect(try await repo.externalID(userID: ann.id) == "ext-1")
            #expect(await storageCode { _ = try await repo.linkedUser(externalID: "ext-2", orCreate: makeUser("ANN", handle: 3)) } == .usernameTaken)
            #expect(try await repo.user(externalID: "ext-2") == nil)
            try await repo.deleteUser(id: ann.id)
            #expect(try await repo.user(externalID: "ext-1") == nil)
            #expect(try await repo.externalID(userID: ann.id) == nil)
        }
    }

    @Test("a linked account takes new names; a name another account holds (in any case) is refused and changes nothing", arguments: Backend.available)
    func updateNames(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let ann = try await repo.linkedUser(externalID: "ext-1", orCreate: makeUser("ann", handle: 1))
            let bob = try await repo.linkedUser(externalID: "ext-2", orCreate: makeUser("bob", handle: 2))
            let renamed = try await repo.updateNames(userID: ann.id, username: "ann.lee", displayName: "Ann Lee")
            #expect(renamed.username == "ann.lee" && renamed.displayName == "Ann Lee" && renamed.id == ann.id)
            #expect(renamed.userHandle == ann.userHandle && renamed.createdAt == ann.createdAt)
            #expect(try await repo.user(username: "ANN.LEE")?.id == ann.id, "found by the new name's key")
            #expect(try await repo.user(username: "ann") == nil, "the old name is free again")
            #expect(try await repo.user(externalID: "ext-1") == renamed)
            // Only the display name; then only the name.
            #expect(try await repo.updateNames(userID: ann.id, username: nil, displayName: "A. Lee").username == "ann.lee")
            #expect(try await repo.updateNames(userID: ann.id, username: "ann", displayName: nil).displayName == "A. Lee")
            // Its own name again, in another case: not a conflict with itself.
            #expect(try await repo.updateNames(userID: ann.id, username: "Ann", displayName: nil).username == "Ann")
            #expect(await storageCode { _ = try await repo.updateNames(userID: ann.id, username: "BOB", displayName: "Bob?") } == .usernameTaken)
            #expect(try await repo.user(id: ann.id)?.username == "Ann")
            #expect(try await repo.user(id: ann.id)?.displayName == "A. Lee", "a refused rename changes nothing")
            #expect(try await repo.user(id: bob.id)?.username == "bob")
            #expect(await storageCode { _ = try await repo.updateNames(userID: "nobody", username: nil, displayName: "x") } == .notFound)
        }
    }

    @Test("a registration that replaces a passkey deletes the old one in its transaction, and only the owner's", arguments: Backend.available)
    func replacingRegistration(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let (ann, _) = try await registerAnnAndBob(repo)
            var reset = makeChallenge("reset", .registration)
            reset.replacesCredentialID = [1, 1, 1]
            try await repo.saveChallenge(reset)
            #expect(try await repo.challenge(key: "reset", ceremony: .registration, now: t0)?.replacesCredentialID == [1, 1, 1])
            try await repo.register(makeCredential(3, user: ann), for: ann, spending: .stored(key: "reset"), now: t0)
            #expect(try await repo.credentials(userID: ann.id).map(\.id) == [[3, 3, 3]])

            // Naming another user's credential deletes nothing.
            var foreign = makeChallenge("foreign", .registration)
            foreign.replacesCredentialID = [2, 2, 2]
            try await repo.saveChallenge(foreign)
            try await repo.register(makeCredential(4, user: ann), for: ann, spending: .stored(key: "foreign"), now: t0)
            #expect(try await repo.credential(id: [2, 2, 2]) != nil)
        }
    }

    @Test("deleting users while their passkey resets complete: nothing deadlocks", arguments: Backend.available)
    func deleteUserDuringReset(backend: Backend) async throws {
        try await backend.withRepository { repo in
            // A reset inserts the new credential (its foreign-key check locks the owner) and deletes the replaced one;
            // a user's deletion locks the credentials, then the owner. The reset must take the replaced credential first.
            let users = (0..<24).map { makeUser("user\($0)", handle: UInt8($0 + 1)) }
            for (index, user) in users.enumerated() {
                try await repo.register(makeCredential(UInt8(index + 1), user: user), for: user)
                var reset = makeChallenge("reset\(index)", .registration)
                reset.replacesCredentialID = [UInt8(index + 1), UInt8(index + 1), UInt8(index + 1)]
                reset.userID = user.id
                reset.forExistingUser = true
                try await repo.saveChallenge(reset)
            }
            let codes = await withTaskGroup(of: StorageError.Code?.self) { group in
                for (index, user) in users.enumerated() {
                    group.addTask { await storageCode { try await repo.deleteUser(id: user.id) } }
                    group.addTask {
                        let replacement = makeCredential(UInt8(index + 101), user: user)
                        return await storageCode { try await repo.register(replacement, for: user, spending: .stored(key: "reset\(index)"), now: t0) }
                    }
                }
                return await group.reduce(into: [StorageError.Code?]()) { $0.append($1) }
            }
            #expect(!codes.contains(.unavailable), "\(codes)")
            #expect(!codes.contains(StorageError.Code(rawValue: "unexpected")), "\(codes)")
            // A reset that came after its user's deletion fails (`not_found`) and does not bring the account back.
            #expect(codes.allSatisfy { $0 == nil || $0 == .notFound }, "\(codes)")
            for user in users { #expect(try await repo.user(id: user.id) == nil) }
        }
    }
}
