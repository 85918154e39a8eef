import Foundation
import Logging
import PasskeyStorage
import PasskeyWire
import PostgresNIO

/// The statements every ceremony runs, as named prepared statements: PostgreSQL parses and plans each once per
/// connection instead of on every call. With plain queries, parsing and planning took over half of the database's CPU
/// in the sign-in benchmark (`passkey-server-bench --storage postgres`, see docs/benchmarks.md).
///
/// Each parameter carries an explicit cast, so the types PostgreSQL infers when it prepares a statement are the types
/// the bindings are sent as (a `NULL` binding has no type of its own).
///
/// Connection poolers in front of PostgreSQL must pass protocol-level prepared statements through (PgBouncer ≥ 1.21 with
/// `max_prepared_statements` set, or session pooling): see docs/deploy.md.
protocol RowsStatement: PostgresPreparedStatement where Row == PostgresRow {}

extension RowsStatement {
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

extension PostgresConnection {
    /// Runs a prepared statement and returns its rows.
    func rows<Statement: RowsStatement>(_ statement: Statement, _ logger: Logger) async throws -> [PostgresRow] {
        var rows: [PostgresRow] = []
        for try await row in try await execute(statement, logger: logger) { rows.append(row) }
        return rows
    }
}

/// A sign-in's context in one row: the challenge (by key or by value), the credential, its owner, the owner's
/// external user id, the IDs of the owner's passkeys, and whether a sealed challenge with key `$1` and expiry `$3` was
/// spent, side by side (NULL columns for what is missing). `$1` the challenge key or value, `$2` the credential id, `$3`
/// a sealed challenge's expiry (0 for a stored one).
enum SignInLookupSQL {
    static func sql(matching column: String) -> String {
        """
        SELECT \(PostgresSchema.qualified(PostgresSchema.challengeColumns, "ch")),
            \(PostgresSchema.qualified(PostgresSchema.credentialColumns, "cr")),
            \(PostgresSchema.userColumns(of: "u")), e.external_id,
            (SELECT array_agg(owned.id ORDER BY owned.created_at, owned.id) FROM credentials owned WHERE owned.user_id = u.id),
            EXISTS (SELECT 1 FROM spent_challenges sp WHERE sp.expires_at = $3::bigint AND sp.key = $1::text)
        FROM (SELECT 1) AS one
        LEFT JOIN challenges ch ON ch.\(column) = $1::text AND ch.ceremony = 'authentication'
        LEFT JOIN credentials cr ON cr.id = $2::bytea
        LEFT JOIN users u ON u.id = cr.user_id
        LEFT JOIN external_users e ON e.user_id = u.id
        """
    }

    static func bindings(_ challenge: String, _ credentialID: [UInt8], sealedExpiry: Int64) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(challenge)
        bindings.append(ByteBuffer(bytes: credentialID))
        bindings.append(sealedExpiry)
        return bindings
    }
}

struct SignInLookupByKey: RowsStatement {
    static let sql = SignInLookupSQL.sql(matching: "key")
    let key: String
    let credentialID: [UInt8]
    /// A sealed challenge's expiry, to find its key among the spent ones; 0 for a stored challenge.
    var sealedExpiry: Int64 = 0
    func makeBindings() -> PostgresBindings { SignInLookupSQL.bindings(key, credentialID, sealedExpiry: sealedExpiry) }
}

struct SignInLookupByValue: RowsStatement {
    static let sql = SignInLookupSQL.sql(matching: "challenge")
    let value: String
    let credentialID: [UInt8]
    func makeBindings() -> PostgresBindings { SignInLookupSQL.bindings(value, credentialID, sealedExpiry: 0) }
}

