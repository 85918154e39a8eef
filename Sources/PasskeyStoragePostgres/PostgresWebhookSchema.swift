import PasskeyStorage

/// The webhook tables, and the triggers that write the outbox in the transaction of each change (migration 14).
///
/// As on SQLite: a trigger fires on every path that changes an account or a passkey, and writes only while an enabled
/// endpoint receives its type. `webhook_enqueue` holds that rule once; the two trigger functions say what each change
/// reports. A user's deletion is reported once: its passkeys, deleted with it by the foreign key, find the account gone.
enum PostgresWebhookSchema {
    static let statements: [String] = [
        """
        CREATE TABLE webhook_endpoints (
            id TEXT PRIMARY KEY,
            url TEXT NOT NULL,
            description TEXT NOT NULL,
            event_types TEXT NOT NULL,
            secret TEXT NOT NULL,
            previous_secret TEXT,
            previous_secret_expires_at BIGINT,
            created_at BIGINT NOT NULL,
            disabled_at BIGINT,
            lease_owner TEXT,
            lease_until BIGINT
        )
        """,
        """
        CREATE TABLE webhook_messages (
            seq BIGSERIAL PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            type TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            user_id TEXT,
            username TEXT,
            display_name TEXT,
            external_user_id TEXT,
            credential_id BYTEA,
            credential_name TEXT,
            detail TEXT
        )
        """,
        """
        CREATE TABLE webhook_deliveries (
            endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
            message_seq BIGINT NOT NULL REFERENCES webhook_messages (seq) ON DELETE CASCADE,
            state TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            next_attempt_at BIGINT NOT NULL,
            last_attempt_at BIGINT,
            last_status INTEGER,
            last_error TEXT,
            PRIMARY KEY (endpoint_id, message_seq)
        )
        """,
        "CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (endpoint_id, message_seq) WHERE state = 'pending'",
        "CREATE INDEX webhook_deliveries_message ON webhook_deliveries (message_seq)",
        "CREATE INDEX webhook_messages_user_id ON webhook_messages (user_id)",
        "CREATE INDEX webhook_messages_created_at ON webhook_messages (created_at)",
        """
        CREATE FUNCTION webhook_enqueue(
            p_type TEXT, p_user_id TEXT, p_username TEXT, p_display_name TEXT, p_external_user_id TEXT, p_credential_id BYTEA,
            p_credential_name TEXT, p_detail TEXT
        ) RETURNS void LANGUAGE plpgsql AS $$
        DECLARE
            v_seq BIGINT;
            v_now BIGINT := (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT;
        BEGIN
            IF NOT EXISTS (
                SELECT 1 FROM webhook_endpoints
                WHERE disabled_at IS NULL AND (event_types = '*' OR position(' ' || p_type || ' ' IN event_types) > 0)
            ) THEN
                RETURN;
            END IF;
            INSERT INTO webhook_messages (id, type, created_at, user_id, username, display_name, external_user_id, credential_id,
                credential_name, detail)
            VALUES ('msg_' || replace(gen_random_uuid()::TEXT, '-', ''), p_type, v_now, p_user_id, p_username, p_display_name,
                COALESCE(p_external_user_id, (SELECT external_id FROM external_users WHERE user_id = p_user_id)), p_credential_id,
                p_credential_name, p_detail)
            RETURNING seq INTO v_seq;
            INSERT INTO webhook_deliveries (endpoint_id, message_seq, state, attempts, next_attempt_at)
            SELECT id, v_seq, 'pending', 0, v_now FROM webhook_endpoints
            WHERE disabled_at IS NULL AND (event_types = '*' OR position(' ' || p_type || ' ' IN event_types) > 0);
        END
        $$
        """,
        """
        CREATE FUNCTION webhook_users_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                PERFORM webhook_enqueue('user.created', NEW.id, NEW.username, NEW.display_name, NULL, NULL, NULL, NULL);
            ELSIF TG_OP = 'DELETE' THEN
                -- Before the delete: the link to the app's user id goes with the account.
                PERFORM webhook_enqueue('user.deleted', OLD.id, OLD.username, OLD.display_name,
                    (SELECT external_id FROM external_users WHERE user_id = OLD.id), NULL, NULL, NULL);
                RETURN OLD;
            ELSE
                IF OLD.username IS DISTINCT FROM NEW.username OR OLD.display_name IS DISTINCT FROM NEW.display_name THEN
                    PERFORM webhook_enqueue('user.updated', NEW.id, NEW.username, NEW.display_name, NULL, NULL, NULL, OLD.username);
                END IF;
                IF OLD.disabled_at IS NULL AND NEW.disabled_at IS NOT NULL THEN
                    PERFORM webhook_enqueue('user.disabled', NEW.id, NEW.username, NEW.display_name, NULL, NULL, NULL, NULL);
                ELSIF OLD.disabled_at IS NOT NULL AND NEW.disabled_at IS NULL THEN
                    PERFORM webhook_enqueue('user.enabled', NEW.id, NEW.username, NEW.display_name, NULL, NULL, NULL, NULL);
                END IF;
            END IF;
            RETURN NEW;
        END
        $$
        """,
        """
        CREATE FUNCTION webhook_credentials_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            v_username TEXT;
            v_display_name TEXT;
        BEGIN
            IF TG_OP = 'DELETE' THEN
                SELECT username, display_name INTO v_username, v_display_name FROM users WHERE id = OLD.user_id;
                -- Not when the account is gone: its deletion was reported as one user.deleted.
                IF FOUND THEN
                    PERFORM webhook_enqueue('passkey.deleted', OLD.user_id, v_username, v_display_name, NULL, OLD.id, OLD.name, NULL);
                END IF;
                RETURN OLD;
            END IF;
            SELECT username, display_name INTO v_username, v_display_name FROM users WHERE id = NEW.user_id;
            IF TG_OP = 'INSERT' THEN
                PERFORM webhook_enqueue('passkey.created', NEW.user_id, v_username, v_display_name, NULL, NEW.id, NEW.name, NEW.aaguid);
            ELSIF OLD.name IS DISTINCT FROM NEW.name THEN
                PERFORM webhook_enqueue('passkey.renamed', NEW.user_id, v_username, v_display_name, NULL, NEW.id, NEW.name, OLD.name);
            END IF;
            RETURN NEW;
        END
        $$
        """,
        // An account linked to the app's user id in the transaction that made it (connect makes the account first): its
        // messages not sent yet get the id.
        """
        CREATE FUNCTION webhook_user_linked() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE webhook_messages SET external_user_id = NEW.external_id WHERE user_id = NEW.user_id AND external_user_id IS NULL;
            RETURN NEW;
        END
        $$
        """,
        "CREATE TRIGGER webhook_user_linked AFTER INSERT ON external_users FOR EACH ROW EXECUTE FUNCTION webhook_user_linked()",
        "CREATE TRIGGER webhook_users_written AFTER INSERT OR UPDATE OF username, display_name, disabled_at ON users FOR EACH ROW EXECUTE FUNCTION webhook_users_changed()",
        "CREATE TRIGGER webhook_users_deleted BEFORE DELETE ON users FOR EACH ROW EXECUTE FUNCTION webhook_users_changed()",
        "CREATE TRIGGER webhook_credentials_changed AFTER INSERT OR UPDATE OF name OR DELETE ON credentials FOR EACH ROW EXECUTE FUNCTION webhook_credentials_changed()",
    ]
}
