public import Foundation
public import PasskeyStorage
import GRDB

extension SQLiteRepository {
    static let endpointColumns = """
        id, url, description, event_types, secret, previous_secret, previous_secret_expires_at, created_at, disabled_at
        """
    static let deliveryColumns = """
        d.endpoint_id, d.state, d.attempts, d.next_attempt_at, d.last_attempt_at, d.last_status, d.last_error, m.seq, m.id, m.type, \
        m.created_at, m.user_id, m.username, m.display_name, m.external_user_id, m.credential_id, m.credential_name, m.detail
        """

    static func endpoint(_ row: Row) throws -> WebhookEndpointRecord {
        WebhookEndpointRecord(
            id: try row.decode(String.self, atIndex: 0), url: try row.decode(String.self, atIndex: 1),
            description: try row.decode(String.self, atIndex: 2),
            eventTypes: WebhookEndpointRecord.eventTypes(stored: try row.decode(String.self, atIndex: 3)),
            secret: try row.decode(String.self, atIndex: 4), previousSecret: try row.decode(String?.self, atIndex: 5),
            previousSecretExpiresAt: SQLiteSchema.date(try row.decode(Int64?.self, atIndex: 6)),
            createdAt: SQLiteSchema.date(try row.decode(Int64.self, atIndex: 7)),
            disabledAt: SQLiteSchema.date(try row.decode(Int64?.self, atIndex: 8)))
    }

    static func delivery(_ row: Row) throws -> WebhookDeliveryRecord {
        let message = WebhookMessageRecord(
            sequence: try row.decode(Int64.self, atIndex: 7), id: try row.decode(String.self, atIndex: 8),
            type: try row.decode(String.self, atIndex: 9), createdAt: SQLiteSchema.date(try row.decode(Int64.self, atIndex: 10)),
            userID: try row.decode(String?.self, atIndex: 11), username: try row.decode(String?.self, atIndex: 12),
            displayName: try row.decode(String?.self, atIndex: 13), externalUserID: try row.decode(String?.self, atIndex: 14),
            credentialID: try row.decode(Data?.self, atIndex: 15).map { Array($0) }, credentialName: try row.decode(String?.self, atIndex: 16),
            detail: try row.decode(String?.self, atIndex: 17))
        return WebhookDeliveryRecord(
            endpointID: try row.decode(String.self, atIndex: 0), message: message,
            state: WebhookDeliveryRecord.State(rawValue: try row.decode(String.self, atIndex: 1)), attempts: try row.decode(Int.self, atIndex: 2),
            nextAttemptAt: SQLiteSchema.date(try row.decode(Int64.self, atIndex: 3)),
            lastAttemptAt: SQLiteSchema.date(try row.decode(Int64?.self, atIndex: 4)), lastStatus: try row.decode(Int?.self, atIndex: 5),
            lastError: try row.decode(String?.self, atIndex: 6))
    }

    static func arguments(_ endpoint: WebhookEndpointRecord) -> StatementArguments {
        [
            endpoint.id, endpoint.url, endpoint.description, endpoint.storedEventTypes, endpoint.secret, endpoint.previousSecret,
            endpoint.previousSecretExpiresAt.map(SQLiteSchema.milliseconds), SQLiteSchema.milliseconds(endpoint.createdAt),
            endpoint.disabledAt.map(SQLiteSchema.milliseconds),
        ]
    }

    public func addWebhookEndpoint(_ endpoint: WebhookEndpointRecord, limit: Int = .max) async throws(StorageError) {
        // One writer: the count and the insert are one transaction of it.
        try await write { db in
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM webhook_endpoints") ?? 0
            guard count < limit else { throw StorageError(.limitReached, "\(count) endpoints exist") }
            try db.execute(sql: "INSERT INTO webhook_endpoints (\(Self.endpointColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", arguments: Self.arguments(endpoint))
        }
    }

