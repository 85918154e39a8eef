import Foundation
import PasskeyStorage
import Testing

/// A sealed sign-in challenge, as the relying party hands it to storage: never saved, its key the nonce.
func makeSealed(_ key: String, expires: TimeInterval = 60) -> ChallengeRecord {
    ChallengeRecord(key: key, challenge: "sealed-" + key, ceremony: .authentication, createdAt: t0, expiresAt: t0.addingTimeInterval(expires))
}

/// Sealed sign-in challenges are never stored: storage records only their use, in the transaction that records the
/// sign-in, and of every completion of one ceremony exactly one is recorded, on every store.
@Suite("Storage conformance: sealed sign-in challenges")
struct SealedChallengeStorageTests {
    @Test("a sealed challenge is spent once, and only before it expires; the purge forgets spent ones that expired", arguments: Backend.available)
    func spend(backend: Backend) async throws {
        try await backend.withRepository { repo in
            #expect(try await repo.spendChallenge(key: "n1", expiresAt: t0.addingTimeInterval(60), now: t0))
            #expect(try await !repo.spendChallenge(key: "n1", expiresAt: t0.addingTimeInterval(60), now: t0))
            // Expired: nothing to spend.
            #expect(try await !repo.spendChallenge(key: "n2", expiresAt: t0, now: t0))
            // Nothing was stored for them: the pending count stays at zero.
            #expect(try await repo.challengeCount() == 0)
            // The purge keeps the record of its use for a while past its expiry: an instance whose clock is behind (here
            // `now` t0 + 5) still finds it spent. Once that while is over, the record goes: the same key would be new
            // again (no sealed challenge can carry it then, as its expiry is sealed in with it).
            let retention = ChallengeRecord.spentRecordRetention
            #expect(try await repo.spendChallenge(key: "p", expiresAt: t0.addingTimeInterval(10), now: t0))
            #expect(try await repo.spendChallenge(key: "q", expiresAt: t0.addingTimeInterval(100), now: t0))
            _ = try await repo.purgeExpiredChallenges(now: t0.addingTimeInterval(20))
            #expect(try await !repo.spendChallenge(key: "p", expiresAt: t0.addingTimeInterval(10), now: t0.addingTimeInterval(5)))
            _ = try await repo.purgeExpiredChallenges(now: t0.addingTimeInterval(10 + retention))
            #expect(try await repo.spendChallenge(key: "p", expiresAt: t0.addingTimeInterval(10), now: t0.addingTimeInterval(5)))
            #expect(try await !repo.spendChallenge(key: "q", expiresAt: t0.addingTimeInterval(100), now: t0.addingTimeInterval(5)))
        }
    }

