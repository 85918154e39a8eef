/// A continuation that resumes at most once.
///
/// Platform callbacks race: a delegate can report success or an error after the app already ended the request (task
/// cancelled, request replaced), and resuming a `CheckedContinuation` twice is a crash. Whoever holds this (one owner,
/// on one actor) calls ``resume(returning:)`` for every outcome; the first one is delivered, the rest are dropped.
public struct ResumeOnce<Value: Sendable>: Sendable {
    private var continuation: CheckedContinuation<Value, Never>?

    public init(_ continuation: CheckedContinuation<Value, Never>) { self.continuation = continuation }

    /// Nothing has been delivered yet.
    public var isPending: Bool { continuation != nil }

    /// Delivers `value` if nothing was delivered before; returns whether it did.
    @discardableResult
    public mutating func resume(returning value: Value) -> Bool {
        guard let continuation else { return false }
        self.continuation = nil
        continuation.resume(returning: value)
        return true
    }
}
