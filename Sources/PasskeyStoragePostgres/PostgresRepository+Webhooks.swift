public import Foundation
public import PasskeyStorage
import PostgresNIO

/// Webhook endpoints and the outbox, shared by every instance: an endpoint's lease lets one instance at a time deliver
/// to it, so each message goes out once (at least once if an instance dies mid-delivery).
extension PostgresRepository: WebhookRepository {
    static let endpointColumns = "id, url, description, event_types, secret, previous_secret, previous_secret_expires_at, created_at, disabled_at"
    static let deliveryColumns = """
        d.endpoint_id, d.state, d.attempts, d.next_attempt_at, d.last_attempt_at, d.last_status, d.last_error, m.seq, m.id, m.type, \
        m.created_at, m.user_id, m.username, m.display_name, m.external_user_id, m.credential_id, m.credential_name, m.detail
        """

    static func endpoints(_ rows: [PostgresRow]) throws(StorageError) -> [WebhookEndpointRecord] {
        var endpoints: [WebhookEndpointRecord] = []
        for row in rows {
            let row = PostgresRowReader(row)
            endpoints.append(
                WebhookEndpointRecord(
                    id: try row.value(0, String.self), url: try row.value(1, String.self), description: try row.value(2, String.self),
                    eventTypes: WebhookEndpointRecord.eventTypes(stored: try row.value(3, String.self)), secret: try row.value(4, String.self),
                    previousSecret: try row.optional(5, String.self), previousSecretExpiresAt: try row.optionalDate(6),
                    createdAt: try row.date(7), disabledAt: try row.optionalDate(8)))
        }
        return endpoints
    }

    static func deliveries(_ rows: [PostgresRow]) throws(StorageError) -> [WebhookDeliveryRecord] {
        var deliveries: [WebhookDeliveryRecord] = []
        for row in rows {
            let row = PostgresRowReader(row)
            let message = WebhookMessageRecord(
                sequence: try row.value(7, Int64.self), id: try row.value(8, String.self), type: try row.value(9, String.self),
                createdAt: try row.date(10), userID: try row.optional(11, String.self), username: try row.optional(12, String.self),
                displayName: try row.optional(13, String.self), externalUserID: try row.optional(14, String.self),
                credentialID: try row.optionalBytes(15), credentialName: try row.optional(16, String.self), detail: try row.optional(17, String.self))
            deliveries.append(
                WebhookDeliveryRecord(
                    endpointID: try row.value(0, String.self), message: message,
                    state: WebhookDeliveryRecord.State(rawValue: try row.value(1, String.self)), attempts: Int(try row.value(2, Int32.self)),
                    nextAttemptAt: try row.date(3), lastAttemptAt: try row.optionalDate(4), lastStatus: try row.optional(5, Int32.self).map(Int.init),
                    lastError: try row.optional(6, String.self)))
        }
        return deliveries
    }

