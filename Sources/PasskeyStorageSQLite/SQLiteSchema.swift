import Foundation
import GRDB
import PasskeyStorage
import PasskeyWire

/// The SQLite schema, as numbered migrations. Times are integer milliseconds since 1970 (UTC); binary values are BLOBs.
enum SQLiteSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: users, credentials, challenges") { db in
            try db.execute(sql: initialTables)
        }
        migrator.registerMigration("v2: secrets") { db in
            try db.execute(sql: "CREATE TABLE secrets (name TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL)")
        }
        migrator.registerMigration("v3: signing keys, API keys, connect tokens, external users, passkey reset") { db in
            try db.execute(sql: tokenTables)
        }
        migrator.registerMigration("v4: events, admins, admin credentials, invites and sessions") { db in
            try db.execute(sql: adminTables)
        }
        migrator.registerMigration("v5: challenges are marked consumed and deleted when they expire") { db in
            try db.execute(sql: "ALTER TABLE challenges ADD COLUMN consumed INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v6: registrations for an existing account are marked") { db in
            try db.execute(sql: "ALTER TABLE challenges ADD COLUMN for_existing_user INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v7: usernames compare case-insensitively in every script") { db in
            try db.execute(sql: "ALTER TABLE users ADD COLUMN username_key TEXT")
            try db.execute(sql: "CREATE UNIQUE INDEX users_username_key ON users (username_key)")
            try fillUsernameKeys(db)
        }
        migrator.registerMigration("v8: events keep the username key") { db in
            // Events from before keep none and are matched by name as before (the dashboard keeps 30 days by default).
            try db.execute(sql: "ALTER TABLE events ADD COLUMN username_key TEXT")
        }
        migrator.registerMigration("v9: username keys fold capital sharp s") { db in
            try refreshUsernameKeys(db)
        }
        migrator.registerMigration("v10: connect tokens record the API key that minted them") { db in
            // Tokens from before keep none: they are not deleted with their key and expire on their own (minutes).
            try db.execute(sql: "ALTER TABLE connect_tokens ADD COLUMN api_key_id TEXT")
            try db.execute(sql: "CREATE INDEX connect_tokens_api_key_id ON connect_tokens (api_key_id)")
        }
        migrator.registerMigration("v11: accounts can be disabled") { db in
            try db.execute(sql: "ALTER TABLE users ADD COLUMN disabled_at INTEGER")
        }
        migrator.registerMigration("v12: a disable revokes the sign-in tokens issued before it") { db in
            try db.execute(sql: "ALTER TABLE users ADD COLUMN tokens_revoked_at INTEGER")
        }
        migrator.registerMigration("v13: registrations that create an account named by a contact") { db in
            try db.execute(sql: "ALTER TABLE challenges ADD COLUMN accepted_contacts TEXT")
        }
        migrator.registerMigration("v14: username keys map fullwidth and halfwidth forms") { db in
            // RFC 8265's width mapping (``WidthMapping``): "ｃａｒｏｌ" was another name than "carol". Of two accounts
            // that now share a key the older keeps it (``SQLiteRepository/usernameCollisions()`` lists the other).
            try refreshUsernameKeys(db)
        }
        migrator.registerMigration("v15: webhook endpoints, outbox and deliveries") { db in
            try db.execute(sql: SQLiteWebhookSchema.tables)
            for trigger in SQLiteWebhookSchema.triggers { try db.execute(sql: trigger) }
        }
        migrator.registerMigration("v16: sign-in challenges are sealed, and only spent ones are stored") { db in
            // One row per sealed sign-in challenge used, until it expires: the primary key makes its single use. Expiry
            // first: sign-ins finish in about the order their options were made, so a batch's new rows share the
            // b-tree's last page instead of dirtying a random page each, and the purge deletes a range from its start.
            try db.execute(
                sql: "CREATE TABLE spent_challenges (expires_at INTEGER NOT NULL, key TEXT NOT NULL, PRIMARY KEY (expires_at, key)) WITHOUT ROWID")
        }
        migrator.registerMigration("v17: a sign-in writes only its passkey's row") { db in
            // An account's last sign-in is read as the later of its own column and its passkeys' last use (see
            // `userColumns`), so a passkey deleted takes nothing with it: its last use moves onto the account first.
            // When the account itself is deleted, its row is gone before its passkeys are, and this updates nothing.
            try db.execute(sql: keepLastSignInTrigger)
        }
        migrator.registerMigration("v18: accounts made without a name have the name their passkeys carry") { db in
            try nameUnnamedAccounts(db)
        }
        migrator.registerMigration("v19: the FIDO metadata BLOB in force") { db in
            try db.execute(sql: metadataTable)
        }
        migrator.registerMigration("v20: OpenID Provider clients, codes, tokens and sessions") { db in
            try db.execute(sql: openIDTables)
        }
        return migrator
    }
}
