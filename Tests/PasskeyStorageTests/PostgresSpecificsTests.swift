import Foundation
import PasskeyStorage
@testable import PasskeyStoragePostgres
import PasskeyTestSupport
import PostgresNIO
import Testing

@Suite("PostgreSQL specifics: configuration")
struct PostgresConfigurationTests {
    @Test("a URL gives host, port, credentials, database and parameters; the description hides the password")
    func parse() throws {
        let configuration = try PostgresConfiguration(
            url: "postgresql://passkey:s%40cret@db.internal:6543/auth?sslmode=verify-full&connect_timeout=2&query_timeout=0.5&pool_size=7&schema=tenant_1&application_name=edge")
        #expect(configuration.host == "db.internal" && configuration.port == 6543)
        #expect(configuration.username == "passkey" && configuration.password == "s@cret" && configuration.database == "auth")
        #expect(configuration.tls == .verifyFull && configuration.connectTimeout == .seconds(2) && configuration.queryTimeout == .milliseconds(500))
        #expect(configuration.poolSize == 7 && configuration.schema == "tenant_1" && configuration.applicationName == "edge")
        #expect(!configuration.redactedDescription.contains("cret"))
        let defaults = try PostgresConfiguration(url: "postgres://me@localhost/db")
        #expect(defaults.port == 5432 && defaults.tls == .prefer && defaults.password == nil && defaults.poolSize == 20)
        #expect(try PostgresConfiguration(url: "postgres://me@h/db?sslmode=require").tls == .require)
        let socket = try PostgresConfiguration(url: "postgres://me@/db?host=/var/run/postgresql")
        #expect(socket.unixSocketPath == "/var/run/postgresql/.s.PGSQL.5432")
    }

    @Test("mistakes are refused with a reason", arguments: [
        "postgres://db.internal/auth", "postgres://me@db.internal/", "postgres://me@h/db?sslmode=sometimes",
        "postgres://me@h/db?pool_size=0", "postgres://me@h/db?schema=Bad-Name", "postgres://me@h/db?query_timeout=-1",
        "postgres://me@h/db?statement_timout=1", "mysql://me@h/db", "postgres://me@h:99999/db", "postgres://me@h:0/db",
    ])
    func refused(url: String) {
        #expect(throws: StorageError(.unavailable, "")) { try PostgresConfiguration(url: url) }
    }

    @Test("an unreachable server gives storage_unavailable within the timeouts, not a hang or a crash")
    func unreachable() async throws {
        // A free port with nothing listening: connections are refused.
        let port = try LocalPorts.free()
        let configuration = try PostgresConfiguration(
            url: "postgres://nobody@127.0.0.1:\(port)/none?sslmode=disable&connect_timeout=1&query_timeout=1")
        // Bounds are loose (tests run in parallel on a loaded machine) but far below what the pool alone would take:
        // without the query timeout a request waits for its circuit breaker, a minute.
        var start = ContinuousClock.now
        let refused = await #expect(throws: StorageError.self) { try await PostgresRepository.connect(configuration) }
        #expect(ContinuousClock.now - start < .seconds(30))  // 12 s was once exceeded (12.3 s) beside a full parallel run
        // The cause in words, from one direct connection: not the pool's "no answer within 1 s".
        #expect(refused?.code == .unavailable)
        #expect(refused?.reason.hasPrefix("cannot connect to postgres://nobody@127.0.0.1:\(port)/none: ") == true, "\(refused?.reason ?? "")")
        #expect(refused?.reason.lowercased().contains("refused") == true, "\(refused?.reason ?? "")")
        // A pool started without the check: requests time out instead of hanging.
        let repository = try await PostgresRepository.connect(configuration, migrate: false, checkConnection: false)
        start = ContinuousClock.now
        await #expect(throws: StorageError(.unavailable, "")) { try await repository.user(id: "x") }
        // 6 s was exceeded (7.4 s) beside a full parallel run; what matters is far below the breaker's minute.
        #expect(ContinuousClock.now - start < .seconds(20))
        start = ContinuousClock.now
        await #expect(throws: StorageError(.unavailable, "")) { try await repository.consumeChallenge(key: "k", ceremony: .registration, now: Date()) }
        #expect(ContinuousClock.now - start < .seconds(20))
        await repository.shutdown()
    }
}

