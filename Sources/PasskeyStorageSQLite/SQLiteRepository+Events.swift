public import Foundation
public import PasskeyStorage
import GRDB

extension SQLiteRepository: DeferredEventRepository {
    static let eventColumns = """
        id, time, kind, result, code, explanation, user_id, username, credential_id_prefix, origin, rp_id, expected, received, \
        client_ip, user_agent, request_id
        """

    static func event(_ row: Row) throws -> EventRecord {
        let resultName = try row.decode(String.self, atIndex: 3)
        guard let result = EventRecord.Result(rawValue: resultName) else { throw StorageError(.corrupt, "unknown event result \(resultName)") }
        return EventRecord(
            id: try row.decode(Int64.self, atIndex: 0), time: SQLiteSchema.date(try row.decode(Int64.self, atIndex: 1)),
            kind: try row.decode(String.self, atIndex: 2), result: result, code: try row.decode(String?.self, atIndex: 4),
            explanation: try row.decode(String?.self, atIndex: 5), userID: try row.decode(String?.self, atIndex: 6),
            username: try row.decode(String?.self, atIndex: 7), credentialIDPrefix: try row.decode(String?.self, atIndex: 8),
            origin: try row.decode(String?.self, atIndex: 9), rpID: try row.decode(String?.self, atIndex: 10),
            expected: try row.decode(String?.self, atIndex: 11), received: try row.decode(String?.self, atIndex: 12),
            clientIP: try row.decode(String?.self, atIndex: 13), userAgent: try row.decode(String?.self, atIndex: 14),
            requestID: try row.decode(String?.self, atIndex: 15))
    }

    public func appendEvent(_ event: EventRecord) async throws(StorageError) -> EventRecord {
        try await writeRaw { raw throws(StorageError) in try Self.insert(event, raw) }
    }

    public func appendEventLater(_ event: EventRecord, whenStored: @escaping @Sendable (EventRecord?) -> Void) {
        writer.writeLater({ raw throws(StorageError) in try Self.insert(event, raw) }, finish: { whenStored(try? $0.get()) })
    }

    /// Commits the events still queued: graceful shutdown calls this once the HTTP server has stopped, so a restart
    /// loses no log lines (only a crash can, see ``DeferredEventRepository``).
    public func shutdown() async {
        try? await flushDeferredEvents()
    }

    /// Events queued with ``appendEventLater(_:whenStored:)`` are committed before a read of the log, so a reader sees
    /// every event recorded before it asked.
    func flushDeferredEvents() async throws(StorageError) {
        do { try await writer.flushDeferred() } catch { throw Self.map(error) }
    }

    static func insert(_ event: EventRecord, _ raw: RawConnection) throws(StorageError) -> EventRecord {
        let statement = try raw.statement("""
            INSERT INTO events (time, kind, result, code, explanation, user_id, username, credential_id_prefix, origin, rp_id,
                expected, received, client_ip, user_agent, request_id, username_key)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        try statement.bind(1, SQLiteSchema.milliseconds(event.time))
        try statement.bind(2, event.kind)
        try statement.bind(3, event.result.rawValue)
        for (index, text) in [
            event.code, event.explanation, event.userID, event.username, event.credentialIDPrefix, event.origin, event.rpID,
            event.expected, event.received, event.clientIP, event.userAgent, event.requestID,
        ].enumerated() {
            try statement.bind(Int32(index + 4), text)
        }
        try statement.bind(16, event.username.map(UsernameKey.of))
        try statement.execute()
        var stored = event
        stored.id = raw.lastInsertedRowID
        return stored
    }

    public func events(matching filter: EventFilter, before: Int64?, limit: Int) async throws(StorageError) -> [EventRecord] {
        try await flushDeferredEvents()
        return try await read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT \(Self.eventColumns) FROM events
                    WHERE (? IS NULL OR id < ?) AND (? IS NULL OR result = ?) AND (? IS NULL OR code = ?)
                        AND (? IS NULL OR user_id = ? OR username_key = ? OR (username_key IS NULL AND username = ? COLLATE NOCASE))
                    ORDER BY id DESC LIMIT ?
                    """),
                arguments: [
                    before, before, filter.result?.rawValue, filter.result?.rawValue, filter.code, filter.code, filter.user, filter.user,
                    filter.user.map(UsernameKey.of), filter.user, max(0, limit),
                ]
            ).map(Self.event)
        }
    }

    public func eventCounts(from: Date, to: Date) async throws(StorageError) -> [EventHourCount] {
        try await flushDeferredEvents()
        return try await read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT time / 3600000 AS hour,
                        SUM(kind IN ('registration.verify', 'append.verify') AND result = 'success'),
                        SUM(kind = 'authentication.verify' AND result = 'success'),
                        SUM(result = 'failure' AND (kind LIKE 'registration.%' OR kind LIKE 'authentication.%'
                            OR kind IN ('append.options', 'append.verify')))
                    FROM events WHERE time >= ? AND time < ?
                    GROUP BY hour ORDER BY hour
                    """),
                arguments: [SQLiteSchema.milliseconds(from), SQLiteSchema.milliseconds(to)]
            ).map { row in
                EventHourCount(
                    hour: Date(timeIntervalSince1970: Double(try row.decode(Int64.self, atIndex: 0)) * 3600),
                    registrations: try row.decode(Int.self, atIndex: 1), signIns: try row.decode(Int.self, atIndex: 2),
                    failures: try row.decode(Int.self, atIndex: 3))
            }.filter { $0.registrations + $0.signIns + $0.failures > 0 }
        }
    }

    public func deleteEvents(olderThan time: Date) async throws(StorageError) -> Int {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM events WHERE time < ?").execute(arguments: [SQLiteSchema.milliseconds(time)])
            return db.changesCount
        }
    }
}
