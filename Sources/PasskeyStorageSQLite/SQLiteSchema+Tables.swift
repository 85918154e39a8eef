// The SQL of the larger migrations, apart from the list of migrations that runs them.
extension SQLiteSchema {
    /// The first tables: accounts, their passkeys and ceremonies in progress.
    static let initialTables = """
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
        """

    /// Signing keys, API keys, connect tokens and the app's own user IDs.
    static let tokenTables = """
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
        """

    /// The event log, and the dashboard's admins with their passkeys, invites and sessions.
    static let adminTables = """
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
        """

    /// Keeps an account's last sign-in when the passkey that made it is deleted.
    static let keepLastSignInTrigger = """
        CREATE TRIGGER credentials_keep_last_sign_in AFTER DELETE ON credentials
        WHEN OLD.last_used_at IS NOT NULL
        BEGIN
            UPDATE users SET last_sign_in_at = OLD.last_used_at
            WHERE id = OLD.user_id AND (last_sign_in_at IS NULL OR last_sign_in_at < OLD.last_used_at);
        END
        """

    /// The FIDO metadata BLOB in force: one row (id 1), the BLOB as it came, replaced only by one with a higher serial.
    static let metadataTable = """
        CREATE TABLE metadata_blob (id INTEGER PRIMARY KEY CHECK (id = 1), number INTEGER NOT NULL, bytes BLOB NOT NULL,
            verified_at INTEGER NOT NULL, next_update INTEGER NOT NULL)
        """

    /// The OpenID Provider's clients, authorization codes, tokens and browser sessions. Codes, tokens and sessions are
    /// keyed by their secret's SHA-256; lists are JSON arrays of strings (a redirect URI may hold a comma). No foreign
    /// keys: a client's codes and tokens go with it in the same transaction, and expired rows go with the purge.
    static let openIDTables = """
        CREATE TABLE oidc_clients (
            id TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL,
            secret_hash BLOB,
            redirect_uris TEXT NOT NULL,
            post_logout_redirect_uris TEXT NOT NULL,
            scopes TEXT NOT NULL,
            id_token_algorithm TEXT NOT NULL,
            third_party INTEGER NOT NULL,
            access_token_lifetime INTEGER NOT NULL,
            refresh_token_lifetime INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            disabled_at INTEGER
        );
        CREATE TABLE oidc_codes (
            hash BLOB PRIMARY KEY NOT NULL,
            family_id TEXT NOT NULL,
            client_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            scopes TEXT NOT NULL,
            nonce TEXT,
            auth_time INTEGER NOT NULL,
            user_verified INTEGER NOT NULL,
            redirect_uri TEXT NOT NULL,
            code_challenge TEXT,
            expires_at INTEGER NOT NULL,
            used_at INTEGER
        );
        CREATE INDEX oidc_codes_family_id ON oidc_codes (family_id);
        CREATE INDEX oidc_codes_client_id ON oidc_codes (client_id);
        CREATE INDEX oidc_codes_expires_at ON oidc_codes (expires_at);
        CREATE TABLE oidc_tokens (
            hash BLOB PRIMARY KEY NOT NULL,
            kind TEXT NOT NULL,
            family_id TEXT NOT NULL,
            client_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            scopes TEXT NOT NULL,
            nonce TEXT,
            auth_time INTEGER NOT NULL,
            user_verified INTEGER NOT NULL,
            issued_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            used_at INTEGER
        );
        CREATE INDEX oidc_tokens_family_id ON oidc_tokens (family_id);
        CREATE INDEX oidc_tokens_client_id ON oidc_tokens (client_id);
        CREATE INDEX oidc_tokens_expires_at ON oidc_tokens (expires_at);
        CREATE TABLE oidc_sessions (
            hash BLOB PRIMARY KEY NOT NULL,
            user_id TEXT NOT NULL,
            auth_time INTEGER NOT NULL,
            user_verified INTEGER NOT NULL,
            expires_at INTEGER NOT NULL
        );
        CREATE INDEX oidc_sessions_expires_at ON oidc_sessions (expires_at);
        """
}
