public import PasskeyStorage

/// Where administration writes its audit entries: the server stores them and shows them in the dashboard's live log;
/// a subcommand stores them for the running servers to show. Never fails the change it records: the change is made
/// by then, and a log that cannot be written must not undo it (an implementation reports the failure its own way).
public protocol AuditLog: Sendable {
    func record(_ entry: EventRecord) async
}

/// Appends entries to an event repository, dropping those it cannot write: what a subcommand without a logger does.
public struct StoredAuditLog: AuditLog {
    let repository: any EventRepository

    public init(repository: any EventRepository) { self.repository = repository }

    public func record(_ entry: EventRecord) async { _ = try? await repository.appendEvent(entry) }
}
