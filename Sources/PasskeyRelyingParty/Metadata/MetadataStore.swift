public import Foundation
public import PasskeyAttestation
public import PasskeyStorage

/// The FIDO Metadata Service BLOB in force, kept in storage: imported (verified at the time of import, refused unless
/// newer than the stored one) and loaded (verified again, at the time it was verified, so a stored BLOB keeps working
/// offline after its signing certificate expires, and a database edited by hand is refused).
public struct MetadataStore: Sendable {
    public let repository: any MetadataRepository
    public let verifier: MetadataBLOBVerifier

    public init(repository: any MetadataRepository, verifier: MetadataBLOBVerifier) {
        self.repository = repository
        self.verifier = verifier
    }

    /// Why an import or a load failed: the BLOB itself, or the storage.
    public enum Failure: Error, CustomStringConvertible {
        case metadata(MetadataError)
        case storage(StorageError)

        public var description: String {
            switch self {
            case .metadata(let error): "\(error)"
            case .storage(let error): "\(error)"
            }
        }
    }

    /// Verifies `bytes` as of `now` and stores it as the BLOB in force. A BLOB that is not newer than the stored one is
    /// refused (`metadata_rolled_back`), checked against the stored serial before and inside the write, so two
    /// instances importing at once cannot go back.
    public func importBLOB(_ bytes: [UInt8], now: Date) async throws(Failure) -> MetadataBLOB {
        let current: StoredMetadataBLOB?
        do { current = try await repository.metadataBLOB() } catch { throw .storage(error) }
        let blob: MetadataBLOB
        do { blob = try verifier.verify(bytes, at: now, replacing: current?.number) } catch { throw .metadata(error) }
        let stored: Bool
        do {
            stored = try await repository.storeMetadataBLOB(
                StoredMetadataBLOB(number: blob.number, bytes: bytes, verifiedAt: now, nextUpdate: blob.nextUpdate))
        } catch { throw .storage(error) }
        guard stored else {
            throw .metadata(
                MetadataError(.rolledBack, "another instance stored a BLOB at least as new meanwhile", expected: "no > the stored one", received: "no = \(blob.number)"))
        }
        return blob
    }

    /// The BLOB in force, verified again at the time it was verified, with the row it was read from; nil when none was
    /// ever stored.
    public func current() async throws(Failure) -> (blob: MetadataBLOB, stored: StoredMetadataBLOB)? {
        let stored: StoredMetadataBLOB?
        do { stored = try await repository.metadataBLOB() } catch { throw .storage(error) }
        guard let stored else { return nil }
        let blob: MetadataBLOB
        do { blob = try verifier.verify(stored.bytes, at: stored.verifiedAt) } catch { throw .metadata(error) }
        // The row's serial is what later imports are checked against: it must be the BLOB's own.
        guard blob.number == stored.number else {
            throw .metadata(
                MetadataError(.malformed, "the stored BLOB's serial number is not the one recorded with it", expected: "no = \(stored.number)", received: "no = \(blob.number)"))
        }
        return (blob, stored)
    }
}
