public import Foundation

/// The FIDO Metadata Service BLOB in force, as it was downloaded or imported: kept in the database so every instance
/// uses the same one and a server starts offline (issue 48).
public struct StoredMetadataBLOB: Sendable, Equatable {
    /// The BLOB's serial number `no`.
    public var number: Int
    /// The BLOB as it came: a compact JWS, verified again when a server loads it.
    public var bytes: [UInt8]
    /// When it was verified: the time its certificate chain is checked at when loaded, so a BLOB does not stop working
    /// the day its signing certificate expires (a newer BLOB replaces it long before).
    public var verifiedAt: Date
    /// When FIDO publishes the next one.
    public var nextUpdate: Date

    public init(number: Int, bytes: [UInt8], verifiedAt: Date, nextUpdate: Date) {
        self.number = number
        self.bytes = bytes
        self.verifiedAt = verifiedAt
        self.nextUpdate = nextUpdate
    }
}

/// Where the metadata BLOB in force is kept.
public protocol MetadataRepository: Sendable {
    /// The BLOB in force, if one was ever stored.
    func metadataBLOB() async throws(StorageError) -> StoredMetadataBLOB?

    /// The serial number of the BLOB in force, without reading the BLOB: what running servers poll to learn that
    /// another instance or an import stored a newer one.
    func metadataBLOBNumber() async throws(StorageError) -> Int?

    /// Stores `blob` as the one in force, and writes `messages` to the webhook outbox (as
    /// ``WebhookRepository/enqueueWebhookMessage(_:)`` does), only when the stored BLOB's serial number is still
    /// `previous` (nil: none is stored) and lower than `blob`'s. Checked in the write itself: of instances storing
    /// BLOBs at once, one wins, nobody goes back to an older BLOB, and what the change announces (passkeys whose
    /// authenticator a new report names) is announced once. Returns whether it was stored.
    func storeMetadataBLOB(_ blob: StoredMetadataBLOB, replacing previous: Int?, announcing messages: [WebhookMessageRecord]) async throws(StorageError) -> Bool
}

extension MetadataRepository {
    /// Whether `blob` may replace the stored BLOB whose serial is `stored`, given the caller read `previous`.
    public static func mayStore(_ blob: StoredMetadataBLOB, stored: Int?, previous: Int?) -> Bool {
        stored == previous && blob.number > (stored ?? Int.min)
    }
}
