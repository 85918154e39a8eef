import Foundation

/// Collects what callbacks, tasks and threads report, in order, for a test to read: callable from synchronous code
/// (a log handler, a thread) as well as from tasks, which an actor is not.
public final class Collector<Value: Sendable>: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var stored: [Value] = []

    public init() {}

    public func append(_ value: Value) { lock.withLock { stored.append(value) } }
    public var values: [Value] { lock.withLock { stored } }
    public var count: Int { lock.withLock { stored.count } }
}
