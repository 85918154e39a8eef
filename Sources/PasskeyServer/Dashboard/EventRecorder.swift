public import Foundation
import Hummingbird
import HTTPTypes
import Logging
public import PasskeyStorage
import PasskeyWire

/// What an event records about the request it came from.
public struct RequestMetadata: Sendable, Hashable {
    public var clientIP: String?
    public var userAgent: String?
    public var requestID: String?
    public var origin: String?

    public init(clientIP: String? = nil, userAgent: String? = nil, requestID: String? = nil, origin: String? = nil) {
        self.clientIP = clientIP
        self.userAgent = userAgent
        self.requestID = requestID
        self.origin = origin
    }

    /// Read from a request: the client address as the rate limiter sees it, the user agent (truncated), the request id
    /// the logging middleware gave it, the `Origin` header.
    init(_ request: Request, clientIP: String, requestID: String?) {
        self.init(
            clientIP: clientIP, userAgent: request.headers[.userAgent].map { String($0.prefix(256)) }, requestID: requestID,
            origin: request.headers[.origin].map { String($0.prefix(256)) })
    }
}

/// Stores events and publishes them to the live log. Never fails a request: a storage error is logged and the event
/// still goes to live subscribers.
public struct EventRecorder: Sendable {
    let repository: any EventRepository
    let sink: any EventSink
    let now: @Sendable () -> Date

    /// The repository again when it can write events later (looked up once, not on every ceremony).
    let deferred: (any DeferredEventRepository)?
    /// Deferred events reach the sink through here, a task per group instead of a task per event.
    let publisher: GroupPublisher

    public init(repository: any EventRepository, sink: any EventSink, now: @escaping @Sendable () -> Date = Date.init) {
        self.repository = repository
        self.sink = sink
        self.now = now
        deferred = repository as? any DeferredEventRepository
        publisher = GroupPublisher(sink: sink)
    }

    /// Stores `event` and publishes it once stored. Admin actions wait for their event to be durable.
    @discardableResult
    func record(_ event: EventRecord, logger: Logger) async -> EventRecord {
        var stored = event
        do { stored = try await repository.appendEvent(event) } catch {
            logger.warning("could not store an event", metadata: ["error": "\(error.code)"])
        }
        await sink.publish(stored)
        return stored
    }

    /// Records a ceremony's event without making the request wait for its own commit, where storage can write it
    /// with a later transaction (SQLite: see ``DeferredEventRepository``); it is published once stored. Elsewhere
    /// the same as ``record(_:logger:)``.
    func recordCeremony(_ event: EventRecord, logger: Logger) async {
        guard let deferred else {
            await record(event, logger: logger)
            return
        }
        let publisher = publisher
        deferred.appendEventLater(event) { stored in
            if stored == nil { logger.warning("could not store an event") }
            publisher.publish(stored ?? event)
        }
    }

    /// The event of a ceremony step (or connect call): `kind` is `<ceremony>.<step>`. On success the account and passkey
    /// the handler noted (``CeremonyNote/concerns(_:credentialID:)``; the credential ID cut to its prefix); on failure
    /// the code, its explanation and, for origin and RP ID failures, the expected and received values, and the account a
    /// refusal proved (a disabled account's passkey).
    /// `detail` is the explanation of a successful step whose kind does not say what it did.
    /// `requestedUsername` is the username the request named, recorded when the step names no account (options,
    /// failures): trimmed and cut to ``PasskeyRelyingParty/RelyingPartyError/maximumValueLength`` characters.
    func ceremonyEvent(
        kind: String, rpID: String, metadata: RequestMetadata, error: APIError?, userID: String? = nil, username: String? = nil,
        credentialID: [UInt8]? = nil, requestedUsername: String? = nil, detail: String? = nil
    ) -> EventRecord {
        let requested = requestedUsername.map { APIError.clipped(Self.trimmed($0)) }
        return EventRecord(
            time: now(), kind: kind, result: error == nil ? .success : .failure, code: error?.code.rawValue, explanation: error?.message ?? detail,
            userID: userID ?? error?.accountID, username: username ?? requested.flatMap { $0.isEmpty ? nil : $0 },
            credentialIDPrefix: credentialID.map { String(Base64URL.encode($0).prefix(EventRecord.credentialIDPrefixLength)) },
            origin: metadata.origin ?? error?.received.flatMap { error?.code == .originMismatch ? $0 : nil }, rpID: rpID,
            expected: error?.expected, received: error?.received, clientIP: metadata.clientIP, userAgent: metadata.userAgent,
            requestID: metadata.requestID)
    }
}

extension EventRecorder {
    /// `text` without white space or newlines at its ends. A name that begins and ends with a visible ASCII character
    /// (nearly every one, and every name the username rules let through) is returned as it is, without Foundation's
    /// trimming, which cost a few microseconds on every ceremony's event.
    static func trimmed(_ text: String) -> String {
        let visible: ClosedRange<UInt8> = 0x21...0x7e
        if let first = text.utf8.first, let last = text.utf8.last, visible.contains(first), visible.contains(last) { return text }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Publishes events handed over from a storage thread: the first of a group starts one task that publishes, in order,
/// every event that arrived meanwhile (storage reports a committed batch of events one after the other).
final class GroupPublisher: @unchecked Sendable {
    private let sink: any EventSink
    // Guarded by `lock`.
    private let lock = NSLock()
    private var waiting: [EventRecord] = []
    private var draining = false

    init(sink: any EventSink) { self.sink = sink }

    func publish(_ event: EventRecord) {
        let start: Bool = lock.withLock {
            waiting.append(event)
            guard !draining else { return false }
            draining = true
            return true
        }
        guard start else { return }
        Task { await drain() }
    }

    private func drain() async {
        while true {
            let group: [EventRecord] = lock.withLock {
                let taken = waiting
                waiting.removeAll()
                if taken.isEmpty { draining = false }
                return taken
            }
            if group.isEmpty { return }
            await sink.publish(group)
        }
    }
}
