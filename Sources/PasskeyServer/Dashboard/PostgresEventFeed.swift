import Logging
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
        // An event that could not be stored has no id to announce: it goes to this instance's streams only.
        guard event.id > 0 else { return await local.publish(event) }
        do { try await repository.notify(Self.channel, payload: String(event.id)) } catch { await local.publish(event) }
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
        try? await cancelWhenGracefulShutdown {
            for await notification in notifications {
                guard case .message(let payload) = notification, let id = Int64(payload) else { continue }
                do throws(StorageError) {
                    if let event = try await repository.events(matching: EventFilter(), before: id + 1, limit: 1).first, event.id == id {
                        await broadcaster.publish(event)
                    }
                } catch {
                    logger.debug("an announced event could not be read", metadata: ["error": "\(error.code)"])
                }
            }
        }
    }
}
