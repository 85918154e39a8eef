public import PasskeyStorage

/// Where recorded events go after storage. The in-process ``EventBroadcaster`` is one; with several instances a
/// database feed (PostgreSQL `LISTEN`/`NOTIFY`) would publish every instance's events into each local broadcaster.
public protocol EventSink: Sendable {
    func publish(_ event: EventRecord) async
    /// A group of events in order (deferred events, stored together). By default one by one.
    func publish(_ events: [EventRecord]) async
}

extension EventSink {
    public func publish(_ events: [EventRecord]) async {
        for event in events { await publish(event) }
    }
}

/// What a live subscriber receives: an event, or a keep-alive (so a stream whose client left is noticed and closed even
/// when nothing happens, and proxies do not time an idle stream out).
public enum LiveUpdate: Sendable, Hashable {
    case event(EventRecord)
    case keepAlive
}

/// Fans events out to live subscribers (the dashboard's Server-Sent Events streams). A slow subscriber loses its
/// oldest undelivered events rather than holding anyone up.
public actor EventBroadcaster: EventSink {
    private var subscribers: [Int: AsyncStream<LiveUpdate>.Continuation] = [:]
    /// The session each subscription was opened with (a hash), when it has one: ``end(session:)`` ends them at sign-out.
    private var sessions: [Int: [UInt8]] = [:]
    private var nextID = 0
    private var closed = false

    public init() {}

    /// A new subscription: its id (for ``unsubscribe(_:)``) and the events published from now on. `session` is the hash
    /// of the admin session that opened it, so that signing out ends it at once.
    public func subscribe(buffer: Int = 256, session: [UInt8]? = nil) -> (id: Int, updates: AsyncStream<LiveUpdate>) {
        let (stream, continuation) = AsyncStream.makeStream(of: LiveUpdate.self, bufferingPolicy: .bufferingNewest(buffer))
        let id = nextID
        nextID += 1
        if closed {
            continuation.finish()
            return (id, stream)
        }
        subscribers[id] = continuation
        if let session { sessions[id] = session }
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return (id, stream)
    }

    public func unsubscribe(_ id: Int) {
        sessions[id] = nil
        subscribers.removeValue(forKey: id)?.finish()
    }

    /// Ends the streams this instance opened for the session with this hash, after the updates already queued for them
    /// (the sign-out's own event among them when it was published here directly; one that comes back through
    /// PostgreSQL may arrive after). Streams on other instances end at their next keep-alive check.
    public func end(session: [UInt8]) {
        for (id, owner) in sessions where owner == session { unsubscribe(id) }
    }

    public func publish(_ event: EventRecord) {
        for continuation in subscribers.values { continuation.yield(.event(event)) }
    }

    /// Sends every subscriber a keep-alive (the server does every 30 seconds).
    public func keepAlive() {
        for continuation in subscribers.values { continuation.yield(.keepAlive) }
    }

    /// Live subscriptions (tests wait for a stream to be listening).
    public var subscriberCount: Int { subscribers.count }

    /// Ends every stream, and every later one at once: the server is shutting down.
    public func close() {
        closed = true
        for continuation in subscribers.values { continuation.finish() }
        subscribers = [:]
        sessions = [:]
    }
}