/// A verified sign-in in one statement: the challenge taken (`take`, which must `RETURNING key` and write only `WHERE
/// EXISTS (SELECT 1 FROM locked)`) and the counter's compare-and-set with the passkey's last use (which is the owner's
/// last sign-in: ``PostgresSchema/userColumns``). Answers whether the
/// counter moved, and whether the credential was there with the expected counter. `$1` the credential id, `$2` the
/// expected counter, `$3` the challenge's key, `$4` the time, `$5` the new counter, `$6` the backup state.
enum RecordSignInSQL {
    static func sql(taking take: String) -> String {
        """
        WITH locked AS (
            SELECT id FROM credentials WHERE id = $1::bytea AND sign_count = $2::bigint FOR NO KEY UPDATE
        ), taken AS (
            \(take)
        ), moved AS (
            UPDATE credentials SET sign_count = $5::bigint, backup_state = $6::boolean, last_used_at = $4::bigint
            WHERE id IN (SELECT id FROM locked) AND EXISTS (SELECT 1 FROM taken)
            RETURNING id
        )
        SELECT EXISTS (SELECT 1 FROM moved), EXISTS (SELECT 1 FROM locked)
        """
    }
}

/// What ``RecordSignInSQL`` binds, `$1` to `$6`.
struct RecordSignInValues {
    let credentialID: [UInt8]
    let expectedSignCount: UInt32
    let challengeKey: String
    let milliseconds: Int64
    let newSignCount: UInt32
    let backupState: Bool

    var bindings: PostgresBindings {
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(ByteBuffer(bytes: credentialID))
        bindings.append(Int64(expectedSignCount))
        bindings.append(challengeKey)
        bindings.append(milliseconds)
        bindings.append(Int64(newSignCount))
        bindings.append(backupState)
        return bindings
    }
}

/// ``RecordSignInSQL`` consuming a stored challenge: its row is deleted (see
/// ``PostgresRepository/recordSignIn(credentialID:expectedSignCount:newSignCount:backupState:at:spending:)``).
struct RecordSignInConsumingChallenge: RowsStatement {
    static let sql = RecordSignInSQL.sql(
        taking: "DELETE FROM challenges WHERE key = $3::text AND expires_at > $4::bigint AND EXISTS (SELECT 1 FROM locked) RETURNING key")
    let values: RecordSignInValues

    func makeBindings() -> PostgresBindings { values.bindings }
}

/// ``RecordSignInSQL`` spending a sealed challenge, which was never stored: its expiry (`$7`) and key are inserted into
/// `spent_challenges`, whose primary key makes one winner across instances (see
/// ``PostgresRepository/recordSignIn(credentialID:expectedSignCount:newSignCount:backupState:at:spending:)``).
struct RecordSignInSpendingChallenge: RowsStatement {
    static let sql = RecordSignInSQL.sql(
        taking: """
            INSERT INTO spent_challenges (expires_at, key) SELECT $7::bigint, $3::text WHERE EXISTS (SELECT 1 FROM locked)
            ON CONFLICT (expires_at, key) DO NOTHING RETURNING key
            """)
    let values: RecordSignInValues
    let expiresAt: Int64

    func makeBindings() -> PostgresBindings {
        var bindings = values.bindings
        bindings.append(expiresAt)
        return bindings
    }
}

/// The account of a sign-in with a username: the same match as ``PostgresSchema/userNamed(_:columns:)`` (by its
/// ``UsernameKey``, or for an account without one by the old ASCII case folding), `$1` the key and `$2` the name.
struct UserNamed: RowsStatement {
    static let sql = """
        SELECT \(PostgresSchema.userColumns) FROM users
        WHERE username_key = $1::text OR (username_key IS NULL AND lower(username COLLATE "C") = lower($2::text COLLATE "C"))
        ORDER BY username_key IS NULL LIMIT 1
        """
    let name: String

    func makeBindings() -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(UsernameKey.of(name))
        bindings.append(name)
        return bindings
    }
}

