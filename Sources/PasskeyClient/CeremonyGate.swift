/// Admits one ceremony at a time. Kept inside an actor (an authenticator, later the client), so entering is atomic:
/// the check and the claim happen before the actor's first suspension point.
///
/// The rule is "refuse the newcomer", not "replace the running one": a second sheet cannot appear over the first on
/// any platform, and silently cancelling a ceremony the person is answering would be worse. Whoever owns the running
/// ceremony's task (for example a pending AutoFill request) cancels it before starting the next.
public struct CeremonyGate: Sendable {
    /// The ceremony running now, if any.
    public private(set) var current: CeremonyKind?

    public init() {}

    /// Claims the gate for `kind`, or throws ``PasskeyError/Code/ceremonyInProgress`` naming the ceremony that holds it.
    public mutating func enter(_ kind: CeremonyKind) throws(PasskeyError) {
        if let current {
            throw PasskeyError(
                .ceremonyInProgress, stage: .authenticator,
                "a \(current.rawValue) ceremony is already in progress; cancel or finish it before starting a \(kind.rawValue)")
        }
        current = kind
    }

    /// Releases the gate. Call exactly once after a successful ``enter(_:)`` (use `defer`).
    public mutating func leave() { current = nil }
}

/// The two WebAuthn ceremonies.
public enum CeremonyKind: String, Sendable, Hashable, CaseIterable {
    case registration
    case assertion
}
