import Foundation
import GRDB
import PasskeyStorage
@testable import PasskeyStorageSQLite
import Testing
import PasskeyTestSupport

/// The SQLite writer's own behaviour: durability settings on every connection that commits, challenges marked then
/// purged, events written with a later transaction.
@Suite("SQLite writer")
struct SQLiteWriterTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func makeRepository() throws -> SQLiteRepository {
        let folder = temporaryPath("passkey-writer")
        return try SQLiteRepository(path: folder.appendingPathComponent("passkey.sqlite").path)
    }

    func challenge(_ key: String, expires seconds: TimeInterval) -> ChallengeRecord {
        ChallengeRecord(
            key: key, challenge: "challenge-\(key)", ceremony: .authentication, createdAt: t0, expiresAt: t0.addingTimeInterval(seconds))
    }

    /// Rows in the challenges table, consumed ones included.
    func storedChallengeRows(_ repository: SQLiteRepository) async throws -> Int {
        try await repository.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM challenges") ?? -1 }
    }

    @Test("both connections that commit sync every commit (synchronous=FULL), GRDB's writer and the raw one")
    func synchronousFull() async throws {
        let repository = try makeRepository()
        // GRDB sets NORMAL on its writer when it turns WAL on; the repository sets FULL again.
        #expect(try await repository.settings()["synchronous"] == "2")
        let raw = try await repository.writer.writeRaw { raw throws(StorageError) in
            let statement = try raw.statement("PRAGMA synchronous")
            defer { statement.reset() }
            guard try statement.step() else { return Int64(-1) }
            return try statement.int64(0)
        }
        #expect(raw == 2)
    }

    @Test("a consumed challenge is marked, cannot be used again, and its row goes with the next purge")
    func consumedThenPurged() async throws {
        let repository = try makeRepository()
        try await repository.saveChallenge(challenge("a", expires: 60))
        #expect(try await repository.consumeChallenge(key: "a", ceremony: .authentication, now: t0)?.key == "a")
        #expect(try await repository.challengeCount() == 0)
        #expect(try await storedChallengeRows(repository) == 1)
        #expect(try await repository.consumeChallenge(key: "a", ceremony: .authentication, now: t0) == nil)
        #expect(try await repository.consumeChallenge(value: "challenge-a", ceremony: .authentication, now: t0) == nil)
        #expect(try await repository.challenge(key: "a", ceremony: .authentication, now: t0) == nil)
        let lookup = try await repository.lookUpSignIn(challenge: .key("a"), credentialID: [1], now: t0)
        #expect(lookup.challenge == nil)
        // The next purge deletes it although it has not expired; a pending one stays until it expires.
        try await repository.saveChallenge(challenge("b", expires: 60))
        #expect(try await repository.purgeExpiredChallenges(now: t0.addingTimeInterval(30)) == 1)
        #expect(try await storedChallengeRows(repository) == 1)
        #expect(try await repository.challenge(key: "b", ceremony: .authentication, now: t0)?.key == "b")
        #expect(try await repository.purgeExpiredChallenges(now: t0.addingTimeInterval(61)) == 1)
        #expect(try await storedChallengeRows(repository) == 0)
    }

    @Test("a deferred event is committed with no other write coming, and reported with its id")
    func deferredEventAlone() async throws {
        let repository = try makeRepository()
        let event = EventRecord(time: t0, kind: "authentication.verify", result: .success, username: "ann")
        let stored: EventRecord? = await withCheckedContinuation { continuation in
            repository.appendEventLater(event) { continuation.resume(returning: $0) }
        }
        #expect(stored?.id == 1)
        #expect(stored?.username == "ann")
        // Committed: a fresh repository on the same file (another connection) sees it.
        let reopened = try SQLiteRepository(path: repository.path)
        #expect(try await reopened.events(matching: EventFilter(), before: nil, limit: 10).map(\.kind) == ["authentication.verify"])
    }

    @Test("shutdown commits the deferred events still queued")
    func shutdownFlushes() async throws {
        let repository = try makeRepository()
        for index in 1...3 {
            repository.appendEventLater(EventRecord(time: t0, kind: "authentication.verify", result: .success, username: "u\(index)")) { _ in }
        }
        await repository.shutdown()
        // Another connection on the same file sees them, committed.
        let reopened = try SQLiteRepository(path: repository.path)
        #expect(try await reopened.events(matching: EventFilter(), before: nil, limit: 10).compactMap(\.username) == ["u3", "u2", "u1"])
    }

    @Test("the log's readers see deferred events recorded before they asked, in order")
    func deferredEventsFlushedOnRead() async throws {
        let repository = try makeRepository()
        for index in 1...5 {
            repository.appendEventLater(EventRecord(time: t0, kind: "registration.verify", result: .success, username: "u\(index)")) { _ in }
        }
        let events = try await repository.events(matching: EventFilter(), before: nil, limit: 10)
        #expect(events.compactMap(\.username) == ["u5", "u4", "u3", "u2", "u1"])
        let counts = try await repository.eventCounts(from: t0.addingTimeInterval(-3600), to: t0.addingTimeInterval(3600))
        #expect(counts.map(\.registrations) == [5])
    }

    @Test("a failing write does not take a deferred event with it")
    func deferredEventsRideWithWrites() async throws {
        let repository = try makeRepository()
        repository.appendEventLater(EventRecord(time: t0, kind: "authentication.options", result: .success)) { _ in }
        // This write fails (no such challenge) and rolls back; the event, committed on its own schedule, stays.
        await #expect(throws: StorageError.self) {
            try await repository.recordSignIn(
                credentialID: [1], expectedSignCount: 0, newSignCount: 1, backupState: false, at: t0, spending: .stored(key: "missing"))
        }
        #expect(try await repository.events(matching: EventFilter(), before: nil, limit: 10).map(\.kind) == ["authentication.options"])
    }

    @Test("a refused sign-in whose challenge cannot be burnt is still answered as refused; a verified one that cannot be recorded fails")
    func refusalStandsWhenTheWriteFails() async throws {
        let repository = try makeRepository()
        let ann = makeUser("ann", handle: 1)
        try await repository.register(makeCredential(1, user: ann, signCount: 5), for: ann)
        try await repository.saveChallenge(makeChallenge("a"))
        try await repository.saveChallenge(makeChallenge("b"))
        // Every write to a challenge fails from now on, as on a disk that fails.
        try await repository.pool.write { db in
            try db.execute(sql: "CREATE TRIGGER refuse_challenge_writes BEFORE UPDATE ON challenges BEGIN SELECT RAISE(ABORT, 'injected'); END")
        }
        let refused = try await repository.completeSignIn(challenge: .key("a"), credentialID: [1, 1, 1], now: t0) { _ in
            (SignInWrite.burn, "refused")
        }
        #expect(refused == "refused")
        // Not burnt, as the write failed: a retry meets the same refusal.
        #expect(try await repository.challenge(key: "a", ceremony: .authentication, now: t0) != nil)
        let code = await storageCode {
            _ = try await repository.completeSignIn(challenge: .key("b"), credentialID: [1, 1, 1], now: t0) { lookup in
                (SignInWrite.record(expectedSignCount: lookup.credential?.signCount ?? 0, newSignCount: 6, backupState: false, at: t0), "verified")
            }
        }
        #expect(code != nil)
        #expect(try await repository.credential(id: [1, 1, 1])?.signCount == 5)
    }

    @Test("a new database is private to the server's user: folder 0700, database and WAL 0600")
    func privateFiles() async throws {
        let folder = temporaryPath("passkey-private").appendingPathComponent("data")
        let path = folder.appendingPathComponent("passkey.sqlite").path
        let repository = try SQLiteRepository(path: path)
        try await repository.saveChallenge(ChallengeRecord(key: "k", challenge: "c", ceremony: .authentication, createdAt: t0, expiresAt: t0.addingTimeInterval(60)))
        func mode(_ path: String) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
        }
        #expect(try mode(folder.path) == 0o700)
        #expect(try mode(path) == 0o600)
        #expect(try mode(path + "-wal") == 0o600)
    }

    @Test("a folder that cannot be made is storage_unavailable, said in words rather than as a Foundation error dump")
    func folderRefused() throws {
        // A file where a folder should be: nobody, root included, can make a folder inside it.
        let file = temporaryPath("passkey-file")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            _ = try SQLiteRepository(path: file.appendingPathComponent("data/passkey.sqlite").path)
            Issue.record("opened a database under a file")
        } catch {
            #expect(error.code == .unavailable)
            #expect(error.reason == "cannot create the folder \(file.path)/data for the database: Not a directory", "\(error.reason)")
        }
    }

    @Test("a background thread copies the WAL into the database file, and the WAL still starts over")
    func backgroundCheckpoints() async throws {
        let folder = try temporaryFolderURL("passkey-checkpoint")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("wal.sqlite").path
        let pool = try DatabasePool(path: path)  // WAL mode
        try await pool.write { db in try db.execute(sql: "CREATE TABLE rows (value BLOB NOT NULL)") }
        let checkpointer = WALCheckpointer(path: path)
        defer { checkpointer.stop() }
        let writer = try RawConnection(writerPath: path)
        try writer.execute("PRAGMA synchronous = OFF")  // the commits' own syncs are not what this test is about
        checkpointer.install(on: writer)
        let restartsBefore = try Self.walCheckpointSequence(path)
        // About two frames per commit (a new leaf of its own, the page above it): 6 000 frames without a checkpoint.
        let commits = 3_000
        for index in 0..<commits {
            try writer.execute("BEGIN IMMEDIATE")
            let insert = try writer.statement("INSERT INTO rows (value) VALUES (?)")
            try insert.bind(1, [UInt8](repeating: UInt8(index & 0xFF), count: 3_000))
            try insert.execute()
            try writer.execute("COMMIT")
        }
        var passes = checkpointer.backgroundPasses
        for _ in 0..<100 where passes == 0 {
            try await Task.sleep(for: .milliseconds(50))
            passes = checkpointer.backgroundPasses
        }
        #expect(passes > 0)
        // Started over: SQLite counts each restart in the WAL's header. (Not judged by the file's size: how far the WAL
        // grows past 1 000 frames depends on how long a background pass takes, and this writer does not sync.)
        let restarts = try Self.walCheckpointSequence(path) &- restartsBefore
        #expect(restarts >= 1, "\(restarts)")
        #expect(try await pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM rows") } == commits)
    }

    /// The WAL header's checkpoint sequence number (bytes 12–15, big-endian), which SQLite increments each time the WAL
    /// starts over from its beginning.
    static func walCheckpointSequence(_ path: String) throws -> UInt32 {
        let header = try #require(FileManager.default.contents(atPath: path + "-wal")?.prefix(16))
        #expect(header.count == 16)
        return header.dropFirst(12).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }
}


