import Logging
import PasskeyServer
import PasskeyStorage
import PasskeyStoragePostgres
import ServiceLifecycle

/// The live log across instances on one PostgreSQL database: each recorded event is announced with `NOTIFY` (its id),
/// and every instance's ``PostgresEventListener`` reads it back from the shared event store and publishes it to its own
/// ``EventBroadcaster``. So a dashboard on any instance sees every instance's ceremonies.
///
/// Best effort, as LISTEN/NOTIFY is: an event missed while a listener reconnects is still in the stored log (the page's
/// first load and filters read it), it only does not arrive live.
struct PostgresEventSink: EventSink {
    static let channel = "events"
    let repository: PostgresRepository
    let local: EventBroadcaster

    func publish(_ event: EventRecord) async {
        await publish([event])
    }

    /// One notification per group: the ids, comma-separated (in chunks well under PostgreSQL's 8 000-byte payload limit).
    func publish(_ events: [EventRecord]) async {
        // An event that could not be stored has no id to announce: it goes to this instance's streams only, after the
        // announced ones (which come back through the listener).
        let announced = events.filter { $0.id > 0 }
        for start in stride(from: 0, to: announced.count, by: Self.idsPerNotification) {
            let chunk = announced[start..<min(start + Self.idsPerNotification, announced.count)]
            do { try await repository.notify(Self.channel, payload: chunk.map { String($0.id) }.joined(separator: ",")) } catch {
                for event in chunk { await local.publish(event) }
            }
        }
        for event in events where event.id <= 0 { await local.publish(event) }
    }

    /// Ids are at most 19 digits and a comma: 300 of them stay under 6 000 bytes.
    static let idsPerNotification = 300

    /// The ids a notification announces; nil for anything else.
    static func ids(_ payload: String) -> [Int64]? {
        let parts = payload.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count <= idsPerNotification else { return nil }
        var ids: [Int64] = []
        for part in parts {
            guard let id = Int64(part), id > 0 else { return nil }
            ids.append(id)
        }
        return ids
    }
}

/// Publishes the events announced on the `events` channel (by any instance, this one included) to the local streams.
struct PostgresEventListener: Service {
    let repository: PostgresRepository
    let broadcaster: EventBroadcaster
    let logger: Logger

    func run() async throws {
        let notifications: AsyncStream<PostgresChannelEvent>
        do { notifications = try repository.notifications(PostgresEventSink.channel) } catch {
            logger.warning("the live log cannot listen for other instances' events", metadata: ["error": "\(error.code)"])
            return
        }
        await cancelWhenGracefulShutdown {
            for await notification in notifications {
                guard case .message(let payload) = notification, let ids = PostgresEventSink.ids(payload) else { continue }
                do throws(StorageError) {
                    for event in try await repository.events(ids: ids) { await broadcaster.publish(event) }
                } catch {
                    logger.debug("an announced event could not be read", metadata: ["error": "\(error.code)"])
                }
            }
        }
    }
}