    @Test("of 50 concurrent spenders of one sealed challenge exactly one spends it", arguments: Backend.available)
    func concurrentSpend(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let winners = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<50 {
                    group.addTask { (try? await repo.spendChallenge(key: "race", expiresAt: t0.addingTimeInterval(60), now: t0)) == true }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1)
        }
    }

    @Test("a sign-in recorded with its sealed challenge: once; a spent or expired one records nothing", arguments: Backend.available)
    func recordSpending(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let ann = makeUser("ann", handle: 1)
            try await repo.register(makeCredential(1, user: ann, signCount: 5), for: ann)
            let expiry = t0.addingTimeInterval(60)
            try await repo.recordSignIn(
                credentialID: [1, 1, 1], expectedSignCount: 5, newSignCount: 6, backupState: true, at: t0, spending: .sealed(key: "s1", expiresAt: expiry))
            let moved = try #require(try await repo.credential(id: [1, 1, 1]))
            #expect(moved.signCount == 6 && moved.backupState && moved.lastUsedAt == t0)
            #expect(try await repo.user(id: ann.id)?.lastSignInAt == t0)
            // The same challenge again, with a counter that fits: refused, nothing written.
            #expect(await storageCode {
                try await repo.recordSignIn(
                    credentialID: [1, 1, 1], expectedSignCount: 6, newSignCount: 7, backupState: false, at: t0, spending: .sealed(key: "s1", expiresAt: expiry))
            } == .challengeConsumed)
            // Expired at the sign-in's time: refused, nothing written, and the key is not spent.
            #expect(await storageCode {
                try await repo.recordSignIn(
                    credentialID: [1, 1, 1], expectedSignCount: 6, newSignCount: 7, backupState: false, at: t0.addingTimeInterval(61),
                    spending: .sealed(key: "s2", expiresAt: expiry))
            } == .challengeConsumed)
            #expect(try await repo.spendChallenge(key: "s2", expiresAt: expiry, now: t0))
            // A counter that moved meanwhile: the counter's answer, and the key is left for the caller to burn.
            #expect(await storageCode {
                try await repo.recordSignIn(
                    credentialID: [1, 1, 1], expectedSignCount: 3, newSignCount: 7, backupState: false, at: t0, spending: .sealed(key: "s3", expiresAt: expiry))
            } == .counterConflict)
            #expect(await storageCode {
                try await repo.recordSignIn(
                    credentialID: [9], expectedSignCount: 0, newSignCount: 1, backupState: false, at: t0, spending: .sealed(key: "s4", expiresAt: expiry))
            } == .notFound)
            // A spent challenge answers first, whatever else is wrong.
            #expect(await storageCode {
                try await repo.recordSignIn(
                    credentialID: [9], expectedSignCount: 0, newSignCount: 1, backupState: false, at: t0, spending: .sealed(key: "s1", expiresAt: expiry))
            } == .challengeConsumed)
            let stored = try await repo.credential(id: [1, 1, 1])
            #expect(stored?.signCount == 6 && stored?.backupState == true)
        }
    }

    @Test("a whole sign-in with a sealed challenge: the lookup gives it back until it is spent or expired; refusals spend it too",
        arguments: Backend.available)
    func completeSignIn(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let ann = makeUser("ann", handle: 1)
            try await repo.register(makeCredential(1, user: ann, signCount: 5), for: ann)
            let first = makeSealed("a")
            let seen = try await repo.completeSignIn(challenge: .sealed(first), credentialID: [1, 1, 1], now: t0) { lookup in
                (SignInWrite.record(expectedSignCount: lookup.credential?.signCount ?? 0, newSignCount: 9, backupState: false, at: t0), lookup)
            }
            #expect(seen.challenge == first && seen.credential?.signCount == 5 && seen.owner?.username == "ann")
            #expect(seen.ownerCredentialIDs == [[1, 1, 1]])
            #expect(try await repo.credential(id: [1, 1, 1])?.signCount == 9)
            // Spent: the lookup no longer gives it, and a decision to record anyway fails without writing.
            #expect(try await repo.lookUpSignIn(challenge: .sealed(first), credentialID: [1, 1, 1], now: t0).challenge == nil)
            #expect(await storageCode {
                _ = try await repo.completeSignIn(challenge: .sealed(first), credentialID: [1, 1, 1], now: t0) { _ in
                    (SignInWrite.record(expectedSignCount: 9, newSignCount: 10, backupState: false, at: t0), 0)
                }
            } == .challengeConsumed)
            #expect(try await repo.credential(id: [1, 1, 1])?.signCount == 9)

            // Refused: the challenge is spent, nothing else changes.
            let refused = makeSealed("b")
            _ = try await repo.completeSignIn(challenge: .sealed(refused), credentialID: [1, 1, 1], now: t0) { _ in (SignInWrite.burn, 0) }
            #expect(try await repo.lookUpSignIn(challenge: .sealed(refused), credentialID: [1, 1, 1], now: t0).challenge == nil)
            #expect(try await repo.credential(id: [1, 1, 1])?.signCount == 9)

            // A decision that does not fit the stored counter fails the write, and the challenge is spent all the same.
            let conflicting = makeSealed("c")
            #expect(await storageCode {
                _ = try await repo.completeSignIn(challenge: .sealed(conflicting), credentialID: [1, 1, 1], now: t0) { _ in
                    (SignInWrite.record(expectedSignCount: 3, newSignCount: 10, backupState: false, at: t0), 0)
                }
            } == .counterConflict)
            #expect(try await repo.lookUpSignIn(challenge: .sealed(conflicting), credentialID: [1, 1, 1], now: t0).challenge == nil)

            // Expired: not given to the decision.
            let expired = try await repo.completeSignIn(challenge: .sealed(makeSealed("d", expires: 1)), credentialID: [1, 1, 1], now: t0.addingTimeInterval(2)) {
                lookup in (SignInWrite.nothing, lookup.challenge == nil && lookup.credential != nil)
            }
            #expect(expired)
            // A stored challenge's key is another name space: a sealed challenge never finds one, nor spends it.
            try await repo.saveChallenge(makeChallenge("e"))
            #expect(try await repo.lookUpSignIn(challenge: .sealed(makeSealed("e")), credentialID: [1, 1, 1], now: t0).challenge == makeSealed("e"))
            #expect(try await repo.spendChallenge(key: "e", expiresAt: t0.addingTimeInterval(60), now: t0))
            #expect(try await repo.challenge(key: "e", ceremony: .authentication, now: t0) != nil)
        }
    }

    @Test("racing whole sign-ins of one sealed ceremony: exactly one is recorded, the others find it spent", arguments: Backend.available)
    func completeSignInReplay(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let ann = makeUser("ann", handle: 1)
            try await repo.register(makeCredential(1, user: ann, signCount: 0), for: ann)
            let sealed = makeSealed("auth")
            let outcomes = await withTaskGroup(of: (recorded: Bool, code: StorageError.Code?).self) { group in
                for _ in 0..<30 {
                    group.addTask {
                        var recorded = false
                        let code = await storageCode {
                            recorded = try await repo.completeSignIn(challenge: .sealed(sealed), credentialID: [1, 1, 1], now: t0) { lookup in
                                // A passkey without a counter (0 stays 0): the counter cannot tell the attempts apart.
                                guard lookup.challenge != nil, let stored = lookup.credential else { return (SignInWrite.nothing, false) }
                                return (SignInWrite.record(expectedSignCount: stored.signCount, newSignCount: 0, backupState: false, at: t0), true)
                            }
                        }
                        return (recorded, code)
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0.recorded && $0.code == nil }.count == 1, "\(outcomes)")
            #expect(outcomes.allSatisfy { ($0.recorded && $0.code == nil) || $0.code == .challengeConsumed || (!$0.recorded && $0.code == nil) }, "\(outcomes)")
        }
    }

    @Test("a new account registered with its sealed challenge: once; a spent or expired one, or a refused registration, writes nothing",
        arguments: Backend.available)
    func registerSpending(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let expiry = t0.addingTimeInterval(60)
            let ann = makeUser("ann", handle: 1)
            try await repo.register(makeCredential(1, user: ann), for: ann, spending: .sealed(key: "r1", expiresAt: expiry), now: t0)
            #expect(try await repo.user(id: ann.id)?.username == "ann")
            #expect(try await repo.credentials(userID: ann.id).map(\.id) == [[1, 1, 1]])
            #expect(try await !repo.spendChallenge(key: "r1", expiresAt: expiry, now: t0))
            // Nothing was stored for the ceremony itself.
            #expect(try await repo.challengeCount() == 0)

            // The same challenge again, for another account: refused, nothing written.
            let bob = makeUser("bob", handle: 2)
            #expect(await storageCode {
                try await repo.register(makeCredential(2, user: bob), for: bob, spending: .sealed(key: "r1", expiresAt: expiry), now: t0)
            } == .challengeConsumed)
            #expect(try await repo.user(id: bob.id) == nil)
            #expect(try await repo.credential(id: [2, 2, 2]) == nil)
            // Expired at the registration's time: refused, nothing written, and the key is not spent.
            #expect(await storageCode {
                try await repo.register(makeCredential(2, user: bob), for: bob, spending: .sealed(key: "r2", expiresAt: expiry), now: expiry)
            } == .challengeConsumed)
            #expect(try await repo.user(id: bob.id) == nil)
            // A name taken, or a credential ID registered: the registration's answer, and the key is left unspent for the
            // caller to burn.
            let otherAnn = makeUser("ANN", handle: 3)
            #expect(await storageCode {
                try await repo.register(makeCredential(3, user: otherAnn), for: otherAnn, spending: .sealed(key: "r3", expiresAt: expiry), now: t0)
            } == .usernameTaken)
            #expect(await storageCode {
                try await repo.register(makeCredential(1, user: bob), for: bob, spending: .sealed(key: "r4", expiresAt: expiry), now: t0)
            } == .credentialExists)
            #expect(try await repo.user(id: otherAnn.id) == nil)
            #expect(try await repo.user(id: bob.id) == nil)
            #expect(try await repo.spendChallenge(key: "r3", expiresAt: expiry, now: t0))
            #expect(try await repo.spendChallenge(key: "r4", expiresAt: expiry, now: t0))
            // The ceremony's account exists already (the ceremony completed before, and the record of its use was lost):
            // refused, and no passkey joins that account.
            #expect(await storageCode {
                try await repo.register(makeCredential(5, user: ann), for: ann, spending: .sealed(key: "r5", expiresAt: expiry), now: t0)
            } == .challengeConsumed)
            #expect(try await repo.credentials(userID: ann.id).map(\.id) == [[1, 1, 1]])
            #expect(try await repo.spendChallenge(key: "r5", expiresAt: expiry, now: t0))
            // Whether a sealed challenge was spent, read without spending it.
            #expect(try await repo.isChallengeSpent(key: "r1", expiresAt: expiry))
            #expect(try await !repo.isChallengeSpent(key: "r1", expiresAt: t0.addingTimeInterval(61)))
            #expect(try await !repo.isChallengeSpent(key: "r6", expiresAt: expiry))
        }
    }

    @Test("racing registrations of one sealed ceremony: exactly one account is created, the others find it spent", arguments: Backend.available)
    func registerSpendingRace(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let codes = await withTaskGroup(of: StorageError.Code?.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        // Each attempt a different account and passkey, as replays of one response with other names are.
                        let user = makeUser("racer\(index)", handle: UInt8(index + 1))
                        return await storageCode {
                            try await repo.register(
                                makeCredential(UInt8(index + 1), user: user), for: user, spending: .sealed(key: "race", expiresAt: t0.addingTimeInterval(60)),
                                now: t0)
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(codes.filter { $0 == nil }.count == 1, "\(codes)")
            #expect(codes.filter { $0 == .challengeConsumed }.count == 19, "\(codes)")
            let accounts = try await repo.users(matching: "racer", limit: 50, offset: 0)
            #expect(accounts.count == 1)
        }
    }
}
