import PasskeyStorage

/// The webhook tables and the triggers that write the outbox in the transaction of each change (migration v15).
///
/// A trigger fires on every path that changes an account or a passkey (ceremonies, the API, the dashboard, the shell,
/// an import), and writes only while an enabled endpoint receives its type, so a server without webhooks pays one
/// lookup in a tiny table per change. A user's deletion is reported once: its passkeys, deleted with it by the foreign
/// key, are not reported one by one (their trigger finds the account gone).
enum SQLiteWebhookSchema {
    static let tables = """
        CREATE TABLE webhook_endpoints (
            id TEXT PRIMARY KEY NOT NULL,
            url TEXT NOT NULL,
            description TEXT NOT NULL,
            event_types TEXT NOT NULL,
            secret TEXT NOT NULL,
            previous_secret TEXT,
            previous_secret_expires_at INTEGER,
            created_at INTEGER NOT NULL,
            disabled_at INTEGER,
            lease_owner TEXT,
            lease_until INTEGER
        );
        CREATE TABLE webhook_messages (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            type TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            user_id TEXT,
            username TEXT,
            display_name TEXT,
            external_user_id TEXT,
            credential_id BLOB,
            credential_name TEXT,
            detail TEXT
        );
        CREATE TABLE webhook_deliveries (
            endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
            message_seq INTEGER NOT NULL REFERENCES webhook_messages (seq) ON DELETE CASCADE,
            state TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            next_attempt_at INTEGER NOT NULL,
            last_attempt_at INTEGER,
            last_status INTEGER,
            last_error TEXT,
            PRIMARY KEY (endpoint_id, message_seq)
        ) WITHOUT ROWID;
        CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (endpoint_id, message_seq) WHERE state = 'pending';
        CREATE INDEX webhook_deliveries_message ON webhook_deliveries (message_seq);
        CREATE INDEX webhook_messages_user_id ON webhook_messages (user_id);
        CREATE INDEX webhook_messages_created_at ON webhook_messages (created_at);
        """

    /// The endpoints that receive `type` (an SQL string expression).
    static func receivers(_ type: String) -> String {
        "webhook_endpoints WHERE disabled_at IS NULL AND (event_types = '*' OR instr(event_types, ' ' || \(type) || ' ') > 0)"
    }

    /// Now, in integer milliseconds since 1970 (SQLite 3.40 has no `unixepoch('subsec')`).
    static let nowMilliseconds = "CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER)"

    /// One trigger: on `event` of `table` (when `condition` holds, in terms of `NEW`/`OLD`), a message of `type` whose
    /// columns are these SQL expressions.
    static func trigger(
        _ name: String, _ event: String, _ condition: String?, type: WebhookEventType, userID: String, username: String,
        displayName: String, externalUserID: String? = nil, credentialID: String = "NULL", credentialName: String = "NULL",
        detail: String = "NULL"
    ) -> String {
        let quoted = "'\(type.rawValue)'"
        // The app's user id linked to the account, as it is now (see `linkedTrigger` for a link made just after).
        let externalUserID = externalUserID ?? "(SELECT external_id FROM external_users WHERE user_id = \(userID))"
        let when = ["EXISTS (SELECT 1 FROM \(receivers(quoted)))", condition].compactMap { $0 }.joined(separator: " AND ")
        return """
            CREATE TRIGGER webhook_\(name) \(event) FOR EACH ROW WHEN \(when)
            BEGIN
                INSERT INTO webhook_messages (id, type, created_at, user_id, username, display_name, external_user_id, credential_id,
                    credential_name, detail)
                VALUES ('msg_' || lower(hex(randomblob(16))), \(quoted), \(nowMilliseconds), \(userID), \(username), \(displayName),
                    \(externalUserID), \(credentialID), \(credentialName), \(detail));
                INSERT INTO webhook_deliveries (endpoint_id, message_seq, state, attempts, next_attempt_at)
                SELECT id, (SELECT max(seq) FROM webhook_messages), 'pending', 0, \(nowMilliseconds) FROM \(receivers(quoted));
            END
            """
    }

