public import Foundation
import PasskeyWire

/// What the connect flows remember on the device: the last account used (one-tap), when the person last declined a
/// passkey, and how many passkey sign-ins failed in a row. It holds no secret, but the identifier is personal data:
/// the Keychain keeps it on Apple platforms, a file only the user can read on Linux.
public struct ConnectState: Sendable, Hashable {
    public var lastIdentifier: String?
    public var lastCredentialID: String?
    public var lastDeclinedAt: Date?
    /// Passkey sign-ins that failed in a row (verification refused, or the authenticator failed) since the last success.
    public var recentFailures: Int
    /// When the last of them failed: the count is forgotten once that is ``PasskeyConnect/failureMemory`` ago, so a bad
    /// afternoon does not turn passkey sign-in off on the device for good.
    public var lastFailureAt: Date?

    public init(
        lastIdentifier: String? = nil, lastCredentialID: String? = nil, lastDeclinedAt: Date? = nil, recentFailures: Int = 0,
        lastFailureAt: Date? = nil
    ) {
        self.lastIdentifier = lastIdentifier
        self.lastCredentialID = lastCredentialID
        self.lastDeclinedAt = lastDeclinedAt
        self.recentFailures = recentFailures
        self.lastFailureAt = lastFailureAt
    }

    /// ``recentFailures`` as of `now`: 0 when the last failure is older than `memory`, or has no time (a state saved
    /// by a version that did not keep one).
    public func recentFailures(at now: Date, memory: TimeInterval) -> Int {
        guard let lastFailureAt, now.timeIntervalSince(lastFailureAt) < memory else { return 0 }
        return recentFailures
    }

    var json: JSONValue {
        var object: JSONObject = ["recentFailures": .number(Double(recentFailures))]
        if let lastFailureAt { object["lastFailureAt"] = .number(lastFailureAt.timeIntervalSince1970) }
        if let lastIdentifier { object["lastIdentifier"] = .string(lastIdentifier) }
        if let lastCredentialID { object["lastCredentialID"] = .string(lastCredentialID) }
        if let lastDeclinedAt { object["lastDeclinedAt"] = .number(lastDeclinedAt.timeIntervalSince1970) }
        return .object(object)
    }

    /// Reads what ``json`` wrote; anything unreadable gives the empty state (this is a cache, never worth failing on).
    init(bytes: [UInt8]) {
        guard let object = (try? JSONValue.parse(bytes))?.objectValue else {
            self.init()
            return
        }
        self.init(
            lastIdentifier: object["lastIdentifier"]?.stringValue, lastCredentialID: object["lastCredentialID"]?.stringValue,
            lastDeclinedAt: object["lastDeclinedAt"]?.numberValue.map(Date.init(timeIntervalSince1970:)),
            recentFailures: max(0, object["recentFailures"]?.intValue ?? 0),
            lastFailureAt: object["lastFailureAt"]?.numberValue.map(Date.init(timeIntervalSince1970:)))
    }
}

/// Where ``ConnectState`` lives.
public protocol ConnectStateStore: Sendable {
    func load() async -> ConnectState
    func save(_ state: ConnectState) async
    /// Reads the state, lets `change` edit it and saves the result, in one step: the stores here are actors that do
    /// not suspend in between, so two flows ending at once (an AutoFill sign-in completing while the person signs out)
    /// cannot lose each other's change. A store without its own gets a default that reads and then saves, with a
    /// suspension in between (not atomic). A store's own must be declared `async`, as here: a synchronous actor method
    /// does not replace the default for callers outside the actor.
    func update(_ change: @Sendable (inout ConnectState) -> Void) async
}

extension ConnectStateStore {
    public func update(_ change: @Sendable (inout ConnectState) -> Void) async {
        var state = await load()
        change(&state)
        await save(state)
    }
}

/// Keeps the state in memory (tests, previews).
public actor MemoryConnectStateStore: ConnectStateStore {
    private var state: ConnectState
    public init(_ state: ConnectState = ConnectState()) { self.state = state }
    public func load() -> ConnectState { state }
    public func save(_ state: ConnectState) { self.state = state }
    public func update(_ change: @Sendable (inout ConnectState) -> Void) async { change(&state) }
}

/// Keeps the state in a JSON file with mode 0600 (Linux, command-line tools). Written atomically.
public actor FileConnectStateStore: ConnectStateStore {
    public nonisolated let url: URL
    public init(url: URL) { self.url = url }

    public func load() -> ConnectState {
        guard let data = try? Data(contentsOf: url) else { return ConnectState() }
        return ConnectState(bytes: Array(data))
    }

    public func save(_ state: ConnectState) {
        let folder = url.deletingLastPathComponent()
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString)")
        // Created 0600 before any byte is written, then moved over the old file.
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = try? FileHandle(forWritingTo: temporary)
        else { return }
        handle.write(Data(state.json.serializedBytes))
        try? handle.close()
        if rename(temporary.path, url.path) != 0 { try? FileManager.default.removeItem(at: temporary) }
    }

    public func update(_ change: @Sendable (inout ConnectState) -> Void) async {
        var state = load()
        change(&state)
        save(state)
    }
}
