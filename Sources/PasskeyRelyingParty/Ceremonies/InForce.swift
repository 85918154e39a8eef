public import PasskeyCore
import Synchronization

/// A value replaced while the server runs: a new metadata BLOB brings new attestation roots and compromise reports
/// (``MetadataStore``) without a restart. A reader takes it once per step, so one ceremony step or one answer never
/// mixes two.
public final class InForce<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    public init(_ value: Value) { self.value = Mutex(value) }

    public var current: Value { value.withLock { $0 } }

    public func replace(with value: Value) { self.value.withLock { $0 = value } }
}

/// The relying party ceremonies are verified against.
public typealias RelyingPartyInForce = InForce<RelyingParty>
