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

    /// Stores `blob` as the one in force, unless the stored one has the same or a higher serial number: checked in the
    /// write itself, so two instances storing BLOBs at once cannot go back to an older one. Returns whether it was
    /// stored.
    func storeMetadataBLOB(_ blob: StoredMetadataBLOB) async throws(StorageError) -> Bool
}
