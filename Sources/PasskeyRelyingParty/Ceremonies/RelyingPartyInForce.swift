public import PasskeyCore
import Synchronization

/// The relying party ceremonies are verified against, replaced while the server runs: a new metadata BLOB brings new
/// attestation roots and compromise reports (``MetadataStore``) without a restart. A ceremony reads it once per step,
/// so one verification never mixes two.
public final class RelyingPartyInForce: Sendable {
    private let value: Mutex<RelyingParty>

    public init(_ relyingParty: RelyingParty) { value = Mutex(relyingParty) }

    public var current: RelyingParty { value.withLock { $0 } }

    public func replace(with relyingParty: RelyingParty) { value.withLock { $0 = relyingParty } }
}
