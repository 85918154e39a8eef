import Logging
import PasskeyRelyingParty
import PasskeyStorage

/// Administration's audit entries (``PasskeyRelyingParty/AccountAdministration``) as events: stored, then shown in the
/// live log of every dashboard; an entry that cannot be stored is logged as a warning and still shown.
struct EventAuditLog: AuditLog {
    let events: EventRecorder
    let logger: Logger

    func record(_ entry: EventRecord) async { await events.record(entry, logger: logger) }
}

extension AuditActor {
    /// The actor with where its request came from: client address, user agent, origin and request id.
    func at(_ metadata: RequestMetadata) -> AuditActor {
        var actor = self
        actor.clientIP = metadata.clientIP
        actor.userAgent = metadata.userAgent
        actor.origin = metadata.origin
        actor.requestID = metadata.requestID
        return actor
    }
}
