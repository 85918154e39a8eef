import Foundation
import GRDB
import PasskeyStorage
import PasskeyWire

/// Username keys kept right as the rules that make them change: run by migrations and at every open.
extension SQLiteSchema {
    /// Gives each account stored without a username the one its passkeys carry (``GeneratedUsername/legacy(userHandle:)``),
    /// oldest first, so that the name finds it and answers carry it; when another account holds that name (by the name
    /// column, unique without case, or by key), the longer one its handle gives (``GeneratedUsername/make(userHandle:)``),
    /// which the signals of its next sign-in give its passkeys. Keys are handed out as for any name
    /// (``fillUsernameKeys(_:)``). Run by migration v18, at every open and at the end of an import, in the writer's
    /// transaction: accounts an old instance made during a rolling upgrade, and accounts an import brought without a
    /// name, get theirs.
    static func nameUnnamedAccounts(_ db: Database) throws {
        let rows = try Row.fetchAll(db, sql: "SELECT id, user_handle FROM users WHERE username IS NULL ORDER BY created_at, id")
        for row in rows {
            let id: String = row[0]
            let handle = Array(row[1] as Data)
            for name in [GeneratedUsername.legacy(userHandle: handle), GeneratedUsername.make(userHandle: handle)] {
                try db.execute(
                    sql: """
                        UPDATE users SET username = ? WHERE id = ?
                        AND NOT EXISTS (SELECT 1 FROM users WHERE username = ? COLLATE NOCASE OR username_key = ?)
                        """,
                    arguments: [name, id, name, UsernameKey.of(name)])
                if db.changesCount == 1 { break }
            }
        }
        try fillUsernameKeys(db)
    }

    /// The condition that finds an account by name (two arguments: the name's ``UsernameKey``, then the name): by key,
    /// or, for an account without one (see ``fillUsernameKeys(_:)``), by the ASCII-only case folding names had before.
    static let usernameMatch = "(username_key = ? OR (username_key IS NULL AND username = ? COLLATE NOCASE))"

    /// Gives accounts and events the key ``UsernameKey`` computes now where it differs from the stored one: keys made
    /// before it folded capital sharp s (`ẞ`) kept an `ß` that other spellings of the name fold to `ss` (v9), and keys
    /// made before the width mapping kept fullwidth letters (v14). An account
    /// whose key changes, and any account holding the key it now gets, lose theirs, and ``fillUsernameKeys(_:)`` hands
    /// them out again oldest first, as migration v7 did. Only names with a letter outside ASCII can change, so only
    /// those are read.
    static func refreshUsernameKeys(_ db: Database) throws {
        let nonASCII = "username GLOB '*[^ -~]*'"
        var stale: [String] = []
        var wanted: Set<String> = []
        for row in try Row.fetchAll(db, sql: "SELECT id, username, username_key FROM users WHERE username_key IS NOT NULL AND \(nonASCII)") {
            let name: String = row[1]
            let stored: String = row[2]
            let key = UsernameKey.of(name)
            if key != stored {
                stale.append(row[0])
                wanted.insert(key)
            }
        }
        for id in stale { try db.execute(sql: "UPDATE users SET username_key = NULL WHERE id = ?", arguments: [id]) }
        for key in wanted { try db.execute(sql: "UPDATE users SET username_key = NULL WHERE username_key = ?", arguments: [key]) }
        try fillUsernameKeys(db)
        for row in try Row.fetchAll(
            db, sql: "SELECT DISTINCT username, username_key FROM events WHERE username_key IS NOT NULL AND \(nonASCII)")
        {
            let name: String = row[0]
            let stored: String = row[1]
            let key = UsernameKey.of(name)
            if key != stored {
                try db.execute(
                    sql: "UPDATE events SET username_key = ? WHERE username = ? AND username_key = ?", arguments: [key, name, stored])
            }
        }
    }

    /// Gives accounts without one their ``UsernameKey``, oldest first, unless another account holds it. Before keys,
    /// names were compared with ASCII-only case folding, so two accounts may differ only in the case of other letters
    /// (`Zoë`, `ZOË`): the older one gets the key; the newer one gets none, so it is not found by username (its passkeys
    /// still sign in without one, and the dashboard lists it) until the holder of the key is deleted.
    ///
    /// Run by migration v7 and at every open (``SQLiteRepository/init(path:)``), so such an account gets its key once it
    /// is free, as on PostgreSQL.
    static func fillUsernameKeys(_ db: Database) throws {
        let rows = try Row.fetchAll(
            db, sql: "SELECT id, username FROM users WHERE username IS NOT NULL AND username_key IS NULL ORDER BY created_at, id")
        for row in rows {
            let id: String = row[0]
            let name: String = row[1]
            let key = UsernameKey.of(name)
            try db.execute(
                sql: "UPDATE users SET username_key = ? WHERE id = ? AND NOT EXISTS (SELECT 1 FROM users WHERE username_key = ?)",
                arguments: [key, id, key])
        }
    }
}
