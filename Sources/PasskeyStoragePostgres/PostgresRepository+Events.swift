public import Foundation
public import PasskeyStorage
import PostgresNIO

/// The dashboard's event log, shared by every instance (live delivery across instances goes through
/// ``PostgresRepository/notify(_:payload:)``).
extension PostgresRepository: EventRepository {
    static let eventColumns = """
        id, time, kind, result, code, explanation, user_id, username, credential_id_prefix, origin, rp_id, expected, received, \
        client_ip, user_agent, request_id
        """

    static func event(_ row: PostgresRowReader) throws(StorageError) -> EventRecord {
        let resultName = try row.value(3, String.self)
        guard let result = EventRecord.Result(rawValue: resultName) else { throw StorageError(.corrupt, "unknown event result \(resultName)") }
        return EventRecord(
            id: try row.value(0, Int64.self), time: try row.date(1), kind: try row.value(2, String.self), result: result,
            code: try row.optional(4, String.self), explanation: try row.optional(5, String.self), userID: try row.optional(6, String.self),
            username: try row.optional(7, String.self), credentialIDPrefix: try row.optional(8, String.self),
            origin: try row.optional(9, String.self), rpID: try row.optional(10, String.self), expected: try row.optional(11, String.self),
            received: try row.optional(12, String.self), clientIP: try row.optional(13, String.self),
            userAgent: try row.optional(14, String.self), requestID: try row.optional(15, String.self))
    }

    public func appendEvent(_ event: EventRecord) async throws(StorageError) -> EventRecord {
        guard let stored = try await insertEvents([event][...]).first else { throw StorageError(.unavailable, "append event returned no id") }
        return stored
    }

    /// Stores events in one statement and answers them with their ids, in order. One event uses the prepared statement;
    /// more, one multi-row `INSERT`, parsed once per batch.
    func insertEvents(_ events: ArraySlice<EventRecord>) async throws(StorageError) -> [EventRecord] {
        guard let first = events.first else { return [] }
        let logger = self.logger
        let rows: [PostgresRow]
        if events.count == 1 {
            rows = try await withConnection("append event") { connection in try await connection.rows(AppendEvent(event: first), logger) }
        } else {
            var bindings = PostgresBindings(capacity: events.count * AppendEvent.columnCount)
            for event in events { AppendEvent.append(event, to: &bindings) }
            let values = (0..<events.count).map(AppendEvent.placeholders(row:)).joined(separator: ", ")
            let query = PostgresQuery(unsafeSQL: "INSERT INTO events (\(AppendEvent.columns)) VALUES \(values) RETURNING id", binds: bindings)
            rows = try await withConnection("append events") { connection in try await connection.rows(query, logger) }
        }
        // Identity values are drawn in the order of the VALUES list; sorted, they pair with the events in order.
        var ids: [Int64] = []
        for row in rows { ids.append(try PostgresRowReader(row).value(0, Int64.self)) }
        guard ids.count == events.count else { throw StorageError(.corrupt, "stored \(events.count) events, got \(ids.count) ids") }
        return zip(events, ids.sorted()).map { event, id in
            var stored = event
            stored.id = id
            return stored
        }
    }

    /// A queued batch, in statements of at most ``PostgresEventQueue/batchLimit`` rows (PostgreSQL takes at most 65 535
    /// parameters, 15 per event, and a backlog after an outage can be longer), each a call of its own with its own
    /// deadline: nil for the events of a statement that failed.
    func insertEventBatch(_ events: [EventRecord]) async -> [EventRecord?] {
        var stored: [EventRecord?] = []
        for start in stride(from: 0, to: events.count, by: PostgresEventQueue.batchLimit) {
            let chunk = events[start..<min(start + PostgresEventQueue.batchLimit, events.count)]
            do { stored += try await insertEvents(chunk) } catch { stored += Array(repeating: nil, count: chunk.count) }
        }
        return stored
    }

    /// Stored events by id, in id order, without waiting for queued ones (the live log's listener reads announced
    /// events, which are committed).
    public func events(ids: [Int64]) async throws(StorageError) -> [EventRecord] {
        guard !ids.isEmpty else { return [] }
        let logger = self.logger
        let rows = try await withConnection("events by id") { connection in
            try await connection.rows("SELECT \(unescaped: Self.eventColumns) FROM events WHERE id = ANY(\(ids)) ORDER BY id", logger)
        }
        var events: [EventRecord] = []
        for row in rows { events.append(try Self.event(PostgresRowReader(row))) }
        return events
    }