    public func webhookEndpoints() async throws(StorageError) -> [WebhookEndpointRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.endpointColumns) FROM webhook_endpoints ORDER BY created_at, id").map(Self.endpoint)
        }
    }

    public func webhookEndpoint(id: String) async throws(StorageError) -> WebhookEndpointRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.endpointColumns) FROM webhook_endpoints WHERE id = ?", arguments: [id]).map(Self.endpoint)
        }
    }

    public func updateWebhookEndpoint(_ endpoint: WebhookEndpointRecord) async throws(StorageError) {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE webhook_endpoints SET url = ?2, description = ?3, event_types = ?4, secret = ?5, previous_secret = ?6,
                        previous_secret_expires_at = ?7, disabled_at = ?9 WHERE id = ?1 AND created_at = ?8
                    """, arguments: Self.arguments(endpoint))
            guard db.changesCount == 1 else { throw StorageError(.notFound, "no webhook endpoint \(endpoint.id)") }
        }
    }

    public func deleteWebhookEndpoint(id: String) async throws(StorageError) {
        try await write { db in
            try db.execute(sql: "DELETE FROM webhook_endpoints WHERE id = ?", arguments: [id])
            guard db.changesCount == 1 else { throw StorageError(.notFound, "no webhook endpoint \(id)") }
        }
    }

    public func enqueueWebhookMessage(_ message: WebhookMessageRecord) async throws(StorageError) {
        try await write { db in try Self.enqueue(message, db) }
    }

    /// Writes `message` for the endpoints that receive its type, in the caller's transaction; nothing when none does.
    static func enqueue(_ message: WebhookMessageRecord, _ db: Database) throws {
        let receivers = SQLiteWebhookSchema.receivers("?")
        guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(receivers))", arguments: [message.type]) == true else { return }
        let created = SQLiteSchema.milliseconds(message.createdAt)
        try db.execute(
            sql: """
                INSERT INTO webhook_messages (id, type, created_at, user_id, username, display_name, external_user_id, credential_id,
                    credential_name, detail)
                VALUES (?, ?, ?, ?, ?, ?, COALESCE(?, (SELECT external_id FROM external_users WHERE user_id = ?4)), ?, ?, ?)
                """,
            arguments: [
                message.id, message.type, created, message.userID, message.username, message.displayName, message.externalUserID,
                message.credentialID.map { Data($0) }, message.credentialName, message.detail,
            ])
        let sequence = db.lastInsertedRowID
        try db.execute(
            sql: "INSERT INTO webhook_deliveries (endpoint_id, message_seq, state, attempts, next_attempt_at) SELECT id, ?, 'pending', 0, ? FROM \(receivers)",
            arguments: [sequence, created, message.type])
    }

    /// The pending deliveries are read through their partial index (`INDEXED BY`): without statistics SQLite would walk
    /// the primary key, through every delivered message the endpoint kept.
    public func dueWebhookEndpoints(now: Date) async throws(StorageError) -> [String] {
        let now = SQLiteSchema.milliseconds(now)
        return try await read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT e.id FROM webhook_endpoints e
                    WHERE e.disabled_at IS NULL AND (e.lease_until IS NULL OR e.lease_until <= ?1)
                        AND (SELECT d.next_attempt_at FROM webhook_deliveries d INDEXED BY webhook_deliveries_pending
                            WHERE d.endpoint_id = e.id AND d.state = 'pending'
                            ORDER BY d.message_seq LIMIT 1) <= ?1
                    ORDER BY e.id
                    """, arguments: [now])
        }
    }

    public func leaseWebhookEndpoint(id: String, owner: String, until: Date, now: Date) async throws(StorageError) -> Bool {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE webhook_endpoints SET lease_owner = ?2, lease_until = ?3
                    WHERE id = ?1 AND (lease_owner IS NULL OR lease_owner = ?2 OR lease_until <= ?4)
                    """, arguments: [id, owner, SQLiteSchema.milliseconds(until), SQLiteSchema.milliseconds(now)])
            return db.changesCount == 1
        }
    }

    public func releaseWebhookEndpoint(id: String, owner: String) async throws(StorageError) {
        try await write { db in
            try db.execute(
                sql: "UPDATE webhook_endpoints SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?", arguments: [id, owner])
        }
    }

    public func pendingWebhookDeliveries(endpointID: String, limit: Int) async throws(StorageError) -> [WebhookDeliveryRecord] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.deliveryColumns) FROM webhook_deliveries d INDEXED BY webhook_deliveries_pending
                        JOIN webhook_messages m ON m.seq = d.message_seq
                    WHERE d.endpoint_id = ? AND d.state = 'pending' ORDER BY d.message_seq LIMIT ?
                    """, arguments: [endpointID, max(0, limit)]
            ).map(Self.delivery)
        }
    }

    public func recordWebhookAttempt(endpointID: String, sequence: Int64, _ attempt: WebhookAttempt) async throws(StorageError) {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = ?, last_status = ?, last_error = ?, state = ?,
                        next_attempt_at = COALESCE(?, next_attempt_at)
                    WHERE endpoint_id = ? AND message_seq = ?
                    """,
                arguments: [
                    SQLiteSchema.milliseconds(attempt.time), attempt.status, attempt.error, attempt.state.rawValue,
                    attempt.nextAttemptAt.map(SQLiteSchema.milliseconds), endpointID, sequence,
                ])
        }
    }

    public func webhookDeliveries(endpointID: String?, before: Int64?, limit: Int) async throws(StorageError) -> [WebhookDeliveryRecord] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.deliveryColumns) FROM webhook_deliveries d JOIN webhook_messages m ON m.seq = d.message_seq
                    WHERE (?1 IS NULL OR d.endpoint_id = ?1) AND (?2 IS NULL OR d.message_seq < ?2)
                    ORDER BY d.message_seq DESC, d.endpoint_id DESC LIMIT ?3
                    """, arguments: [endpointID, before, max(0, limit)]
            ).map(Self.delivery)
        }
    }

    public func retryFailedWebhookDeliveries(endpointID: String, now: Date) async throws(StorageError) -> Int {
        try await write { db in
            try db.execute(
                sql: "UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = ? WHERE endpoint_id = ? AND state = 'failed'",
                arguments: [SQLiteSchema.milliseconds(now), endpointID])
            return db.changesCount
        }
    }

    public func purgeWebhookDeliveries(before time: Date) async throws(StorageError) -> Int {
        try await write { db in
            try db.execute(
                sql: """
                    DELETE FROM webhook_deliveries WHERE state <> 'pending'
                        AND message_seq IN (SELECT seq FROM webhook_messages WHERE created_at < ?)
                    """, arguments: [SQLiteSchema.milliseconds(time)])
            let count = db.changesCount
            // Only old messages are looked at (by index): the purge runs every 30 s on the writer.
            try db.execute(
                sql: """
                    DELETE FROM webhook_messages WHERE created_at < ?
                        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_seq = webhook_messages.seq)
                    """, arguments: [SQLiteSchema.milliseconds(time)])
            return count
        }
    }
}