/// The account of a sign-in with a username and its passkeys, oldest first, in one statement: a row per passkey (the
/// account's columns repeated), or one row with NULL passkey columns for an account without any. Matched as
/// ``UserNamed``.
struct AccountNamed: RowsStatement {
    static let sql = """
        SELECT \(PostgresSchema.qualified(PostgresSchema.userColumnNames, "u")), \(PostgresSchema.qualified(PostgresSchema.credentialColumns, "c"))
        FROM (\(UserNamed.sql)) u
        LEFT JOIN credentials c ON c.user_id = u.id
        ORDER BY c.created_at, c.id
        """
    let name: String

    func makeBindings() -> PostgresBindings { UserNamed(name: name).makeBindings() }
}

/// An account's passkeys, oldest first (sign-in options' `allowCredentials`, the signals after a sign-in).
struct CredentialsOfUser: RowsStatement {
    static let sql = "SELECT \(PostgresSchema.credentialColumns) FROM credentials WHERE user_id = $1::text ORDER BY created_at, id"
    let userID: String

    func makeBindings() -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(userID)
        return bindings
    }
}

/// A new challenge (options of either ceremony).
struct SaveChallenge: RowsStatement {
    static let sql = """
        INSERT INTO challenges (key, challenge, ceremony, user_id, username, display_name, user_handle,
            allowed_credential_ids, created_at, expires_at, replaces_credential_id, conditional, for_existing_user, accepted_contacts)
        VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::bytea, $8::bytea[], $9::bigint, $10::bigint,
            $11::bytea, $12::boolean, $13::boolean, $14::text)
        """
    let challenge: ChallengeRecord

    func makeBindings() -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 14)
        bindings.append(challenge.key)
        bindings.append(challenge.challenge)
        bindings.append(challenge.ceremony.rawValue)
        bindings.append(challenge.userID)
        bindings.append(challenge.username)
        bindings.append(challenge.displayName)
        bindings.append(challenge.userHandle.map { ByteBuffer(bytes: $0) })
        bindings.append(challenge.allowedCredentialIDs.map { ByteBuffer(bytes: $0) })
        bindings.append(PostgresTime.milliseconds(challenge.createdAt))
        bindings.append(PostgresTime.milliseconds(challenge.expiresAt))
        bindings.append(challenge.replacesCredentialID.map { ByteBuffer(bytes: $0) })
        bindings.append(challenge.conditional)
        bindings.append(challenge.forExistingUser)
        bindings.append(ContactKind.encode(challenge.acceptedContacts))
        return bindings
    }
}

/// One event of the dashboard's log; answers its id.
struct AppendEvent: RowsStatement {
    static let sql = "INSERT INTO events (\(columns)) VALUES \(placeholders(row: 0)) RETURNING id"
    let event: EventRecord

    func makeBindings() -> PostgresBindings {
        var bindings = PostgresBindings(capacity: Self.columnCount)
        Self.append(event, to: &bindings)
        return bindings
    }

    static let columns = """
        time, kind, result, code, explanation, user_id, username, credential_id_prefix, origin, rp_id, expected, received, \
        client_ip, user_agent, request_id, username_key
        """
    static let columnCount = 16

    /// One row's values, in the order of ``columns``.
    static func append(_ event: EventRecord, to bindings: inout PostgresBindings) {
        bindings.append(PostgresTime.milliseconds(event.time))
        bindings.append(event.kind)
        bindings.append(event.result.rawValue)
        for text in [
            event.code, event.explanation, event.userID, event.username, event.credentialIDPrefix, event.origin, event.rpID,
            event.expected, event.received, event.clientIP, event.userAgent, event.requestID,
        ] {
            bindings.append(text)
        }
        bindings.append(event.username.map(UsernameKey.of))
    }

    /// `(\$1::bigint, \$2::text, …)` for row `index` (from 0).
    static func placeholders(row index: Int) -> String {
        let first = index * columnCount + 1
        return "($\(first)::bigint, " + (first + 1..<first + columnCount).map { "$\($0)::text" }.joined(separator: ", ") + ")"
    }
}
