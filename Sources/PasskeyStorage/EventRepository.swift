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