@Suite("PostgreSQL specifics: server", .enabled(if: TestPostgres.enabled, "PASSKEY_TEST_POSTGRES_URL is not set"))
struct PostgresServerTests {
    func freshURL() throws -> String {
        try #require(TestPostgres.freshURL(), Comment(rawValue: TestPostgres.missingMessage)) + "&pool_size=4"
    }

    @Test("a database that does not exist is named at start in the server's words")
    func missingDatabase() async throws {
        var configuration = try PostgresConfiguration(url: try freshURL())
        configuration.database = "passkey_no_such_database"
        let error = await #expect(throws: StorageError.self) { try await PostgresRepository.connect(configuration) }
        #expect(error?.reason.contains("the server refused: database \"passkey_no_such_database\" does not exist") == true, "\(error?.reason ?? "")")
    }

    /// Takes migrations 19 (the metadata BLOB), 16 (last sign-in kept on passkey deletion), 15 (spent sealed
    /// challenges) and 14 (webhooks) back: the triggers go with their functions.
    static let undoSinceVersion14 = [
        "DROP TABLE metadata_blob",
        "DROP FUNCTION credentials_keep_last_sign_in() CASCADE", "DROP TABLE spent_challenges",
        "DROP FUNCTION webhook_users_changed() CASCADE", "DROP FUNCTION webhook_credentials_changed() CASCADE",
        "DROP FUNCTION webhook_user_linked() CASCADE", "DROP FUNCTION webhook_enqueue(TEXT, TEXT, TEXT, TEXT, TEXT, BYTEA, TEXT, TEXT)",
        "DROP TABLE webhook_deliveries, webhook_messages, webhook_endpoints",
    ]