/// Upgrading a database made by an earlier version.
@Suite("SQLite migrations")
struct SQLiteMigrationTests {
    @Test("usernames get their keys on upgrade; of two names that differ only in non-ASCII case the older keeps the name")
    func usernameKeysOnUpgrade() async throws {
        let folder = try temporaryFolderURL("passkey-migration")
        let path = folder.appendingPathComponent("passkey.sqlite").path
        do {
            // The schema as version 6 left it, with accounts it allowed: "Zoë" and "ZOË" were two names then.
            let queue = try DatabaseQueue(path: path)
            try SQLiteSchema.migrator.migrate(queue, upTo: "v6: registrations for an existing account are marked")
            try await queue.write { db in
                for (id, name, created) in [("u-old", "Zoë", 1), ("u-new", "ZOË", 2), ("u-ann", "Ann", 3)] {
                    try db.execute(
                        sql: "INSERT INTO users (id, user_handle, username, display_name, is_anonymous, created_at) VALUES (?, ?, ?, ?, 0, ?)",
                        arguments: [id, Data(id.utf8), name, name, created])
                }
                try db.execute(
                    sql: "INSERT INTO users (id, user_handle, username, display_name, is_anonymous, created_at) VALUES ('u-anon', x'01', NULL, 'Anonymous', 1, 4)")
            }
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let repository = try SQLiteRepository(path: path)
        #expect(try await repository.user(username: "zoë")?.id == "u-old")
        #expect(try await repository.user(username: "ANN")?.id == "u-ann")
        #expect(try await repository.user(id: "u-new")?.username == "ZOË")
        #expect(try await repository.user(id: "u-anon")?.isAnonymous == true)
        // The newer of the two is listed, and a new account cannot take the name again.
        #expect(Set(try await repository.users(matching: "zo", limit: 10, offset: 0).map(\.id)) == ["u-old", "u-new"])
        let keys = try await repository.read { db in
            try Row.fetchAll(db, sql: "SELECT id, username_key FROM users ORDER BY id").map { row -> String in "\(row[0] as String)=\((row[1] as String?) ?? "-")" }
        }
        // The anonymous account has the name its passkeys carry since v18 (a one-byte handle: anonymous-AQ).
        #expect(keys == ["u-ann=ann", "u-anon=anonymous-aq", "u-new=-", "u-old=zoë"])
        let taker = UserRecord(userHandle: [7], username: "zoË", displayName: "Zoë", isAnonymous: false, createdAt: Date())
        await #expect(throws: StorageError(.usernameTaken, "")) {
            try await repository.register(
                CredentialRecordEntry(
                    id: [7], userID: taker.id, publicKey: [1], algorithm: -7, signCount: 0, uvInitialized: true, transports: [],
                    backupEligible: false, backupState: false, aaguid: "", attestationFormat: "none", attestationType: "None", createdAt: Date()),
                for: taker)
        }

        // Once the older account is deleted, the next open gives the newer one the key: it is found by name again.
        try await repository.deleteUser(id: "u-old")
        #expect(try await repository.user(username: "zoë") == nil)
        let reopened = try SQLiteRepository(path: path)
        #expect(try await reopened.user(username: "zoë")?.id == "u-new")
    }

