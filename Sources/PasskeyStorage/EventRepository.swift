public import Foundation

/// The ceremony and admin event log the dashboard shows, with retention.
public protocol EventRepository: Sendable {
    /// Stores `event` and returns it with its assigned ``EventRecord/id`` (increasing).
    func appendEvent(_ event: EventRecord) async throws(StorageError) -> EventRecord

    /// At most `limit` events matching `filter`, newest first; with `before`, only events whose id is lower (the cursor
    /// for the next page is the last id returned).
    func events(matching filter: EventFilter, before: Int64?, limit: Int) async throws(StorageError) -> [EventRecord]

    /// Registrations, sign-ins and failed ceremonies per hour for events at or after `from` and before `to`; hours
    /// without events are left out (``EventHourCount/filled(_:from:to:)`` adds them).
    func eventCounts(from: Date, to: Date) async throws(StorageError) -> [EventHourCount]

    /// Deletes events older than `time`; returns how many.
    @discardableResult
    func deleteEvents(olderThan time: Date) async throws(StorageError) -> Int
}

/// Storage that can write an event with a later transaction instead of making the caller wait for its own commit.
///
/// Ceremony events take this way: a sign-in then waits for one commit (its challenge and counter) instead of two, and
/// events are written together a little later (SQLite: within 50 ms, in one transaction for all that queued). The
/// price is durability of the log line only: an event still queued when the process dies is lost, the ceremony's own
/// writes are not.
public protocol DeferredEventRepository: EventRepository {
    /// Queues `event`; `whenStored` gets it with its id after the transaction holding it committed, or `nil` when it
    /// could not be stored. Called on a storage thread: hand work elsewhere.
    func appendEventLater(_ event: EventRecord, whenStored: @escaping @Sendable (EventRecord?) -> Void)
}
