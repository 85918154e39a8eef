public import PasskeyStorage
import Logging
import PostgresNIO

/// What a listener on a channel sees.
public enum PostgresChannelEvent: Sendable, Hashable {
    /// Listening started, or started again after a lost connection. Notifications sent while it was not listening are
    /// missed: a reader that must not miss any re-reads its store when this arrives.
    case listening
    case message(String)
}

/// Messages between instances through PostgreSQL's LISTEN/NOTIFY: the primitive for the dashboard's live log, which must
/// show events from every instance. Best effort by design (PostgreSQL delivers a notification to the sessions listening
/// when it commits, and keeps none for later): the event store stays the record, notifications only say "look again".
///
/// Channels are named per schema, so deployments sharing a database do not hear each other.
extension PostgresRepository {
    /// Sends `payload` (UTF-8, under 8 000 bytes) to every listener on `channel`, in every instance.
    public func notify(_ channel: String, payload: String) async throws(StorageError) {
        let name = try channelName(channel)
        let logger = self.logger
        try await withConnection("notify") { connection in
            try await connection.query("SELECT pg_notify(\(name), \(payload))", logger: logger)
        }
    }

    /// Listens on `channel` until the stream is dropped or the repository shuts down, reconnecting after a lost
    /// connection (with a backoff up to 5 seconds). Holds one pooled connection while listening.
    public func notifications(_ channel: String) throws(StorageError) -> AsyncStream<PostgresChannelEvent> {
        let name = try channelName(channel)
        let client = self.client
        let logger = self.logger
        return AsyncStream { continuation in
            let listener = Task {
                var delay = Duration.milliseconds(100)
                while !Task.isCancelled {
                    let attempt = ContinuousClock.now
                    do {
                        try await client.withConnection { connection in
                            try await connection.listen(on: name) { notifications in
                                continuation.yield(.listening)
                                for try await notification in notifications { continuation.yield(.message(notification.payload)) }
                            }
                        }
                    } catch let error as PSQLError where error.code == .poolClosed {
                        break
                    } catch {
                        logger.debug("listening connection lost", metadata: ["channel": "\(name)", "error": "\(PostgresErrorMapping.describe(error))"])
                    }
                    guard !Task.isCancelled else { break }
                    // A connection that listened for a while starts the backoff afresh.
                    delay = ContinuousClock.now - attempt > .seconds(10) ? .milliseconds(100) : min(delay * 2, .seconds(5))
                    try? await Task.sleep(for: delay)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in listener.cancel() }
        }
    }

    /// `<schema>_<channel>`; channel names are plain identifiers.
    func channelName(_ channel: String) throws(StorageError) -> String {
        guard PostgresConfiguration.isPlainIdentifier(channel) else {
            throw StorageError(.unavailable, "a channel name is lower-case letters, digits and _")
        }
        return (configuration.schema ?? "public") + "_" + channel
    }
}
