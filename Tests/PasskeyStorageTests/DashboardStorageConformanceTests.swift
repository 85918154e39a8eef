import Foundation
import PasskeyStorage
import Testing

@Suite("Storage conformance: events, admins, admin invites and sessions")
struct DashboardStorageConformanceTests {
    func event(_ kind: String, _ result: EventRecord.Result, at seconds: TimeInterval, user: String? = nil, code: String? = nil) -> EventRecord {
        EventRecord(
            time: t0.addingTimeInterval(seconds), kind: kind, result: result, code: code, explanation: code.map { "because \($0)" },
            userID: user.map { "id-\($0)" }, username: user, credentialIDPrefix: "AbCdEfGhIjKlMnOp", origin: "https://example.com",
            rpID: "example.com", expected: code == "origin_mismatch" ? "https://example.com" : nil,
            received: code == "origin_mismatch" ? "https://evil.example" : nil, clientIP: "10.0.0.1", userAgent: "Test/1.0", requestID: "r1")
    }

    @Test("events get increasing ids, list newest first with filters and a cursor, and keep every field", arguments: Backend.available)
    func events(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let first = try await repo.appendEvent(event(EventRecord.registrationVerify, .success, at: 0, user: "ann"))
            let second = try await repo.appendEvent(event(EventRecord.authenticationVerify, .failure, at: 1, user: "bob", code: "origin_mismatch"))
            let third = try await repo.appendEvent(event(EventRecord.authenticationVerify, .success, at: 2, user: "Ann"))
            #expect(first.id < second.id && second.id < third.id)
            #expect(first.credentialIDPrefix == "AbCdEfGh", "only 8 characters of a credential ID are kept")
            let all = try await repo.events(matching: EventFilter(), before: nil, limit: 10)
            #expect(all.map(\.id) == [third.id, second.id, first.id])
            #expect(all[1] == second, "every field round-trips")
            #expect(all[1].expected == "https://example.com" && all[1].received == "https://evil.example")
            #expect(try await repo.events(matching: EventFilter(result: .failure), before: nil, limit: 10).map(\.id) == [second.id])
            #expect(try await repo.events(matching: EventFilter(code: "origin_mismatch"), before: nil, limit: 10).map(\.id) == [second.id])
            #expect(try await repo.events(matching: EventFilter(user: "ann"), before: nil, limit: 10).map(\.id) == [third.id, first.id])
            #expect(try await repo.events(matching: EventFilter(user: "id-bob"), before: nil, limit: 10).map(\.id) == [second.id])
            #expect(try await repo.events(matching: EventFilter(), before: third.id, limit: 1).map(\.id) == [second.id])
            #expect(try await repo.events(matching: EventFilter(), before: first.id, limit: 10).isEmpty)

            // A user's events are found by their name in any case, in every script.
            let ivan = UserRecord(id: "id-Иван", userHandle: [9], username: "Иван", displayName: "Иван", isAnonymous: false, createdAt: t0)
            try await repo.register(makeCredential(9, user: ivan), for: ivan)
            let fourth = try await repo.appendEvent(event(EventRecord.authenticationVerify, .success, at: 3, user: "Иван"))
            #expect(try await repo.events(matching: EventFilter(user: "иван"), before: nil, limit: 10).map(\.id) == [fourth.id])
            // Also a name no account has (a failed sign-in for an unknown user), as the live log's filter matches it.
            let unknown = event(EventRecord.authenticationOptions, .success, at: 4, user: "Ärger")
            let fifth = try await repo.appendEvent(unknown)
            #expect(try await repo.events(matching: EventFilter(user: "äRGER"), before: nil, limit: 10).map(\.id) == [fifth.id])
            #expect(EventFilter(user: "äRGER").matches(unknown))
        }
    }

    @Test("hourly counts of registrations, sign-ins and failures, and retention", arguments: Backend.available)
    func countsAndRetention(backend: Backend) async throws {
        try await backend.withRepository { repo in
            // t0 is 1_800_000_000 = 500 000 hours exactly.
            _ = try await repo.appendEvent(event(EventRecord.registrationVerify, .success, at: 10))
            _ = try await repo.appendEvent(event(EventRecord.authenticationVerify, .success, at: 20))
            _ = try await repo.appendEvent(event(EventRecord.authenticationVerify, .success, at: 30))
            _ = try await repo.appendEvent(event(EventRecord.authenticationOptions, .success, at: 40))
            _ = try await repo.appendEvent(event(EventRecord.registrationVerify, .failure, at: 3600 + 5, code: "origin_mismatch"))
            _ = try await repo.appendEvent(event("admin.sign_in", .failure, at: 3600 + 6, code: "challenge_invalid"))
            // Passkeys added through the connect flow count as registrations, their failures as failures; its decisions
            // are not ceremonies.
            _ = try await repo.appendEvent(event(EventRecord.appendVerify, .success, at: 50))
            _ = try await repo.appendEvent(event(EventRecord.appendVerify, .failure, at: 3600 + 7, code: "origin_mismatch"))
            _ = try await repo.appendEvent(event("append.decision", .failure, at: 3600 + 8, code: "token_invalid"))
            let counts = try await repo.eventCounts(from: t0, to: t0.addingTimeInterval(7200))
            #expect(counts == [
                EventHourCount(hour: t0, registrations: 2, signIns: 2, failures: 0),
                EventHourCount(hour: t0.addingTimeInterval(3600), registrations: 0, signIns: 0, failures: 2),
            ])
            #expect(try await repo.eventCounts(from: t0.addingTimeInterval(3600), to: t0.addingTimeInterval(7200)).count == 1)
            #expect(EventHourCount.filled(counts, from: t0, to: t0.addingTimeInterval(3 * 3600)).count == 4)
            #expect(try await repo.deleteEvents(olderThan: t0.addingTimeInterval(3600)) == 5)
            #expect(try await repo.events(matching: EventFilter(), before: nil, limit: 10).count == 4)
        }
    }

    func adminCredential(_ id: UInt8, admin: AdminRecord) -> CredentialRecordEntry {
        CredentialRecordEntry(
            id: [UInt8](repeating: id, count: 16), userID: admin.id, publicKey: [1, 2, 3], algorithm: -7, signCount: 0,
            uvInitialized: true, transports: ["internal"], backupEligible: true, backupState: true,
            aaguid: "00000000-0000-0000-0000-000000000000", attestationFormat: "none", attestationType: "none", createdAt: t0)
    }

    @Test("an admin is added only by consuming an unexpired invite, once", arguments: Backend.available)
    func admins(backend: Backend) async throws {
        try await backend.withRepository { repo in
            #expect(try await repo.admins().isEmpty)
            try await repo.saveAdminInvite(AdminInviteRecord(hash: [7], createdAt: t0, expiresAt: t0.addingTimeInterval(60)))
            #expect(try await repo.adminInvite(hash: [7], now: t0) != nil)
            #expect(try await repo.adminInvite(hash: [7], now: t0.addingTimeInterval(60)) == nil, "expired")
            let admin = AdminRecord(userHandle: [UInt8](repeating: 9, count: 32), name: "ops", createdAt: t0)
            let credential = adminCredential(1, admin: admin)
            #expect(await storageCode { try await repo.addAdmin(admin, credential: credential, consumingInvite: [7], now: t0.addingTimeInterval(61)) } == .notFound)
            #expect(try await repo.admins().isEmpty, "nothing written with an expired invite")
            // Setup links from earlier starts, and one made once an admin exists.
            try await repo.saveAdminInvite(AdminInviteRecord(hash: [5], createdAt: t0, expiresAt: t0.addingTimeInterval(60)))
            try await repo.addAdmin(admin, credential: credential, consumingInvite: [7], now: t0)
            #expect(try await repo.admins() == [admin])
            #expect(try await repo.adminInvite(hash: [5], now: t0) == nil, "the first admin revokes the other setup links")
            try await repo.saveAdminInvite(AdminInviteRecord(hash: [6], createdAt: t0, expiresAt: t0.addingTimeInterval(60)))
            #expect(try await repo.admin(userHandle: admin.userHandle) == admin)
            #expect(try await repo.adminCredential(id: credential.id) == credential)
            #expect(try await repo.adminCredentials(adminID: admin.id) == [credential])
            #expect(try await repo.adminInvite(hash: [7], now: t0) == nil, "the invite is consumed")
            let other = AdminRecord(userHandle: [UInt8](repeating: 8, count: 32), name: "two", createdAt: t0)
            #expect(await storageCode { try await repo.addAdmin(other, credential: adminCredential(2, admin: other), consumingInvite: [7], now: t0) } == .notFound)
            // An invite made once there is an admin makes a second one, and revokes nothing.
            try await repo.saveAdminInvite(AdminInviteRecord(hash: [4], createdAt: t0, expiresAt: t0.addingTimeInterval(60)))
            try await repo.addAdmin(other, credential: adminCredential(2, admin: other), consumingInvite: [6], now: t0)
            #expect(try await repo.admins().count == 2)
            #expect(try await repo.adminInvite(hash: [4], now: t0) != nil)
            try await repo.recordAdminSignIn(credentialID: credential.id, signCount: 5, backupState: false, at: t0.addingTimeInterval(9))
            let used = try #require(try await repo.adminCredential(id: credential.id))
            #expect(used.signCount == 5 && used.backupState == false && used.lastUsedAt == t0.addingTimeInterval(9))
            #expect(try await repo.credential(id: credential.id) == nil, "admin passkeys are not user passkeys")
        }
    }

    @Test("two first setups at once: one makes the admin, the other finds its link revoked (no deadlock)", arguments: Backend.available)
    func concurrentFirstSetups(backend: Backend) async throws {
        for round in 0..<5 {
            try await backend.withRepository { repo in
                try await repo.saveAdminInvite(AdminInviteRecord(hash: [10], createdAt: t0, expiresAt: t0.addingTimeInterval(60)))
                try await repo.saveAdminInvite(AdminInviteRecord(hash: [11], createdAt: t0, expiresAt: t0.addingTimeInterval(60)))
                // Connections open before the race (PostgreSQL's pool opens them on demand), so the two overlap.
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<4 { group.addTask { _ = try? await repo.admins() } }
                }
                let outcomes = await withTaskGroup(of: StorageError.Code?.self) { group in
                    for offset: UInt8 in 0..<2 {
                        let admin = AdminRecord(userHandle: [UInt8](repeating: 10 + offset, count: 32), name: "a\(offset)", createdAt: t0)
                        let credential = adminCredential(10 + offset, admin: admin)
                        group.addTask { await storageCode { try await repo.addAdmin(admin, credential: credential, consumingInvite: [10 + offset], now: t0) } }
                    }
                    return await group.reduce(into: [StorageError.Code?]()) { $0.append($1) }
                }
                #expect(outcomes.filter { $0 == nil }.count == 1 && outcomes.contains(.notFound), "round \(round): \(outcomes)")
                #expect(try await repo.admins().count == 1)
            }
        }
    }

    @Test("a setup link's invite is stored only while no admin exists; racing a first setup, it never outlives it", arguments: Backend.available)
    func setupInvites(backend: Backend) async throws {
        for round in 0..<5 {
            try await backend.withRepository { repo in
                let invite: @Sendable (UInt8) -> AdminInviteRecord = { AdminInviteRecord(hash: [$0], createdAt: t0, expiresAt: t0.addingTimeInterval(60)) }
                #expect(try await repo.saveSetupInvite(invite(10)))
                #expect(try await repo.adminInvite(hash: [10], now: t0) != nil)
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<4 { group.addTask { _ = try? await repo.admins() } }
                }
                // A first setup and another instance's start at once.
                let admin = AdminRecord(userHandle: [UInt8](repeating: 10, count: 32), name: "first", createdAt: t0)
                let credential = adminCredential(10, admin: admin)
                async let setup: Void = repo.addAdmin(admin, credential: credential, consumingInvite: [10], now: t0)
                let late = invite(20)
                async let stored = repo.saveSetupInvite(late)
                _ = try await (setup, stored)
                #expect(try await repo.admins().count == 1)
                #expect(try await repo.adminInvite(hash: [20], now: t0) == nil, "round \(round): the late setup link is valid after the first setup")
                // Once there is an admin, none is stored.
                #expect(try await repo.saveSetupInvite(invite(30)) == false)
                #expect(try await repo.adminInvite(hash: [30], now: t0) == nil)
            }
        }
    }

    @Test("admin sessions are touched, re-verified, deleted and purged by age and idleness", arguments: Backend.available)
    func sessions(backend: Backend) async throws {
        try await backend.withRepository { repo in
            try await repo.saveAdminInvite(AdminInviteRecord(hash: [7], createdAt: t0, expiresAt: t0.addingTimeInterval(60)))
            let admin = AdminRecord(userHandle: [UInt8](repeating: 9, count: 32), name: "ops", createdAt: t0)
            try await repo.addAdmin(admin, credential: adminCredential(1, admin: admin), consumingInvite: [7], now: t0)
            let old = AdminSessionRecord(hash: [1], adminID: admin.id, createdAt: t0, lastSeenAt: t0, verifiedAt: t0)
            let idle = AdminSessionRecord(hash: [2], adminID: admin.id, createdAt: t0.addingTimeInterval(100), lastSeenAt: t0.addingTimeInterval(100), verifiedAt: t0)
            let fresh = AdminSessionRecord(hash: [3], adminID: admin.id, createdAt: t0.addingTimeInterval(100), lastSeenAt: t0.addingTimeInterval(100), verifiedAt: t0)
            for session in [old, idle, fresh] { try await repo.saveAdminSession(session) }
            try await repo.touchAdminSession(hash: [3], at: t0.addingTimeInterval(200), verified: false)
            #expect(try await repo.adminSession(hash: [3])?.lastSeenAt == t0.addingTimeInterval(200))
            #expect(try await repo.adminSession(hash: [3])?.verifiedAt == t0)
            try await repo.touchAdminSession(hash: [3], at: t0.addingTimeInterval(201), verified: true)
            #expect(try await repo.adminSession(hash: [3])?.verifiedAt == t0.addingTimeInterval(201))
            try await repo.saveAdminInvite(AdminInviteRecord(hash: [8], createdAt: t0, expiresAt: t0.addingTimeInterval(60)))
            let purged = try await repo.purgeAdminSessions(createdBefore: t0.addingTimeInterval(50), idleBefore: t0.addingTimeInterval(150), now: t0.addingTimeInterval(300))
            #expect(purged == 3, "the old session, the idle one, the expired invite")
            #expect(try await repo.adminSession(hash: [1]) == nil)
            #expect(try await repo.adminSession(hash: [2]) == nil)
            #expect(try await repo.adminSession(hash: [3]) != nil)
            try await repo.deleteAdminSession(hash: [3])
            #expect(try await repo.adminSession(hash: [3]) == nil)
        }
    }

    @Test("totals and per-user passkey counts", arguments: Backend.available)
    func totals(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let ann = makeUser("ann", handle: 1)
            let anonymous = makeUser(nil, handle: 2)
            try await repo.register(makeCredential(1, user: ann), for: ann)
            try await repo.register(makeCredential(2, user: ann), for: ann)
            try await repo.register(makeCredential(3, user: anonymous), for: anonymous)
            #expect(try await repo.totals() == StorageTotals(users: 2, anonymousUsers: 1, passkeys: 3, admins: 0))
            #expect(try await repo.credentialCounts(userIDs: [ann.id, anonymous.id, "nobody"]) == [ann.id: 2, anonymous.id: 1])
            #expect(try await repo.credentialCounts(userIDs: []) == [:])
        }
    }
}
