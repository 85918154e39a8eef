import Foundation
import GRDB
import PasskeyStorage
import PasskeyWire

/// The SQLite schema, as numbered migrations. Times are integer milliseconds since 1970 (UTC); binary values are BLOBs.
enum SQLiteSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: users, credentials, challenges") { db in
            try db.execute(
                sql: """
                    CREATE TABLE users (
                        id TEXT PRIMARY KEY NOT NULL,
                        user_handle BLOB NOT NULL UNIQUE,
                        username TEXT UNIQUE COLLATE NOCASE,
                        display_name TEXT NOT NULL,
                        is_anonymous INTEGER NOT NULL,
                        created_at INTEGER NOT NULL,
                        last_sign_in_at INTEGER
                    );
                    CREATE INDEX users_created_at ON users (created_at);
                    CREATE TABLE credentials (
                        id BLOB PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                        public_key BLOB NOT NULL,
                        algorithm INTEGER NOT NULL,
                        sign_count INTEGER NOT NULL,
                        uv_initialized INTEGER NOT NULL,
                        transports TEXT NOT NULL,
                        backup_eligible INTEGER NOT NULL,
                        backup_state INTEGER NOT NULL,
                        aaguid TEXT NOT NULL,
                        attestation_format TEXT NOT NULL,
                        attestation_type TEXT NOT NULL,
                        name TEXT,
                        created_at INTEGER NOT NULL,
                        last_used_at INTEGER
                    );
                    CREATE INDEX credentials_user_id ON credentials (user_id);
                    CREATE TABLE challenges (
                        key TEXT PRIMARY KEY NOT NULL,
                        challenge TEXT NOT NULL UNIQUE,
                        ceremony TEXT NOT NULL,
                        user_id TEXT,
                        username TEXT,
                        display_name TEXT,
                        user_handle BLOB,
                        allowed_credential_ids TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL
                    );
                    CREATE INDEX challenges_expires_at ON challenges (expires_at);
                    """)
        }
        migrator.registerMigration("v2: secrets") { db in
            try db.execute(sql: "CREATE TABLE secrets (name TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL)")
        }
        migrator.registerMigration("v3: signing keys, API keys, connect tokens, external users, passkey reset") { db in
            try db.execute(
                sql: """
                    CREATE TABLE signing_keys (
                        id TEXT PRIMARY KEY NOT NULL,
                        algorithm TEXT NOT NULL,
                        private_key_pem TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        retires_at INTEGER
                    );
                    CREATE TABLE api_keys (
                        id TEXT PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL,
                        prefix TEXT NOT NULL,
                        secret_hash BLOB NOT NULL UNIQUE,
                        created_at INTEGER NOT NULL,
                        last_used_at INTEGER,
                        revoked_at INTEGER
                    );
                    CREATE TABLE connect_tokens (
                        hash BLOB PRIMARY KEY NOT NULL,
                        type TEXT NOT NULL,
                        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                        single_use INTEGER NOT NULL,
                        created_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL
                    );
                    CREATE INDEX connect_tokens_expires_at ON connect_tokens (expires_at);
                    CREATE TABLE used_token_ids (
                        id TEXT PRIMARY KEY NOT NULL,
                        expires_at INTEGER NOT NULL
                    );
                    CREATE INDEX used_token_ids_expires_at ON used_token_ids (expires_at);
                    CREATE TABLE external_users (
                        external_id TEXT PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL UNIQUE REFERENCES users (id) ON DELETE CASCADE
                    );
                    ALTER TABLE challenges ADD COLUMN replaces_credential_id BLOB;
                    ALTER TABLE challenges ADD COLUMN conditional INTEGER NOT NULL DEFAULT 0;
                    """)
        }
        migrator.registerMigration("v4: events, admins, admin credentials, invites and sessions") { db in
            try db.execute(
                sql: """
                    CREATE TABLE events (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        time INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        result TEXT NOT NULL,
                        code TEXT,
                        explanation TEXT,
                        user_id TEXT,
                        username TEXT,
                        credential_id_prefix TEXT,
                        origin TEXT,
                        rp_id TEXT,
                        expected TEXT,
                        received TEXT,
                        client_ip TEXT,
                        user_agent TEXT,
                        request_id TEXT
                    );
                    CREATE INDEX events_time ON events (time);
                    CREATE TABLE admins (
                        id TEXT PRIMARY KEY NOT NULL,
                        user_handle BLOB NOT NULL UNIQUE,
                        name TEXT NOT NULL,
                        created_at INTEGER NOT NULL
                    );
                    CREATE TABLE admin_credentials (
                        id BLOB PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL REFERENCES admins (id) ON DELETE CASCADE,
                        public_key BLOB NOT NULL,
                        algorithm INTEGER NOT NULL,
                        sign_count INTEGER NOT NULL,
                        uv_initialized INTEGER NOT NULL,
                        transports TEXT NOT NULL,
                        backup_eligible INTEGER NOT NULL,
                        backup_state INTEGER NOT NULL,
                        aaguid TEXT NOT NULL,
                        attestation_format TEXT NOT NULL,
                        attestation_type TEXT NOT NULL,
                        name TEXT,
                        created_at INTEGER NOT NULL,
                        last_used_at INTEGER
                    );
                    CREATE INDEX admin_credentials_user_id ON admin_credentials (user_id);
                    CREATE TABLE admin_invites (
                        hash BLOB PRIMARY KEY NOT NULL,
                        created_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL
                    );
                    CREATE TABLE admin_sessions (
                        hash BLOB PRIMARY KEY NOT NULL,
                        admin_id TEXT NOT NULL REFERENCES admins (id) ON DELETE CASCADE,
                        created_at INTEGER NOT NULL,
                        last_seen_at INTEGER NOT NULL,
                        verified_at INTEGER NOT NULL
                    );
                    """)
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
            try db.execute(
                sql: """
                    CREATE TRIGGER credentials_keep_last_sign_in AFTER DELETE ON credentials
                    WHEN OLD.last_used_at IS NOT NULL
                    BEGIN
                        UPDATE users SET last_sign_in_at = OLD.last_used_at
                        WHERE id = OLD.user_id AND (last_sign_in_at IS NULL OR last_sign_in_at < OLD.last_used_at);
                    END
                    """)
        }
        migrator.registerMigration("v18: accounts made without a name have the name their passkeys carry") { db in
            try nameUnnamedAccounts(db)
        }
        return migrator
    }
}
