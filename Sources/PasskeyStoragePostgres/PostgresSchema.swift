import Logging
import PasskeyStorage
import PostgresNIO

/// The PostgreSQL schema, as numbered migrations applied in order and recorded in `schema_migrations`.
///
/// Same tables and meaning as the SQLite schema: times are integer milliseconds since 1970 (UTC), so both stores round
/// alike; usernames are unique by their ``UsernameKey`` (computed in Swift, stored in `username_key`), whatever the
/// database's locale. Each statement is one element: the extended query protocol runs one statement at a time.
///
/// A new store (signing keys, API keys, events…) appends a migration here and adds its repository file; a migration is
/// never edited once released.
struct PostgresMigration: Sendable {
    let version: Int
    let name: String
    let statements: [String]
    /// Work SQL cannot do (values computed in Swift), run after `statements` in the same transaction.
    var then: (@Sendable (PostgresConnection, Logger) async throws -> Void)? = nil
}

enum PostgresSchema {
    static let migrations: [PostgresMigration] = [
        PostgresMigration(
            version: 1, name: "users, credentials, challenges",
            statements: [
                """
                CREATE TABLE users (
                    id TEXT PRIMARY KEY,
                    user_handle BYTEA NOT NULL UNIQUE,
                    username TEXT,
                    display_name TEXT NOT NULL,
                    is_anonymous BOOLEAN NOT NULL,
                    created_at BIGINT NOT NULL,
                    last_sign_in_at BIGINT
                )
                """,
                #"CREATE UNIQUE INDEX users_username_key ON users (lower(username COLLATE "C"))"#,
                "CREATE INDEX users_created_at ON users (created_at)",
                """
                CREATE TABLE credentials (
                    id BYTEA PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    public_key BYTEA NOT NULL,
                    algorithm INTEGER NOT NULL,
                    sign_count BIGINT NOT NULL CHECK (sign_count BETWEEN 0 AND 4294967295),
                    uv_initialized BOOLEAN NOT NULL,
                    transports TEXT[] NOT NULL,
                    backup_eligible BOOLEAN NOT NULL,
                    backup_state BOOLEAN NOT NULL,
                    aaguid TEXT NOT NULL,
                    attestation_format TEXT NOT NULL,
                    attestation_type TEXT NOT NULL,
                    name TEXT,
                    created_at BIGINT NOT NULL,
                    last_used_at BIGINT
                )
                """,
                "CREATE INDEX credentials_user_id ON credentials (user_id)",
                """
                CREATE TABLE challenges (
                    key TEXT PRIMARY KEY,
                    challenge TEXT NOT NULL UNIQUE,
                    ceremony TEXT NOT NULL,
                    user_id TEXT,
                    username TEXT,
                    display_name TEXT,
                    user_handle BYTEA,
                    allowed_credential_ids BYTEA[] NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX challenges_expires_at ON challenges (expires_at)",
            ]),
        PostgresMigration(
            version: 2, name: "secrets",
            statements: ["CREATE TABLE secrets (name TEXT PRIMARY KEY, value BYTEA NOT NULL)"]),
        PostgresMigration(
            version: 3, name: "signing keys, API keys, connect tokens, external users, passkey reset",
            statements: [
                """
                CREATE TABLE signing_keys (
                    id TEXT PRIMARY KEY,
                    algorithm TEXT NOT NULL,
                    private_key_pem TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    retires_at BIGINT
                )
                """,
                """
                CREATE TABLE api_keys (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL,
                    prefix TEXT NOT NULL,
                    secret_hash BYTEA NOT NULL UNIQUE,
                    created_at BIGINT NOT NULL,
                    last_used_at BIGINT,
                    revoked_at BIGINT
                )
                """,
                """
                CREATE TABLE connect_tokens (
                    hash BYTEA PRIMARY KEY,
                    type TEXT NOT NULL,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    single_use BOOLEAN NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX connect_tokens_expires_at ON connect_tokens (expires_at)",
                "CREATE TABLE used_token_ids (id TEXT PRIMARY KEY, expires_at BIGINT NOT NULL)",
                "CREATE INDEX used_token_ids_expires_at ON used_token_ids (expires_at)",
                """
                CREATE TABLE external_users (
                    external_id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL UNIQUE REFERENCES users (id) ON DELETE CASCADE
                )
                """,
                "ALTER TABLE challenges ADD COLUMN replaces_credential_id BYTEA",
                "ALTER TABLE challenges ADD COLUMN conditional BOOLEAN NOT NULL DEFAULT false",
            ]),
        PostgresMigration(
            version: 4, name: "events, admins, admin credentials, invites and sessions",
            statements: [
                """
                CREATE TABLE events (
                    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    time BIGINT NOT NULL,
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
                )
                """,
                "CREATE INDEX events_time ON events (time)",
                """
                CREATE TABLE admins (
                    id TEXT PRIMARY KEY,
                    user_handle BYTEA NOT NULL UNIQUE,
                    name TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE admin_credentials (
                    id BYTEA PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES admins (id) ON DELETE CASCADE,
                    public_key BYTEA NOT NULL,
                    algorithm INTEGER NOT NULL,
                    sign_count BIGINT NOT NULL CHECK (sign_count BETWEEN 0 AND 4294967295),
                    uv_initialized BOOLEAN NOT NULL,
                    transports TEXT[] NOT NULL,
                    backup_eligible BOOLEAN NOT NULL,
                    backup_state BOOLEAN NOT NULL,
                    aaguid TEXT NOT NULL,
                    attestation_format TEXT NOT NULL,
                    attestation_type TEXT NOT NULL,
                    name TEXT,
                    created_at BIGINT NOT NULL,
                    last_used_at BIGINT
                )
                """,
                "CREATE INDEX admin_credentials_user_id ON admin_credentials (user_id)",
                "CREATE TABLE admin_invites (hash BYTEA PRIMARY KEY, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)",
                """
                CREATE TABLE admin_sessions (
                    hash BYTEA PRIMARY KEY,
                    admin_id TEXT NOT NULL REFERENCES admins (id) ON DELETE CASCADE,
                    created_at BIGINT NOT NULL,
                    last_seen_at BIGINT NOT NULL,
                    verified_at BIGINT NOT NULL
                )
                """,
            ]),
        PostgresMigration(
            version: 5, name: "registrations for an existing account are marked",
            statements: ["ALTER TABLE challenges ADD COLUMN for_existing_user BOOLEAN NOT NULL DEFAULT false"]),
        PostgresMigration(
            version: usernameKeyVersion, name: "usernames compare case-insensitively in every script",
            statements: ["ALTER TABLE users ADD COLUMN username_key TEXT"],
            then: { connection, logger in
                // The index first: the fill's checks for a key already taken then use it (no key is taken yet).
                try await connection.query("CREATE UNIQUE INDEX users_username_key_full ON users (username_key)", logger: logger)
                try await fillUsernameKeys(connection, logger: logger)
            }),
        PostgresMigration(
            version: 7, name: "events keep the username key",
            // Events from before keep none and are matched by name as before (the dashboard keeps 30 days by default).
            statements: ["ALTER TABLE events ADD COLUMN username_key TEXT"]),
        PostgresMigration(
            version: 8, name: "username keys fold capital sharp s", statements: [],
            then: { connection, logger in try await refreshUsernameKeys(connection, logger: logger) }),
        PostgresMigration(
            version: 9, name: "connect tokens record the API key that minted them",
            // Tokens from before keep none: they are not deleted with their key and expire on their own (minutes).
            statements: [
                "ALTER TABLE connect_tokens ADD COLUMN api_key_id TEXT",
                "CREATE INDEX connect_tokens_api_key_id ON connect_tokens (api_key_id)",
            ]),
        PostgresMigration(
            version: 10, name: "accounts can be disabled", statements: ["ALTER TABLE users ADD COLUMN disabled_at BIGINT"]),
        PostgresMigration(
            version: 11, name: "a disable revokes the sign-in tokens issued before it",
            statements: ["ALTER TABLE users ADD COLUMN tokens_revoked_at BIGINT"]),
        PostgresMigration(
            version: 12, name: "registrations that create an account named by a contact",
            statements: ["ALTER TABLE challenges ADD COLUMN accepted_contacts TEXT"]),
        PostgresMigration(
            // RFC 8265's width mapping (``WidthMapping``): "ｃａｒｏｌ" was another name than "carol". Of two accounts that
            // now share a key the older keeps it (``PostgresRepository/usernameCollisions()`` lists the other).
            version: 13, name: "username keys map fullwidth and halfwidth forms", statements: [],
            then: { connection, logger in try await refreshUsernameKeys(connection, logger: logger) }),
        PostgresMigration(version: 14, name: "webhook endpoints, outbox and deliveries", statements: PostgresWebhookSchema.statements),
        PostgresMigration(
            // One row per sealed sign-in challenge used, until it expires: the primary key makes its single use across
            // instances. Expiry first: sign-ins finish in about the order their options were made, so new rows go to
            // the index's right edge instead of a random page, and the purge takes a range from its left edge.
            version: 15, name: "sign-in challenges are sealed, and only spent ones are stored",
            statements: ["CREATE TABLE spent_challenges (expires_at BIGINT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (expires_at, key))"]),
        PostgresMigration(
            // An account's last sign-in is read as the later of its own column and its passkeys' last use (see
            // `userColumns`), so a passkey deleted takes nothing with it: its last use moves onto the account first.
            // When the account itself is deleted, its row is gone before its passkeys are, and this updates nothing.
            // Instances of the previous version still write the account's column too, which reads the same.
            version: 16, name: "a sign-in writes only its passkey's row",
            statements: [
                """
                CREATE FUNCTION credentials_keep_last_sign_in() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    UPDATE users SET last_sign_in_at = OLD.last_used_at
                    WHERE id = OLD.user_id AND (last_sign_in_at IS NULL OR last_sign_in_at < OLD.last_used_at);
                    RETURN NULL;
                END
                $$
                """,
                """
                CREATE TRIGGER credentials_keep_last_sign_in AFTER DELETE ON credentials
                FOR EACH ROW WHEN (OLD.last_used_at IS NOT NULL) EXECUTE FUNCTION credentials_keep_last_sign_in()
                """,
            ]),
        PostgresMigration(
            // The naming itself runs after the migration's transaction, at every start (PostgresMigrator): there a
            // name another instance stores meanwhile only leaves one account unnamed, instead of failing the start.
            version: unnamedAccountsVersion, name: "accounts made without a name have the name their passkeys carry", statements: []),
        PostgresMigration(
            // That pass at every start reads only the accounts still without a name: few or none, found by this index
            // instead of a scan of every account.
            version: 18, name: "accounts without a name are found without a scan",
            statements: [#"CREATE INDEX IF NOT EXISTS users_unnamed ON users (created_at, id COLLATE "C") WHERE username IS NULL"#]),
        PostgresMigration(
            // One row (id 1): the BLOB as it came, replaced only by one with a higher serial number, so every instance
            // uses the same one and none can store an older one over it.
            version: 19, name: "the FIDO metadata BLOB in force",
            statements: [
                """
                CREATE TABLE IF NOT EXISTS metadata_blob (id INTEGER PRIMARY KEY CHECK (id = 1), number BIGINT NOT NULL, bytes BYTEA NOT NULL,
                    verified_at BIGINT NOT NULL, next_update BIGINT NOT NULL)
                """
            ]),
        PostgresMigration(
            // The OpenID Provider's state, shared by every instance: a code made on one is exchanged on another, and a
            // reused one is caught on any. Codes, tokens and sessions are keyed by their secret's SHA-256. No foreign
            // keys: a client's codes and tokens go with it in the same transaction, and expired rows go with the purge.
            version: 20, name: "OpenID Provider clients, codes, tokens and sessions",
            statements: [
                """
                CREATE TABLE IF NOT EXISTS oidc_clients (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL,
                    secret_hash BYTEA,
                    redirect_uris TEXT[] NOT NULL,
                    post_logout_redirect_uris TEXT[] NOT NULL,
                    scopes TEXT[] NOT NULL,
                    id_token_algorithm TEXT NOT NULL,
                    third_party BOOLEAN NOT NULL,
                    access_token_lifetime BIGINT NOT NULL,
                    refresh_token_lifetime BIGINT NOT NULL,
                    created_at BIGINT NOT NULL,
                    disabled_at BIGINT
                )
                """,
                """
                CREATE TABLE IF NOT EXISTS oidc_codes (
                    hash BYTEA PRIMARY KEY,
                    family_id TEXT NOT NULL,
                    client_id TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    scopes TEXT[] NOT NULL,
                    nonce TEXT,
                    auth_time BIGINT NOT NULL,
                    user_verified BOOLEAN NOT NULL,
                    redirect_uri TEXT NOT NULL,
                    code_challenge TEXT,
                    expires_at BIGINT NOT NULL,
                    used_at BIGINT
                )
                """,
                "CREATE INDEX IF NOT EXISTS oidc_codes_family_id ON oidc_codes (family_id)",
                "CREATE INDEX IF NOT EXISTS oidc_codes_client_id ON oidc_codes (client_id)",
                "CREATE INDEX IF NOT EXISTS oidc_codes_expires_at ON oidc_codes (expires_at)",
                """
                CREATE TABLE IF NOT EXISTS oidc_tokens (
                    hash BYTEA PRIMARY KEY,
                    kind TEXT NOT NULL,
                    family_id TEXT NOT NULL,
                    client_id TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    scopes TEXT[] NOT NULL,
                    nonce TEXT,
                    auth_time BIGINT NOT NULL,
                    user_verified BOOLEAN NOT NULL,
                    issued_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    used_at BIGINT
                )
                """,
                "CREATE INDEX IF NOT EXISTS oidc_tokens_family_id ON oidc_tokens (family_id)",
                "CREATE INDEX IF NOT EXISTS oidc_tokens_client_id ON oidc_tokens (client_id)",
                "CREATE INDEX IF NOT EXISTS oidc_tokens_expires_at ON oidc_tokens (expires_at)",
                """
                CREATE TABLE IF NOT EXISTS oidc_sessions (
                    hash BYTEA PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    auth_time BIGINT NOT NULL,
                    user_verified BOOLEAN NOT NULL,
                    expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX IF NOT EXISTS oidc_sessions_expires_at ON oidc_sessions (expires_at)",
            ]),
    ]
}
