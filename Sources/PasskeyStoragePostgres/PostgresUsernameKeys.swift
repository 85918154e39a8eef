import Logging
import PasskeyStorage
import PostgresNIO

/// Username keys and names kept right as the rules that make them change: run by migrations and at every start.
extension PostgresSchema {
    /// The migration from which accounts without a name are named at every start.
    static let unnamedAccountsVersion = 17

    /// Gives each account stored without a username the one its passkeys carry (``GeneratedUsername/legacy(userHandle:)``),
    /// oldest first, so that the name finds it and answers carry it; when another account holds that name (names are
    /// unique without case, and by key), the longer one its handle gives (``GeneratedUsername/make(userHandle:)``), which
    /// the signals of its next sign-in give its passkeys. In batches of one statement each, like the key fill; keys are
    /// then handed out as for any name (``fillUsernameKeys(_:logger:)``). Run at every start and after an import, outside
    /// any transaction: accounts an old instance made during a rolling upgrade, and accounts an import brought without a
    /// name, get theirs. A batch that meets a name stored meanwhile by another instance (23505) is done again one account
    /// at a time, and an account whose name is taken that way stays unnamed until the next start: it answers with the
    /// name its passkeys carry all the same (``UserEntityName``).
    static func nameUnnamedAccounts(_ connection: PostgresConnection, logger: Logger) async throws {
        var unnamed: [(id: String, handle: [UInt8])] = []
        let rows = try await connection.query(
            #"SELECT id, user_handle FROM users WHERE username IS NULL ORDER BY created_at, id COLLATE "C""#, logger: logger)
        for try await (id, handle) in rows.decode((String, ByteBuffer).self) { unnamed.append((id, Array(handle.readableBytesView))) }
        for form in [GeneratedUsername.legacy(userHandle:), GeneratedUsername.make(userHandle:)] {
            guard !unnamed.isEmpty else { break }
            // Oldest first, one account per name: a later account whose name an earlier one takes tries the next form.
            var seen: Set<String> = []
            let candidates = unnamed.compactMap { account -> (id: String, name: String)? in
                let name = form(account.handle)
                return seen.insert(name.lowercased()).inserted ? (account.id, name) : nil
            }
            var start = 0
            while start < candidates.count {
                let batch = candidates[start..<min(start + fillBatch, candidates.count)]
                start += fillBatch
                do {
                    try await nameAccounts(Array(batch), connection, logger: logger)
                } catch where PostgresErrorMapping.sqlState(of: error) == "23505" {
                    for account in batch {
                        do {
                            try await nameAccounts([account], connection, logger: logger)
                        } catch where PostgresErrorMapping.sqlState(of: error) == "23505" {
                            logger.notice("an account stays without a name until the next start: its name was stored meanwhile", metadata: ["user": "\(account.id)"])
                        }
                    }
                }
            }
            let named = Set(
                try await connection.query(
                    #"SELECT id FROM users WHERE id = ANY(\#(unnamed.map(\.id))::text[]) AND username IS NOT NULL"#, logger: logger
                ).collect().map { try $0.decode(String.self) })
            unnamed.removeAll { named.contains($0.id) }
        }
        try await fillUsernameKeys(connection, logger: logger)
    }

    /// One statement: each account of `accounts` takes its name unless it has one now or another account holds the name
    /// (compared as names are, without case, and by key).
    static func nameAccounts(_ accounts: [(id: String, name: String)], _ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            #"""
            UPDATE users SET username = u.name FROM unnest(\#(accounts.map(\.id))::text[], \#(accounts.map(\.name))::text[]) AS u(id, name)
            WHERE users.id = u.id AND users.username IS NULL AND NOT EXISTS (
                SELECT 1 FROM users other WHERE lower(other.username COLLATE "C") = lower(u.name COLLATE "C") OR other.username_key = lower(u.name))
            """#, logger: logger)
    }

    /// The migration that adds `users.username_key`.
    static let usernameKeyVersion = 6

    /// Gives accounts without one their ``UsernameKey``, oldest first (computed in Swift, so both stores and every
    /// database locale agree). Before keys, names were compared with ASCII-only case folding, so two accounts may differ
    /// only in the case of other letters (`Zoë`, `ZOË`): the older one gets the key; the newer one gets none, so it is
    /// not found by username (its passkeys still sign in without one, and the dashboard lists it).
    ///
    /// Also run at every start (``PostgresMigrator``): during a rolling upgrade, instances of the previous version create
    /// accounts without keys. Until they get one, ``userNamed(_:columns:)`` finds them.
    static func fillUsernameKeys(_ connection: PostgresConnection, logger: Logger) async throws {
        var named: [(id: String, name: String)] = []
        let rows = try await connection.query(
            #"SELECT id, username FROM users WHERE username IS NOT NULL AND username_key IS NULL ORDER BY created_at, id COLLATE "C""#,
            logger: logger)
        for try await (id, name) in rows.decode((String, String).self) { named.append((id, name)) }
        // Oldest first, one key per account: a later account whose key an earlier one takes keeps none.
        var seen: Set<String> = []
        let keyed = named.compactMap { user -> (id: String, key: String)? in
            let key = UsernameKey.of(user.name)
            return seen.insert(key).inserted ? (user.id, key) : nil
        }
        // In batches, one statement each: a statement per account made the migration of a large table slow.
        var start = 0
        while start < keyed.count {
            let batch = keyed[start..<min(start + fillBatch, keyed.count)]
            start += fillBatch
            do {
                try await setUsernameKeys(connection, Array(batch), logger: logger)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                // At a later start, an account registered meanwhile took one of the keys: the others still get theirs.
                for user in batch {
                    do { try await setUsernameKeys(connection, [user], logger: logger) } catch let error as PSQLError
                        where error.serverInfo?[.sqlState] == "23505"
                    {
                        logger.info("an account keeps no username key: another account has the same name", metadata: ["user_id": "\(user.id)"])
                    }
                }
            }
        }
    }

    static let fillBatch = 1_000

    /// Gives accounts and events the key ``UsernameKey`` computes now where it differs from the stored one: keys made
    /// before it folded capital sharp s (`ẞ`) kept an `ß` that other spellings of the name fold to `ss` (8), and keys
    /// made before the width mapping kept fullwidth letters (13). An account
    /// whose key changes, and any account holding the key it now gets, lose theirs, and ``fillUsernameKeys(_:logger:)``
    /// hands them out again oldest first, as migration 6 did. Only names with a letter outside ASCII can change, so only
    /// those are read.
    static func refreshUsernameKeys(_ connection: PostgresConnection, logger: Logger) async throws {
        var stale: [String] = []
        var wanted: [String] = []
        let users = try await connection.query(
            "SELECT id, username, username_key FROM users WHERE username_key IS NOT NULL AND username ~ '[^ -~]'", logger: logger)
        for try await (id, name, stored) in users.decode((String, String, String).self) {
            let key = UsernameKey.of(name)
            if key != stored {
                stale.append(id)
                wanted.append(key)
            }
        }
        if !stale.isEmpty {
            try await connection.query(
                "UPDATE users SET username_key = NULL WHERE id = ANY(\(stale)::text[]) OR username_key = ANY(\(wanted)::text[])", logger: logger)
            try await fillUsernameKeys(connection, logger: logger)
        }
        var events: [(name: String, stored: String, key: String)] = []
        let named = try await connection.query(
            "SELECT DISTINCT username, username_key FROM events WHERE username_key IS NOT NULL AND username ~ '[^ -~]'", logger: logger)
        for try await (name, stored) in named.decode((String, String).self) where UsernameKey.of(name) != stored {
            events.append((name, stored, UsernameKey.of(name)))
        }
        for event in events {
            try await connection.query(
                "UPDATE events SET username_key = \(event.key) WHERE username = \(event.name) AND username_key = \(event.stored)", logger: logger)
        }
    }

    /// Sets each account's key unless another account holds it already.
    private static func setUsernameKeys(_ connection: PostgresConnection, _ users: [(id: String, key: String)], logger: Logger) async throws {
        try await connection.query(
            """
            UPDATE users SET username_key = u.key FROM unnest(\(users.map(\.id))::text[], \(users.map(\.key))::text[]) AS u(id, key)
            WHERE users.id = u.id AND NOT EXISTS (SELECT 1 FROM users other WHERE other.username_key = u.key)
            """, logger: logger)
    }

    /// Selects `columns` of the account named `name`: by its ``UsernameKey``, or, for an account without one (see
    /// ``fillUsernameKeys(_:logger:)``), by the ASCII-only case folding names had before; one with a key first.
    static func userNamed(_ name: String, columns: String) -> PostgresQuery {
        var sql = PostgresQuery.StringInterpolation(literalCapacity: 200, interpolationCount: 2)
        sql.appendLiteral("SELECT \(columns) FROM users WHERE ")
        appendUsernameMatch(name, to: &sql)
        sql.appendLiteral(" ORDER BY username_key IS NULL LIMIT 1")
        return PostgresQuery(stringInterpolation: sql)
    }

    /// The condition of ``userNamed(_:columns:)`` on a row of `users`, for statements that test it themselves.
    static func appendUsernameMatch(_ name: String, to sql: inout PostgresQuery.StringInterpolation) {
        sql.appendLiteral("(username_key = ")
        sql.appendInterpolation(UsernameKey.of(name))
        sql.appendLiteral(#" OR (username_key IS NULL AND lower(username COLLATE "C") = lower("#)
        sql.appendInterpolation(name)
        sql.appendLiteral(#"::text COLLATE "C")))"#)
    }
}