    static let owner = "(SELECT username FROM users WHERE id = %@.user_id)"
    static let ownerDisplayName = "(SELECT display_name FROM users WHERE id = %@.user_id)"

    /// An account linked to the app's user id in the transaction that made it (connect makes the account first): its
    /// messages not sent yet get the id.
    static let linkedTrigger = """
        CREATE TRIGGER webhook_user_linked AFTER INSERT ON external_users FOR EACH ROW
        WHEN EXISTS (SELECT 1 FROM webhook_messages WHERE user_id = NEW.user_id AND external_user_id IS NULL)
        BEGIN
            UPDATE webhook_messages SET external_user_id = NEW.external_id WHERE user_id = NEW.user_id AND external_user_id IS NULL;
        END
        """

    static var triggers: [String] {
        func user(_ row: String) -> (String, String, String) { ("\(row).id", "\(row).username", "\(row).display_name") }
        func ofPasskey(_ row: String) -> (String, String, String) {
            ("\(row).user_id", owner.replacingOccurrences(of: "%@", with: row), ownerDisplayName.replacingOccurrences(of: "%@", with: row))
        }
        let new = user("NEW")
        let old = user("OLD")
        return [
            linkedTrigger,
            trigger("user_created", "AFTER INSERT ON users", nil, type: .userCreated, userID: new.0, username: new.1, displayName: new.2),
            trigger(
                "user_updated", "AFTER UPDATE OF username, display_name ON users",
                "(OLD.username IS NOT NEW.username OR OLD.display_name IS NOT NEW.display_name)", type: .userUpdated, userID: new.0,
                username: new.1, displayName: new.2, detail: "OLD.username"),
            trigger(
                "user_disabled", "AFTER UPDATE OF disabled_at ON users", "OLD.disabled_at IS NULL AND NEW.disabled_at IS NOT NULL",
                type: .userDisabled, userID: new.0, username: new.1, displayName: new.2),
            trigger(
                "user_enabled", "AFTER UPDATE OF disabled_at ON users", "OLD.disabled_at IS NOT NULL AND NEW.disabled_at IS NULL",
                type: .userEnabled, userID: new.0, username: new.1, displayName: new.2),
            // Before: the link to the app's user id is deleted with the account.
            trigger(
                "user_deleted", "BEFORE DELETE ON users", nil, type: .userDeleted, userID: old.0, username: old.1, displayName: old.2,
                externalUserID: "(SELECT external_id FROM external_users WHERE user_id = OLD.id)"),
            trigger(
                "passkey_created", "AFTER INSERT ON credentials", nil, type: .passkeyCreated, userID: ofPasskey("NEW").0,
                username: ofPasskey("NEW").1, displayName: ofPasskey("NEW").2, credentialID: "NEW.id", credentialName: "NEW.name",
                detail: "NEW.aaguid"),
            trigger(
                "passkey_renamed", "AFTER UPDATE OF name ON credentials", "OLD.name IS NOT NEW.name", type: .passkeyRenamed,
                userID: ofPasskey("NEW").0, username: ofPasskey("NEW").1, displayName: ofPasskey("NEW").2, credentialID: "NEW.id",
                credentialName: "NEW.name", detail: "OLD.name"),
            // Not when the account is gone: its deletion was reported as one user.deleted.
            trigger(
                "passkey_deleted", "AFTER DELETE ON credentials", "EXISTS (SELECT 1 FROM users WHERE id = OLD.user_id)", type: .passkeyDeleted,
                userID: ofPasskey("OLD").0, username: ofPasskey("OLD").1, displayName: ofPasskey("OLD").2, credentialID: "OLD.id",
                credentialName: "OLD.name"),
        ]
    }
}