    @Test("v18 names each account stored without a name by the name its passkeys carry, oldest first; a name another holds stays with it")
    func unnamedAccountsOnUpgrade() async throws {
        try await Self.legacyDatabase(
            upTo: "v17: a sign-in writes only its passkey's row", users: [("u-squat", "ANONYMOUS-aqidbaug", "anonymous-aqidbaug", 1)],
            extra: { db in
                for (id, handle, created, anonymous) in [("u-a1", [1, 2, 3, 4, 5, 6, 7, 8], 2, true), ("u-a2", [9, 9, 9, 9, 9, 9, 9, 9], 3, true), ("u-link", [4, 4, 4, 4, 4, 4, 4, 4], 4, false)]
                    as [(String, [UInt8], Int, Bool)]
                {
                    try db.execute(
                        sql: "INSERT INTO users (id, user_handle, username, username_key, display_name, is_anonymous, created_at) VALUES (?, ?, NULL, NULL, 'x', ?, ?)",
                        arguments: [id, Data(handle), anonymous, created])
                }
            }
        ) { path in
            let repository = try SQLiteRepository(path: path)
            // Its name is held: it gets the longer one its handle gives (the whole 8-byte handle here).
            #expect(try await repository.user(id: "u-a1")?.username == "anonymous-AQIDBAUGBwg")
            #expect(try await repository.user(username: "anonymous-CQkJCQkJ")?.id == "u-a2")
            #expect(try await repository.user(username: "ANONYMOUS-cqkjcqkj")?.id == "u-a2", "found by the name in any case")
            #expect(try await repository.user(username: "anonymous-BAQEBAQE")?.id == "u-link")
            #expect(try await repository.user(id: "u-a2")?.isAnonymous == true)

            // An account stored without a name after the migration (an older server on the file): the next open names it.
            try await repository.write { db in
                try db.execute(
                    sql: "INSERT INTO users (id, user_handle, display_name, is_anonymous, created_at) VALUES ('u-late', ?, 'x', 1, 5)",
                    arguments: [Data([5, 5, 5, 5, 5, 5, 5])])
            }
            #expect(try await repository.user(id: "u-late")?.username == nil)
            let reopened = try SQLiteRepository(path: path)
            #expect(try await reopened.user(username: "anonymous-BQUFBQUF")?.id == "u-late")
            // The pass at every open reads the accounts without a name through the username index, not a scan of all.
            let plan = try await reopened.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT id, user_handle FROM users WHERE username IS NULL ORDER BY created_at, id")
                    .map { $0["detail"] as String? ?? "" }.joined(separator: "; ")
            }
            #expect(plan.contains("SEARCH users USING INDEX") && !plan.contains("SCAN users"), "\(plan)")
        }
    }

    /// A database file migrated up to `migration` only, holding `users` (id, name, the key that version gave it, creation
    /// order) and running `extra` on it: a database an earlier server left. Removed when `body` returns.
    static func legacyDatabase(
        upTo migration: String, users: [(id: String, name: String, key: String, created: Int)], extra: @escaping @Sendable (Database) throws -> Void = { _ in },
        _ body: (String) async throws -> Void
    ) async throws {
        let folder = try temporaryFolderURL("passkey-migration")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("passkey.sqlite").path
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteSchema.migrator.migrate(queue, upTo: migration)
            try await queue.write { db in
                for user in users {
                    try db.execute(
                        sql: "INSERT INTO users (id, user_handle, username, username_key, display_name, is_anonymous, created_at) VALUES (?, ?, ?, ?, ?, 0, ?)",
                        arguments: [user.id, Data(user.id.utf8), user.name, user.key, user.name, user.created])
                }
                try extra(db)
            }
        }
        try await body(path)
    }

    /// Each account's stored key, `id=key` (`-` for none), by id.
    static func keys(_ repository: SQLiteRepository) async throws -> [String] {
        try await repository.read { db in
            try Row.fetchAll(db, sql: "SELECT id, username_key FROM users ORDER BY id").map { row -> String in "\(row[0] as String)=\((row[1] as String?) ?? "-")" }
        }
    }

    @Test("keys made before capital sharp s folded to ss are made again; of two accounts that now share one the older keeps it")
    func sharpSKeysOnUpgrade() async throws {
        // Version 8 keyed "GIEẞEN" as "gießen", so "Gießen" (keyed "giessen") could be registered next to it.
        try await Self.legacyDatabase(
            upTo: "v8: events keep the username key",
            users: [("u-old", "GIEẞEN", "gießen", 1), ("u-new", "Gießen", "giessen", 2), ("u-ann", "Ann", "ann", 3)],
            extra: { db in
                try db.execute(
                    sql: "INSERT INTO events (time, kind, result, username, username_key) VALUES (1, 'authentication.verify', 'success', 'GIEẞEN', 'gießen')")
            }
        ) { path in
            let repository = try SQLiteRepository(path: path)
            #expect(try await Self.keys(repository) == ["u-ann=ann", "u-new=-", "u-old=giessen"])
            for spelling in ["GIEẞEN", "Gießen", "GIESSEN", "gieẞen"] { #expect(try await repository.user(username: spelling)?.id == "u-old", "\(spelling)") }
            let eventKeys = try await repository.read { db in try String.fetchAll(db, sql: "SELECT username_key FROM events") }
            #expect(eventKeys == ["giessen"])
        }
    }

    @Test("v14 maps fullwidth names to their ASCII key; of two accounts that now share one the older keeps it, the other is reported")
    func widthMappedKeysOnUpgrade() async throws {
        // Version 13 keyed the fullwidth "ｃａｒｏｌ" as itself, so it could be registered next to "carol".
        try await Self.legacyDatabase(
            upTo: "v13: registrations that create an account named by a contact",
            users: [("u-old", "carol", "carol", 1), ("u-new", "ｃａｒｏｌ", "ｃａｒｏｌ", 2), ("u-bob", "ＢＯＢ", "ｂｏｂ", 3)]
        ) { path in
            let repository = try SQLiteRepository(path: path)
            #expect(try await Self.keys(repository) == ["u-bob=bob", "u-new=-", "u-old=carol"])
            #expect(try await repository.user(username: "ｃａｒｏｌ")?.id == "u-old")
            #expect(try await repository.user(username: "bob")?.id == "u-bob")
            let collisions = try await repository.usernameCollisions()
            #expect(collisions.map(\.account.id) == ["u-new"] && collisions.map(\.holder?.id) == ["u-old"])
            // Once the holder is gone, the next open hands the key on and nothing is reported.
            try await repository.deleteUser(id: "u-old")
            let reopened = try SQLiteRepository(path: path)
            #expect(try await reopened.user(username: "CAROL")?.id == "u-new")
            #expect(try await reopened.usernameCollisions().isEmpty)
        }
    }
}