    @Test("migration 6 fills username keys from Swift; of two names that differ only in non-ASCII case the older keeps the name")
    func usernameKeysOnUpgrade() async throws {
        let repository = try await PostgresRepository.connect(try PostgresConfiguration(url: try freshURL()))
        let logger = repository.logger
        // The schema as version 5 left it (the later migrations taken back), with accounts it allowed: "Zoë" and "ZOË"
        // were two names then.
        try await repository.withConnection("schema 5") { connection in
            for statement in Self.undoSinceVersion14 + [
                "DROP INDEX users_username_key_full", "ALTER TABLE users DROP COLUMN username_key",
                "ALTER TABLE events DROP COLUMN username_key", "ALTER TABLE connect_tokens DROP COLUMN api_key_id",
                "ALTER TABLE users DROP COLUMN disabled_at", "ALTER TABLE users DROP COLUMN tokens_revoked_at",
                "ALTER TABLE challenges DROP COLUMN accepted_contacts", "DELETE FROM schema_migrations WHERE version >= 6",
            ] {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            for (id, name, created) in [("u-old", "Zoë", 1), ("u-new", "ZOË", 2), ("u-ann", "Ann", 3)] {
                try await connection.query(
                    "INSERT INTO users (id, user_handle, username, display_name, is_anonymous, created_at) VALUES (\(id), \(ByteBuffer(string: id)), \(name), \(name), false, \(Int64(created)))",
                    logger: logger)
            }
        }
        #expect(try await repository.migrate().applied == [6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20])
        #expect(try await repository.user(username: "zoë")?.id == "u-old")
        #expect(try await repository.user(username: "ANN")?.id == "u-ann")
        #expect(try await repository.user(id: "u-new")?.username == "ZOË")
        #expect(Set(try await repository.users(matching: "zo", limit: 10, offset: 0).map(\.id)) == ["u-old", "u-new"])
        let keys = try await repository.withConnection("keys") { connection in
            try await connection.rows(#"SELECT id, username_key FROM users ORDER BY id COLLATE "C""#, logger).map { row in
                let reader = PostgresRowReader(row)
                return "\(try reader.value(0, String.self))=\(try reader.optional(1, String.self) ?? "-")"
            }
        }
        #expect(keys == ["u-ann=ann", "u-new=-", "u-old=zoë"])

        // Rolling upgrade: an instance of the previous version adds "Bob" without a key. Until the next start fills it,
        // the account is found by name and its name is taken.
        try await repository.withConnection("old instance") { connection in
            try await connection.query(
                "INSERT INTO users (id, user_handle, username, display_name, is_anonymous, created_at) VALUES ('u-bob', 'x'::bytea, 'Bob', 'Bob', false, 4)",
                logger: logger)
        }
        #expect(try await repository.user(username: "BOB")?.id == "u-bob")
        let impostor = makeUser("bob", handle: 7)
        #expect(await storageCode { try await repository.register(makeCredential(7, user: impostor), for: impostor) } == .usernameTaken)
        _ = try await repository.migrate()
        let bobKey = try await repository.withConnection("bob") { connection in
            try await connection.rows("SELECT username_key FROM users WHERE id = 'u-bob'", logger).first.map { try PostgresRowReader($0).optional(0, String.self) }
        }
        #expect(bobKey == .some("bob"))
        await repository.shutdown()
    }

    @Test("migration 8 makes again the keys made before capital sharp s folded to ss; the older of two accounts keeps one")
    func sharpSKeysOnUpgrade() async throws {
        let repository = try await PostgresRepository.connect(try PostgresConfiguration(url: try freshURL()))
        let logger = repository.logger
        // Version 7 keyed "GIEẞEN" as "gießen", so "Gießen" (keyed "giessen") could be registered next to it.
        try await repository.withConnection("schema 7") { connection in
            for statement in Self.undoSinceVersion14 { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
            try await connection.query("ALTER TABLE connect_tokens DROP COLUMN api_key_id", logger: logger)
            try await connection.query("ALTER TABLE users DROP COLUMN disabled_at", logger: logger)
            try await connection.query("ALTER TABLE users DROP COLUMN tokens_revoked_at", logger: logger)
            try await connection.query("ALTER TABLE challenges DROP COLUMN accepted_contacts", logger: logger)
            try await connection.query("DELETE FROM schema_migrations WHERE version >= 8", logger: logger)
            for (id, name, key, created) in [("u-old", "GIEẞEN", "gießen", 1), ("u-new", "Gießen", "giessen", 2), ("u-ann", "Ann", "ann", 3)] {
                try await connection.query(
                    "INSERT INTO users (id, user_handle, username, username_key, display_name, is_anonymous, created_at) VALUES (\(id), \(ByteBuffer(string: id)), \(name), \(key), \(name), false, \(Int64(created)))",
                    logger: logger)
            }
            try await connection.query(
                "INSERT INTO events (time, kind, result, username, username_key) VALUES (1, 'authentication.verify', 'success', 'GIEẞEN', 'gießen')",
                logger: logger)
        }
        #expect(try await repository.migrate().applied == [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20])
        let keys = try await repository.withConnection("keys") { connection in
            try await connection.rows(#"SELECT id, username_key FROM users ORDER BY id COLLATE "C""#, logger).map { row in
                let reader = PostgresRowReader(row)
                return "\(try reader.value(0, String.self))=\(try reader.optional(1, String.self) ?? "-")"
            }
        }
        #expect(keys == ["u-ann=ann", "u-new=-", "u-old=giessen"])
        for spelling in ["GIEẞEN", "Gießen", "GIESSEN", "gieẞen"] { #expect(try await repository.user(username: spelling)?.id == "u-old", "\(spelling)") }
        let eventKeys = try await repository.withConnection("events") { connection in
            try await connection.rows("SELECT username_key FROM events", logger).map { try PostgresRowReader($0).optional(0, String.self) }
        }
        #expect(eventKeys == [.some("giessen")])
        await repository.shutdown()
    }

    @Test("migration 13 maps fullwidth names to their ASCII key; of two accounts that now share one the older keeps it, the other is reported")
    func widthMappedKeysOnUpgrade() async throws {
        let repository = try await PostgresRepository.connect(try PostgresConfiguration(url: try freshURL()))
        let logger = repository.logger
        // Version 12 keyed the fullwidth "ｃａｒｏｌ" as itself, so it could be registered next to "carol".
        try await repository.withConnection("schema 12") { connection in
            for statement in Self.undoSinceVersion14 { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
            try await connection.query("DELETE FROM schema_migrations WHERE version >= 13", logger: logger)
            for (id, name, key, created) in [("u-old", "carol", "carol", 1), ("u-new", "ｃａｒｏｌ", "ｃａｒｏｌ", 2), ("u-bob", "ＢＯＢ", "ｂｏｂ", 3)] {
                try await connection.query(
                    "INSERT INTO users (id, user_handle, username, username_key, display_name, is_anonymous, created_at) VALUES (\(id), \(ByteBuffer(string: id)), \(name), \(key), \(name), false, \(Int64(created)))",
                    logger: logger)
            }
        }
        #expect(try await repository.migrate().applied == [13, 14, 15, 16, 17, 18, 19, 20])
        let keys = try await repository.withConnection("keys") { connection in
            try await connection.rows(#"SELECT id, username_key FROM users ORDER BY id COLLATE "C""#, logger).map { row in
                let reader = PostgresRowReader(row)
                return "\(try reader.value(0, String.self))=\(try reader.optional(1, String.self) ?? "-")"
            }
        }
        #expect(keys == ["u-bob=bob", "u-new=-", "u-old=carol"])
        #expect(try await repository.user(username: "ｃａｒｏｌ")?.id == "u-old")
        #expect(try await repository.user(username: "bob")?.id == "u-bob")
        let collisions = try await repository.usernameCollisions()
        #expect(collisions.map(\.account.id) == ["u-new"] && collisions.map(\.holder?.id) == ["u-old"])
        await repository.shutdown()
    }

    @Test("migration 17 names each account stored without a name by the name its passkeys carry, oldest first; a name another holds stays with it")
    func unnamedAccountsOnUpgrade() async throws {
        let repository = try await PostgresRepository.connect(try PostgresConfiguration(url: try freshURL()))
        let logger = repository.logger
        try await repository.withConnection("schema 16") { connection in
            try await connection.query("DELETE FROM schema_migrations WHERE version >= 17", logger: logger)
            // u-a1's name (anonymous-AQIDBAUG) is held, in other letters' case, by an account someone named so before.
            for (id, handle, name, created) in [
                ("u-squat", [UInt8](repeating: 7, count: 16), "ANONYMOUS-aqidbaug", 1), ("u-a1", [1, 2, 3, 4, 5, 6, 7, 8], nil, 2),
                ("u-a2", [9, 9, 9, 9, 9, 9, 9, 9], nil, 3), ("u-link", [4, 4, 4, 4, 4, 4, 4, 4], nil, 4),
            ] as [(String, [UInt8], String?, Int)] {
                try await connection.query(
                    "INSERT INTO users (id, user_handle, username, username_key, display_name, is_anonymous, created_at) VALUES (\(id), \(ByteBuffer(bytes: handle)), \(name), \(name.map(UsernameKey.of)), 'x', \(name == nil && id != "u-link"), \(Int64(created)))",
                    logger: logger)
            }
        }
        #expect(try await repository.migrate().applied == [17, 18, 19, 20])
        // Its name is held: it gets the longer one its handle gives (the whole 8-byte handle here).
        #expect(try await repository.user(id: "u-a1")?.username == "anonymous-AQIDBAUGBwg")
        #expect(try await repository.user(username: "anonymous-CQkJCQkJ")?.id == "u-a2")
        #expect(try await repository.user(username: "ANONYMOUS-cqkjcqkj")?.id == "u-a2", "found by the name in any case")
        #expect(try await repository.user(username: "anonymous-BAQEBAQE")?.id == "u-link")
        let (anonymous, linked) = (try await repository.user(id: "u-a2"), try await repository.user(id: "u-link"))
        #expect(anonymous?.isAnonymous == true && linked?.isAnonymous == false)

        // An instance of the previous version stores an account without a name while this one serves: the next start
        // names it, though every migration has run.
        try await repository.withConnection("an old instance") { connection in
            try await connection.query(
                "INSERT INTO users (id, user_handle, display_name, is_anonymous, created_at) VALUES ('u-late', \(ByteBuffer(bytes: [5, 5, 5, 5, 5, 5, 5])), 'x', TRUE, 5)",
                logger: logger)
        }
        #expect(try await repository.user(id: "u-late")?.username == nil)
        #expect(try await repository.migrate().applied.isEmpty)
        #expect(try await repository.user(username: "anonymous-BQUFBQUF")?.id == "u-late")
        await repository.shutdown()
    }

    @Test("more unnamed accounts than one naming batch, two of whose names differ only in case: all named at the next start, the later of the two by its longer name")
    func unnamedAccountsInBatches() async throws {
        let repository = try await PostgresRepository.connect(try PostgresConfiguration(url: try freshURL()))
        let logger = repository.logger
        let count = PostgresSchema.fillBatch + 5
        // Handles whose names differ even without case (and from the two below), so that only the pair collides.
        var handles: [String] = []
        var seen: Set<String> = ["anonymous-aaaaaaaa"]
        var n: UInt32 = 1
        while handles.count < count {
            let handle = withUnsafeBytes(of: n.bigEndian) { Array($0) } + [7, 7] + Array(repeating: 9, count: 10)
            if seen.insert(GeneratedUsername.legacy(userHandle: handle).lowercased()).inserted {
                handles.append(handle.map { String(format: "%02x", $0) }.joined())
            }
            n += 1
        }
        let hexHandles = handles
        let ids = handles.indices.map { "u-\($0)" }
        let created = handles.indices.map { Int64($0 + 1) }
        try await repository.withConnection("an old instance") { connection in
            try await connection.query(
                "INSERT INTO users (id, user_handle, display_name, is_anonymous, created_at) SELECT id, decode(h, 'hex'), 'x', TRUE, c FROM unnest(\(ids)::text[], \(hexHandles)::text[], \(created)::bigint[]) AS u(id, h, c)",
                logger: logger)
            // anonymous-AAAAAAAA (older) and anonymous-aaaaaaaa (later): one name, compared without case.
            try await connection.query(
                "INSERT INTO users (id, user_handle, display_name, is_anonymous, created_at) VALUES ('u-upper', \(ByteBuffer(bytes: [0, 0, 0, 0, 0, 0, 1])), 'x', TRUE, 0), ('u-lower', \(ByteBuffer(bytes: [0x69, 0xA6, 0x9A, 0x69, 0xA6, 0x9A, 1])), 'x', TRUE, \(count + 1))",
                logger: logger)
        }
        #expect(try await repository.migrate().applied.isEmpty)
        let unnamed = try await repository.withConnection("count") { connection in
            try await connection.query("SELECT count(*) FROM users WHERE username IS NULL", logger: logger).collect().first?.decode(Int.self)
        }
        #expect(unnamed == 0)
        #expect(try await repository.user(id: "u-upper")?.username == "anonymous-AAAAAAAA")
        #expect(try await repository.user(id: "u-lower")?.username == GeneratedUsername.make(userHandle: [0x69, 0xA6, 0x9A, 0x69, 0xA6, 0x9A, 1]))
        #expect(try await repository.user(username: "anonymous-AAAAAAAA")?.id == "u-upper")
        await repository.shutdown()
    }

    @Test("eight instances starting at once migrate once; a later run has nothing to do")
    func concurrentMigrations() async throws {
        let configuration = try PostgresConfiguration(url: try freshURL())
        let repositories = try await withThrowingTaskGroup(of: PostgresRepository.self) { group in
            for _ in 0..<8 { group.addTask { try await PostgresRepository.connect(configuration) } }
            return try await group.reduce(into: [PostgresRepository]()) { $0.append($1) }
        }
        let first = try #require(repositories.first)
        let report = try await first.migrate()
        #expect(report.applied.isEmpty && report.current == PostgresSchema.migrations.count && report.unknown.isEmpty)
        let logger = first.logger
        let recorded = try await first.withConnection("versions") { connection in
            try await connection.rows("SELECT version FROM schema_migrations ORDER BY version", logger).map { row in
                try PostgresRowReader(row).value(0, Int.self)
            }
        }
        #expect(recorded == PostgresSchema.migrations.map(\.version))
        for repository in repositories { await repository.shutdown() }
    }

    @Test("an import leaves the tables analysed: planned for their size, not as empty ones")
    func importAnalyses() async throws {
        let repository = try await PostgresRepository.connect(try PostgresConfiguration(url: try freshURL()))
        let logger = repository.logger
        func estimates() async throws -> [Double] {
            try await repository.withConnection("row estimates") { connection in
                var estimates: [Double] = []
                for table in ["users", "credentials"] {
                    let rows = try await connection.query(
                        PostgresQuery(unsafeSQL: "SELECT reltuples::float8 FROM pg_class WHERE oid = '\(table)'::regclass"), logger: logger)
                    for try await estimate in rows.decode(Double.self) { estimates.append(estimate) }
                }
                return estimates
            }
        }
        #expect(try await estimates() == [-1, -1], "never analysed")
        var records: [TransferRecord] = []
        for index in UInt8(1)...3 {
            let user = makeUser("user\(index)", handle: index)
            records += [.user(user, externalID: nil), .credential(makeCredential(index, user: user))]
        }
        try await repository.importRecords(records)
        #expect(try await estimates() == [3, 3])
        await repository.shutdown()
    }

    @Test("a row that does not decode is storage_corrupt")
    func corruptRow() async throws {
        let repository = try await PostgresRepository.connect(try PostgresConfiguration(url: try freshURL()))
        let logger = repository.logger
        // Only a damaged or foreign schema can hold such a row: loosen a constraint to plant one.
        try await repository.withConnection("plant a bad row") { connection in
            try await connection.query("ALTER TABLE users ALTER COLUMN display_name DROP NOT NULL", logger: logger)
            try await connection.query(
                "INSERT INTO users (id, user_handle, display_name, is_anonymous, created_at) VALUES ('bad', '\\x01', NULL, false, 0)",
                logger: logger)
        }
        let outcome = await storageCode { _ = try await repository.user(id: "bad") }
        #expect(outcome == .corrupt)
        await repository.shutdown()
    }

    @Test("a notification from one instance reaches a listener on another, and only in its own schema")
    func notifications() async throws {
        let url = try freshURL()
        let listener = try await PostgresRepository.connect(try PostgresConfiguration(url: url))
        let sender = try await PostgresRepository.connect(try PostgresConfiguration(url: url))
        let stranger = try await PostgresRepository.connect(try PostgresConfiguration(url: try freshURL()))
        var events = try listener.notifications("events").makeAsyncIterator()
        #expect(await events.next() == .listening)
        try await stranger.notify("events", payload: "not for you")
        try await sender.notify("events", payload: "registration 42")
        #expect(await events.next() == .message("registration 42"))
        await #expect(throws: StorageError(.unavailable, "")) { try await sender.notify("Bad Name", payload: "") }
        for repository in [listener, sender, stranger] { await repository.shutdown() }
    }
}