    /// Flushes the queued events first (waiting at most the query timeout for them), so a reader sees what was recorded
    /// before it asked; then reads, within the query timeout of its own.
    public func events(matching filter: EventFilter, before: Int64?, limit: Int) async throws(StorageError) -> [EventRecord] {
        await eventQueue.flush(within: configuration.queryTimeout, watch: deadlines)
        let logger = self.logger
        let query: PostgresQuery = #"""
            SELECT \#(unescaped: Self.eventColumns) FROM events
            WHERE (\#(before)::bigint IS NULL OR id < \#(before)::bigint)
                AND (\#(filter.result?.rawValue)::text IS NULL OR result = \#(filter.result?.rawValue)::text)
                AND (\#(filter.code)::text IS NULL OR code = \#(filter.code)::text)
                AND (\#(filter.user)::text IS NULL OR user_id = \#(filter.user)::text
                    OR username_key = \#(filter.user.map(UsernameKey.of))::text
                    OR (username_key IS NULL AND lower(username COLLATE "C") = lower(\#(filter.user)::text COLLATE "C")))
            ORDER BY id DESC LIMIT \#(Int64(max(0, limit)))
            """#
        let rows = try await withConnection("events") { connection in try await connection.rows(query, logger) }
        var events: [EventRecord] = []
        for row in rows { events.append(try Self.event(PostgresRowReader(row))) }
        return events
    }

    public func eventCounts(from: Date, to: Date) async throws(StorageError) -> [EventHourCount] {
        await eventQueue.flush(within: configuration.queryTimeout, watch: deadlines)
        let logger = self.logger
        let query: PostgresQuery = """
            SELECT time / 3600000 AS hour,
                COUNT(*) FILTER (WHERE kind IN ('registration.verify', 'append.verify') AND result = 'success'),
                COUNT(*) FILTER (WHERE kind = 'authentication.verify' AND result = 'success'),
                COUNT(*) FILTER (WHERE result = 'failure' AND (kind LIKE 'registration.%' OR kind LIKE 'authentication.%'
                    OR kind IN ('append.options', 'append.verify')))
            FROM events WHERE time >= \(PostgresTime.milliseconds(from)) AND time < \(PostgresTime.milliseconds(to))
            GROUP BY hour ORDER BY hour
            """
        let rows = try await withConnection("event counts") { connection in try await connection.rows(query, logger) }
        var counts: [EventHourCount] = []
        for row in rows {
            let reader = PostgresRowReader(row)
            let count = EventHourCount(
                hour: Date(timeIntervalSince1970: Double(try reader.value(0, Int64.self)) * 3600),
                registrations: Int(try reader.value(1, Int64.self)), signIns: Int(try reader.value(2, Int64.self)),
                failures: Int(try reader.value(3, Int64.self)))
            if count.registrations + count.signIns + count.failures > 0 { counts.append(count) }
        }
        return counts
    }

    public func deleteEvents(olderThan time: Date) async throws(StorageError) -> Int {
        let logger = self.logger
        return try await withConnection("delete old events") { connection in
            try await connection.rows("DELETE FROM events WHERE time < \(PostgresTime.milliseconds(time)) RETURNING 1", logger).count
        }
    }
}

/// Ceremony events are written in batches (see ``PostgresEventQueue``); reads of the log flush the batch first.
extension PostgresRepository: DeferredEventRepository {
    public func appendEventLater(_ event: EventRecord, whenStored: @escaping @Sendable (EventRecord?) -> Void) {
        eventQueue.append(event, write: { events in await self.insertEventBatch(events) }, done: whenStored)
    }
}

/// Counts for the dashboard's overview.
extension PostgresRepository: TotalsRepository {
    public func totals() async throws(StorageError) -> StorageTotals {
        let logger = self.logger
        let rows = try await withConnection("totals") { connection in
            try await connection.rows(
                """
                SELECT (SELECT COUNT(*) FROM users), (SELECT COUNT(*) FROM users WHERE is_anonymous),
                    (SELECT COUNT(*) FROM credentials), (SELECT COUNT(*) FROM admins)
                """, logger)
        }
        guard let row = rows.first else { return StorageTotals(users: 0, anonymousUsers: 0, passkeys: 0, admins: 0) }
        let reader = PostgresRowReader(row)
        return StorageTotals(
            users: Int(try reader.value(0, Int64.self)), anonymousUsers: Int(try reader.value(1, Int64.self)),
            passkeys: Int(try reader.value(2, Int64.self)), admins: Int(try reader.value(3, Int64.self)))
    }

    public func credentialCounts(userIDs: [String]) async throws(StorageError) -> [String: Int] {
        guard !userIDs.isEmpty else { return [:] }
        let logger = self.logger
        let rows = try await withConnection("passkey counts") { connection in
            try await connection.rows("SELECT user_id, COUNT(*) FROM credentials WHERE user_id = ANY(\(userIDs)) GROUP BY user_id", logger)
        }
        var counts: [String: Int] = [:]
        for row in rows {
            let reader = PostgresRowReader(row)
            counts[try reader.value(0, String.self)] = Int(try reader.value(1, Int64.self))
        }
        return counts
    }
}