    public func addWebhookEndpoint(_ endpoint: WebhookEndpointRecord, limit: Int = .max) async throws(StorageError) {
        let logger = self.logger
        let limit = Int64(clamping: limit)
        // Instances add at the same time: a transaction-scoped advisory lock orders the additions, so each one's count
        // sees the others' rows (under READ COMMITTED a plain count would not).
        let added = try await transaction("add webhook endpoint") { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.endpointLimitLock))", logger: logger)
            return try await connection.rows(
                """
                INSERT INTO webhook_endpoints (\(unescaped: Self.endpointColumns))
                SELECT \(endpoint.id), \(endpoint.url), \(endpoint.description), \(endpoint.storedEventTypes), \(endpoint.secret),
                    \(endpoint.previousSecret), \(endpoint.previousSecretExpiresAt.map(PostgresTime.milliseconds)),
                    \(PostgresTime.milliseconds(endpoint.createdAt)), \(endpoint.disabledAt.map(PostgresTime.milliseconds))
                WHERE (SELECT count(*) FROM webhook_endpoints) < \(limit)
                RETURNING id
                """, logger
            ).count
        }
        guard added == 1 else { throw StorageError(.limitReached, "\(limit) endpoints exist") }
    }

    /// The advisory lock key that orders endpoint additions: a fixed number of this table's own.
    static let endpointLimitLock: Int64 = 0x7061_7373_6b65_7901

    public func webhookEndpoints() async throws(StorageError) -> [WebhookEndpointRecord] {
        let logger = self.logger
        let rows = try await withConnection("webhook endpoints") { connection in
            try await connection.rows("SELECT \(unescaped: Self.endpointColumns) FROM webhook_endpoints ORDER BY created_at, id", logger)
        }
        return try Self.endpoints(rows)
    }

    public func webhookEndpoint(id: String) async throws(StorageError) -> WebhookEndpointRecord? {
        let logger = self.logger
        let rows = try await withConnection("webhook endpoint") { connection in
            try await connection.rows("SELECT \(unescaped: Self.endpointColumns) FROM webhook_endpoints WHERE id = \(id)", logger)
        }
        return try Self.endpoints(rows).first
    }

    public func updateWebhookEndpoint(_ endpoint: WebhookEndpointRecord) async throws(StorageError) {
        let logger = self.logger
        let rows = try await withConnection("update webhook endpoint") { connection in
            try await connection.rows(
                """
                UPDATE webhook_endpoints SET url = \(endpoint.url), description = \(endpoint.description),
                    event_types = \(endpoint.storedEventTypes), secret = \(endpoint.secret), previous_secret = \(endpoint.previousSecret),
                    previous_secret_expires_at = \(endpoint.previousSecretExpiresAt.map(PostgresTime.milliseconds)),
                    disabled_at = \(endpoint.disabledAt.map(PostgresTime.milliseconds))
                WHERE id = \(endpoint.id) RETURNING 1
                """, logger)
        }
        guard !rows.isEmpty else { throw StorageError(.notFound, "no webhook endpoint \(endpoint.id)") }
    }

    public func deleteWebhookEndpoint(id: String) async throws(StorageError) {
        let logger = self.logger
        let rows = try await withConnection("delete webhook endpoint") { connection in
            try await connection.rows("DELETE FROM webhook_endpoints WHERE id = \(id) RETURNING 1", logger)
        }
        guard !rows.isEmpty else { throw StorageError(.notFound, "no webhook endpoint \(id)") }
    }

    public func enqueueWebhookMessage(_ message: WebhookMessageRecord) async throws(StorageError) {
        let logger = self.logger
        try await transaction("enqueue webhook message") { connection in try await Self.enqueue(message, connection, logger) }
    }

    /// Writes `message` for the endpoints that receive its type, in the caller's transaction; nothing when none does.
    static func enqueue(_ message: WebhookMessageRecord, _ connection: PostgresConnection, _ logger: Logger) async throws {
        let created = PostgresTime.milliseconds(message.createdAt)
        try await connection.query(
            """
            WITH receivers AS (
                SELECT id FROM webhook_endpoints
                WHERE disabled_at IS NULL AND (event_types = '*' OR position(' ' || \(message.type) || ' ' IN event_types) > 0)
            ), message AS (
                INSERT INTO webhook_messages (id, type, created_at, user_id, username, display_name, external_user_id, credential_id,
                    credential_name, detail)
                SELECT \(message.id), \(message.type), \(created), \(message.userID), \(message.username), \(message.displayName),
                    COALESCE(\(message.externalUserID), (SELECT external_id FROM external_users WHERE user_id = \(message.userID))),
                    \(message.credentialID.map { ByteBuffer(bytes: $0) }), \(message.credentialName), \(message.detail)
                WHERE EXISTS (SELECT 1 FROM receivers)
                RETURNING seq
            )
            INSERT INTO webhook_deliveries (endpoint_id, message_seq, state, attempts, next_attempt_at)
            SELECT receivers.id, message.seq, 'pending', 0, \(created) FROM receivers, message
            """, logger: logger)
    }

    public func dueWebhookEndpoints(now: Date) async throws(StorageError) -> [String] {
        let logger = self.logger
        let now = PostgresTime.milliseconds(now)
        let rows = try await withConnection("due webhook endpoints") { connection in
            try await connection.rows(
                """
                SELECT e.id FROM webhook_endpoints e
                WHERE e.disabled_at IS NULL AND (e.lease_until IS NULL OR e.lease_until <= \(now))
                    AND (SELECT d.next_attempt_at FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.state = 'pending'
                        ORDER BY d.message_seq LIMIT 1) <= \(now)
                ORDER BY e.id
                """, logger)
        }
        var ids: [String] = []
        for row in rows { ids.append(try PostgresRowReader(row).value(0, String.self)) }
        return ids
    }

    /// One `UPDATE` decides among instances: the row lock makes a second one wait, then find the lease taken.
    public func leaseWebhookEndpoint(id: String, owner: String, until: Date, now: Date) async throws(StorageError) -> Bool {
        let logger = self.logger
        let rows = try await withConnection("lease webhook endpoint") { connection in
            try await connection.rows(
                """
                UPDATE webhook_endpoints SET lease_owner = \(owner), lease_until = \(PostgresTime.milliseconds(until))
                WHERE id = \(id) AND (lease_owner IS NULL OR lease_owner = \(owner) OR lease_until <= \(PostgresTime.milliseconds(now)))
                RETURNING 1
                """, logger)
        }
        return !rows.isEmpty
    }

    public func releaseWebhookEndpoint(id: String, owner: String) async throws(StorageError) {
        let logger = self.logger
        try await withConnection("release webhook endpoint") { connection in
            try await connection.query(
                "UPDATE webhook_endpoints SET lease_owner = NULL, lease_until = NULL WHERE id = \(id) AND lease_owner = \(owner)", logger: logger)
        }
    }

    public func pendingWebhookDeliveries(endpointID: String, limit: Int) async throws(StorageError) -> [WebhookDeliveryRecord] {
        let logger = self.logger
        let rows = try await withConnection("pending webhook deliveries") { connection in
            try await connection.rows(
                """
                SELECT \(unescaped: Self.deliveryColumns) FROM webhook_deliveries d JOIN webhook_messages m ON m.seq = d.message_seq
                WHERE d.endpoint_id = \(endpointID) AND d.state = 'pending' ORDER BY d.message_seq LIMIT \(max(0, limit))
                """, logger)
        }
        return try Self.deliveries(rows)
    }

    public func recordWebhookAttempt(endpointID: String, sequence: Int64, _ attempt: WebhookAttempt) async throws(StorageError) {
        let logger = self.logger
        try await withConnection("record webhook attempt") { connection in
            try await connection.query(
                """
                UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = \(PostgresTime.milliseconds(attempt.time)),
                    last_status = \(attempt.status.map { Int32(clamping: $0) }), last_error = \(attempt.error), state = \(attempt.state.rawValue),
                    next_attempt_at = COALESCE(\(attempt.nextAttemptAt.map(PostgresTime.milliseconds)), next_attempt_at)
                WHERE endpoint_id = \(endpointID) AND message_seq = \(sequence)
                """, logger: logger)
        }
    }

    public func webhookDeliveries(endpointID: String?, before: Int64?, limit: Int) async throws(StorageError) -> [WebhookDeliveryRecord] {
        let logger = self.logger
        let rows = try await withConnection("webhook deliveries") { connection in
            try await connection.rows(
                """
                SELECT \(unescaped: Self.deliveryColumns) FROM webhook_deliveries d JOIN webhook_messages m ON m.seq = d.message_seq
                WHERE (\(endpointID)::TEXT IS NULL OR d.endpoint_id = \(endpointID)) AND (\(before)::BIGINT IS NULL OR d.message_seq < \(before))
                ORDER BY d.message_seq DESC, d.endpoint_id DESC LIMIT \(max(0, limit))
                """, logger)
        }
        return try Self.deliveries(rows)
    }

    public func retryFailedWebhookDeliveries(endpointID: String, now: Date) async throws(StorageError) -> Int {
        let logger = self.logger
        return try await withConnection("retry failed webhook deliveries") { connection in
            try await connection.rows(
                """
                UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = \(PostgresTime.milliseconds(now))
                WHERE endpoint_id = \(endpointID) AND state = 'failed' RETURNING 1
                """, logger
            ).count
        }
    }

    public func purgeWebhookDeliveries(before time: Date) async throws(StorageError) -> Int {
        let logger = self.logger
        return try await transaction("purge webhook deliveries") { connection in
            let count = try await connection.rows(
                """
                DELETE FROM webhook_deliveries WHERE state <> 'pending'
                    AND message_seq IN (SELECT seq FROM webhook_messages WHERE created_at < \(PostgresTime.milliseconds(time)))
                RETURNING 1
                """, logger
            ).count
            // Only old messages are looked at (by index): every instance purges every 30 s.
            try await connection.query(
                """
                DELETE FROM webhook_messages m WHERE m.created_at < \(PostgresTime.milliseconds(time))
                    AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_seq = m.seq)
                """, logger: logger)
            return count
        }
    }
}
