import Foundation
import PasskeyStorage
import Synchronization
import Testing

@Suite("Storage conformance: export and import")
struct TransferConformanceTests {
    /// Every kind of lasting record, with every optional field set somewhere.
    static func deployment() -> [TransferRecord] {
        // Fixed ids: the test compares two calls' records.
        var disabled = makeUser("cy", handle: 3, at: t0.addingTimeInterval(2))
        disabled.id = "user-cy"
        disabled.disabledAt = t0.addingTimeInterval(50)
        disabled.tokensRevokedAt = t0.addingTimeInterval(50)
        var ann = makeUser("ann", handle: 1)
        ann.id = "user-ann"
        ann.lastSignInAt = t0.addingTimeInterval(30)
        var anonymous = makeUser(nil, handle: 2, at: t0.addingTimeInterval(1))
        anonymous.id = "user-anonymous"
        var used = makeCredential(1, user: ann, signCount: 7)
        used.name = "iPhone"
        used.lastUsedAt = t0.addingTimeInterval(30)
        let admin = AdminRecord(id: "admin-1", userHandle: [9, 9], name: "Operator", createdAt: t0)
        var adminPasskey = makeCredential(8, user: ann)
        adminPasskey.userID = admin.id
        return [
            .user(ann, externalID: "app-42"), .user(anonymous, externalID: nil), .user(disabled, externalID: nil),
            .credential(used), .credential(makeCredential(2, user: anonymous, at: t0.addingTimeInterval(1))),
            .credential(makeCredential(3, user: disabled, at: t0.addingTimeInterval(2))),
            .admin(admin), .adminCredential(adminPasskey),
            .apiKey(APIKeyRecord(id: "ak-1", name: "shop", prefix: "pks_abc", secretHash: Array(repeating: 4, count: 32), createdAt: t0, revokedAt: t0.addingTimeInterval(9))),
            .signingKey(SigningKeyRecord(id: "kid-1", privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----", createdAt: t0)),
            .secret(name: "fake-credential-key", value: Array(repeating: 5, count: 32)),
        ]
    }

    /// The deployment as it exports after its import: the account the file brought without a name has the one its
    /// passkeys carry, which the import gave it.
    static func exported() -> [TransferRecord] {
        deployment().map { record in
            guard case .user(var user, let externalID) = record, user.username == nil else { return record }
            user.username = GeneratedUsername.legacy(userHandle: user.userHandle)
            return .user(user, externalID: externalID)
        }
    }

    func export(_ repo: any PasskeyRepository, secrets: Bool = true) async throws -> [TransferRecord] {
        let records = Mutex<[TransferRecord]>([])
        try await repo.exportRecords(includingSecrets: secrets) { record in records.withLock { $0.append(record) } }
        return records.withLock { $0 }
    }

    @Test("what is imported is exported again, record for record, in import order", arguments: Backend.available)
    func roundTrip(backend: Backend) async throws {
        try await backend.withRepository { repo in
            try await repo.importRecords(Self.deployment())
            #expect(try await export(repo) == Self.exported())
            #expect(try await repo.user(username: "anonymous-AgICAgIC")?.id == "user-anonymous", "named as its passkeys are, and found by it")
            // Without secrets: accounts and passkeys, the accounts without their links to app user ids.
            let withoutPower = Self.exported().compactMap { record -> TransferRecord? in
                if case .user(let user, _) = record { return .user(user, externalID: nil) }
                return record.grantsPower ? nil : record
            }
            #expect(try await export(repo, secrets: false) == withoutPower)
            // And the records work as stored ones: found by name in any case, linked, disabled, counted.
            #expect(try await repo.user(username: "ANN")?.lastSignInAt == t0.addingTimeInterval(30))
            #expect(try await repo.user(externalID: "app-42")?.username == "ann")
            #expect(try await repo.user(username: "cy")?.isDisabled == true)
            #expect(try await repo.credential(id: [1, 1, 1])?.signCount == 7)
            #expect(try await repo.adminCredentials(adminID: "admin-1").count == 1)
            #expect(try await repo.secret(named: "fake-credential-key", orCreate: { [0] }) == Array(repeating: 5, count: 32))
        }
    }

    @Test("a conflict anywhere writes nothing, and names the record", arguments: Backend.available)
    func conflicts(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let (ann, _) = try await registerAnnAndBob(repo)
            _ = try await repo.secret(named: "fake-credential-key", orCreate: { [1, 2, 3] })
            let newcomer = makeUser("dee", handle: 4)
            func attempt(_ record: TransferRecord) async -> StorageError.Code? {
                // A valid record first: it must not stay behind when the second one fails.
                await storageCode { try await repo.importRecords([.user(newcomer, externalID: nil), record]) }
            }
            var sameID = makeUser("zed", handle: 5)
            sameID.id = ann.id
            #expect(await attempt(.user(sameID, externalID: nil)) == .recordExists)
            #expect(await attempt(.user(makeUser("zed", handle: 1), externalID: nil)) == .recordExists, "ann's user handle")
            #expect(await attempt(.user(makeUser("ANN", handle: 5), externalID: nil)) == .usernameTaken, "names compare as sign-in does")
            #expect(await attempt(.user(makeUser("dee", handle: 5), externalID: nil)) == .usernameTaken, "the newcomer's own name, earlier in the file")
            #expect(await attempt(.credential(makeCredential(1, user: newcomer))) == .credentialExists)
            #expect(await attempt(.credential(makeCredential(7, user: makeUser("ghost", handle: 6)))) == .notFound)
            #expect(await attempt(.credential(makeCredential(7, user: ann))) == .notFound, "nothing is added to a stored account")
            #expect(await attempt(.secret(name: "fake-credential-key", value: [9])) == .recordExists)
            #expect(try await repo.user(id: newcomer.id) == nil, "nothing of a failed import is stored")
            #expect(try await repo.user(username: "dee") == nil)

            // Linked app users, admins and API keys.
            try await repo.importRecords([.user(newcomer, externalID: "app-1"), .credential(makeCredential(4, user: newcomer))])
            #expect(await storageCode { try await repo.importRecords([.user(makeUser("eve", handle: 7), externalID: "app-1")]) } == .recordExists)
            let admin = AdminRecord(id: "a1", userHandle: [1], name: "Op", createdAt: t0)
            try await repo.importRecords([.admin(admin)])
            #expect(await storageCode { try await repo.importRecords([.admin(AdminRecord(id: "a2", userHandle: [1], name: "Op", createdAt: t0))]) } == .recordExists)
            var orphan = makeCredential(9, user: newcomer)
            orphan.userID = "a9"
            #expect(await storageCode { try await repo.importRecords([.adminCredential(orphan)]) } == .notFound)
            let key = APIKeyRecord(id: "k1", name: "shop", prefix: "pks_a", secretHash: [7], createdAt: t0)
            try await repo.importRecords([.apiKey(key)])
            var sameSecret = key
            sameSecret.id = "k2"
            #expect(await storageCode { try await repo.importRecords([.apiKey(sameSecret)]) } == .recordExists)

            // A dry run finds the same conflicts, and writes nothing when there are none.
            #expect(await storageCode { try await repo.importRecords([.user(sameID, externalID: nil)], dryRun: true) } == .recordExists)
            let late = makeUser("late", handle: 9)
            try await repo.importRecords([.user(late, externalID: nil), .credential(makeCredential(9, user: late))], dryRun: true)
            #expect(try await repo.user(id: late.id) == nil)
            #expect(try await repo.credential(id: [9, 9, 9]) == nil)

            // The stored secret, imported again with its own value, is skipped: an import into a database whose server
            // started once works when both come from the same deployment.
            try await repo.importRecords([.secret(name: "fake-credential-key", value: [1, 2, 3])])
            #expect(try await repo.credentials(userID: newcomer.id).map(\.id) == [[4, 4, 4]])
        }
    }

    @Test("an export is one snapshot: a record written while it runs is in it whole or not at all", arguments: Backend.available)
    func snapshot(backend: Backend) async throws {
        try await backend.withRepository { repo in
            try await repo.importRecords(Self.deployment())
            let late = makeUser("late", handle: 8, at: t0.addingTimeInterval(100))
            let written = Mutex(false)
            // The export's first record lets a registration start; a store that reads tables in separate statements
            // without a snapshot would list the passkey without its account.
            let records = Mutex<[TransferRecord]>([])
            let writer = Task {
                while !written.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
                try await repo.register(makeCredential(6, user: late), for: late)
            }
            try await repo.exportRecords(includingSecrets: false) { record in
                records.withLock { $0.append(record) }
                written.withLock { $0 = true }
                Thread.sleep(forTimeInterval: 0.005)
            }
            try await writer.value
            let exported = records.withLock { $0 }
            let hasUser = exported.contains { if case .user(let user, _) = $0 { return user.id == late.id } else { return false } }
            let hasPasskey = exported.contains { if case .credential(let credential) = $0 { return credential.userID == late.id } else { return false } }
            #expect(hasUser == hasPasskey)
        }
    }

    /// Imports write accounts and passkeys in batches (PostgreSQL: 500 records); the checks must still see every record
    /// before the one checked, in the same batch or an earlier one, and the stored ones.
    @Test("a large import finds conflicts between records far apart and with stored ones, and names them", arguments: Backend.available)
    func largeImport(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let (ann, _) = try await registerAnnAndBob(repo)
            var records: [TransferRecord] = []
            for index in 0..<1_200 {
                var user = makeUser("member-\(index)", handle: 0)
                user.id = "member-\(index)"
                user.userHandle = Array("handle-\(index)".utf8)
                var passkey = makeCredential(0, user: user)
                passkey.id = Array("passkey-\(index)".utf8)
                records += [.user(user, externalID: index.isMultiple(of: 2) ? "app-\(index)" : nil), .credential(passkey)]
            }
            func failure(_ change: (inout [TransferRecord]) -> Void) async -> StorageError? {
                var changed = records
                change(&changed)
                do throws(StorageError) { try await repo.importRecords(changed) } catch { return error }
                return nil
            }
            func user(_ index: Int, _ edit: @escaping (inout UserRecord, inout String?) -> Void) -> (inout [TransferRecord]) -> Void {
                { records in
                    guard case .user(var user, var externalID) = records[2 * index] else { return }
                    edit(&user, &externalID)
                    records[2 * index] = .user(user, externalID: externalID)
                }
            }
            let name = await failure(user(1_100) { user, _ in user.username = "MEMBER-3" })
            #expect(name?.code == .usernameTaken)
            #expect(name?.reason == "the username of account member-1100 belongs to account member-3")
            let stored = await failure(user(950) { user, _ in user.username = "Ann" })
            #expect(stored?.reason == "the username of account member-950 belongs to account \(ann.id)")
            let handle = await failure(user(1_150) { user, _ in user.userHandle = Array("handle-2".utf8) })
            #expect(handle?.code == .recordExists)
            #expect(handle?.reason == "the user handle of account member-1150 belongs to another account")
            let link = await failure(user(1_001) { _, externalID in externalID = "app-4" })
            #expect(link?.reason == "the app user id of account member-1001 is linked to another account")
            let sameID = await failure(user(700) { user, _ in user.id = "member-5" })
            #expect(sameID?.reason == "an account with the user id member-5 exists")
            let passkey = await failure { records in
                guard case .credential(var credential) = records[2 * 1_199 + 1] else { return }
                credential.id = Array("passkey-0".utf8)
                records[2 * 1_199 + 1] = .credential(credential)
            }
            #expect(passkey?.code == .credentialExists)
            let early = await failure { records in records.swapAt(2 * 900, 2 * 900 + 1) }
            #expect(early?.code == .notFound, "a passkey before its account")
            #expect(try await repo.user(id: "member-0") == nil, "nothing of a failed import is stored")

            try await repo.importRecords(records)
            #expect(try await repo.user(username: "MEMBER-1199")?.id == "member-1199")
            #expect(try await repo.user(externalID: "app-1198")?.id == "member-1198")
            #expect(try await repo.credential(id: Array("passkey-777".utf8))?.userID == "member-777")
            #expect(try await export(repo).count == 2 * 1_200 + 4, "ann, bob and their passkeys, and the import")
            #expect(await storageCode { try await repo.importRecords([records[2 * 600]]) } == .recordExists, "imported before")
        }
    }

    @Test("signing keys go only into a database without its own; the first admins revoke pending setup links", arguments: Backend.available)
    func secretsAndSetup(backend: Backend) async throws {
        try await backend.withRepository { repo in
            let invite = AdminInviteRecord(hash: [1, 2, 3], createdAt: t0, expiresAt: t0.addingTimeInterval(3_600))
            #expect(try await repo.saveSetupInvite(invite))
            _ = try await repo.ensureSigningKey { SigningKeyRecord(id: "own", privateKeyPEM: "pem", createdAt: t0) }
            let imported = SigningKeyRecord(id: "moved", privateKeyPEM: "pem", createdAt: t0)
            #expect(await storageCode { try await repo.importRecords([.signingKey(imported)]) } == .recordExists, "two current keys")
            #expect(try await repo.signingKeys().map(\.id) == ["own"])

            #expect(try await repo.adminInvite(hash: [1, 2, 3], now: t0) != nil)
            try await repo.importRecords([.admin(AdminRecord(id: "a1", userHandle: [1], name: "Op", createdAt: t0))])
            #expect(try await repo.adminInvite(hash: [1, 2, 3], now: t0) == nil, "a setup link printed before must not make a second admin")
        }
    }
}
