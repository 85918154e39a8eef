public import Foundation
public import PasskeyAttestation
public import PasskeyStorage

/// The FIDO Metadata Service BLOB in force, kept in storage: imported (verified at the time of import, refused unless
/// newer than the stored one) and loaded (verified again, at the time it was verified, so a stored BLOB keeps working
/// offline after its signing certificate expires, and a database edited by hand is refused).
///
/// Storing a BLOB announces, with a `passkey.authenticator_compromised` webhook message each, the stored passkeys whose
/// model it newly reports compromised, in the same write: whichever instance stores it, they are announced once.
public struct MetadataStore: Sendable {
    public let repository: any MetadataRepository & TransferRepository & UserRepository
    public let verifier: MetadataBLOBVerifier
    /// Checks an imported BLOB's certificate path against revocation lists; nil: not checked (offline).
    public let revocation: RevocationChecker?

    public init(
        repository: any MetadataRepository & TransferRepository & UserRepository, verifier: MetadataBLOBVerifier, revocation: RevocationChecker? = nil
    ) {
        self.repository = repository
        self.verifier = verifier
        self.revocation = revocation
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

    /// A BLOB made the one in force, and the passkeys it newly reports compromised (announced to webhooks).
    public struct Imported: Sendable {
        public let blob: MetadataBLOB
        public let flagged: [(passkey: CredentialRecordEntry, owner: UserRecord?)]
        /// What revocation could not check (a list out of reach, stale or signed by another): stored anyway.
        public let revocationWarnings: [String]
    }

    /// Verifies `bytes` as of `now` and stores it as the BLOB in force. A BLOB that is not newer than the stored one is
    /// refused (`metadata_rolled_back`), checked against the stored serial before and inside the write, so two
    /// instances importing at once cannot go back.
    ///
    /// - Parameter refusingSignIn: the statuses whose passkeys the servers refuse at sign-in (said in the webhook).
    public func importBLOB(_ bytes: [UInt8], now: Date, refusingSignIn: Set<AuthenticatorStatus>) async throws(Failure) -> Imported {
        // Another instance may store a BLOB between the read and the write: then the announcement is worked out again
        // against that one (a few rounds at most, as each round needs a newer BLOB to have come).
        for _ in 0..<5 {
            let previous: (blob: MetadataBLOB?, stored: StoredMetadataBLOB?)
            do { previous = try await currentOrUnreadable() } catch { throw .storage(error) }
            let blob: MetadataBLOB
            do { blob = try verifier.verify(bytes, at: now, replacing: previous.stored?.number) } catch { throw .metadata(error) }
            // A revoked certificate in the path is a refusal; what cannot be checked is a warning.
            var warnings: [String] = []
            switch await revocation?.check(blob.certificatePath, at: now) ?? .good {
            case .good: break
            case .revoked(let certificate):
                throw .metadata(MetadataError(.revoked, "a certificate of the metadata BLOB's chain is revoked by its issuer's list", received: certificate))
            case .unknown(let problems): warnings = problems
            }
            let announcements = Self.newlyCompromised(blob, since: previous.blob, at: now, refusingSignIn: refusingSignIn)
            let flagged: [(passkey: CredentialRecordEntry, owner: UserRecord?)]
            do { flagged = try await passkeys(of: Set(announcements.keys)) } catch let error as StorageError { throw .storage(error) } catch {
                throw .storage(StorageError(.unavailable, "reading the passkeys of reported models: \(error)"))
            }
            let messages = flagged.compactMap { found in
                announcements[found.passkey.aaguid.lowercased()].map { $0.message(passkey: found.passkey, owner: found.owner, at: now) }
            }
            let row = StoredMetadataBLOB(number: blob.number, bytes: bytes, verifiedAt: now, nextUpdate: blob.nextUpdate)
            let stored: Bool
            do { stored = try await repository.storeMetadataBLOB(row, replacing: previous.stored?.number, announcing: messages) } catch {
                throw .storage(error)
            }
            if stored { return Imported(blob: blob, flagged: flagged, revocationWarnings: warnings) }
        }
        throw .metadata(
            MetadataError(.rolledBack, "other instances kept storing newer BLOBs meanwhile", expected: "no > the stored one", received: "no longer the newest"))
    }

    /// The BLOB in force, verified again at the time it was verified, with the row it was read from; nil when none was
    /// ever stored.
    public func current() async throws(Failure) -> (blob: MetadataBLOB, stored: StoredMetadataBLOB)? {
        let stored: StoredMetadataBLOB?
        do { stored = try await repository.metadataBLOB() } catch { throw .storage(error) }
        guard let stored else { return nil }
        do { return (try reverify(stored), stored) } catch { throw .metadata(error) }
    }

    /// The stored row, and its BLOB when it still verifies: a BLOB that no longer does (the metadata root was replaced)
    /// announced nothing this server can vouch for, so every report of the new one is announced.
    func currentOrUnreadable() async throws(StorageError) -> (blob: MetadataBLOB?, stored: StoredMetadataBLOB?) {
        guard let stored = try await repository.metadataBLOB() else { return (nil, nil) }
        return (try? reverify(stored), stored)
    }

    func reverify(_ stored: StoredMetadataBLOB) throws(MetadataError) -> MetadataBLOB {
        let blob = try verifier.verify(stored.bytes, at: stored.verifiedAt)
        // The row's serial is what later imports are checked against: it must be the BLOB's own.
        guard blob.number == stored.number else {
            throw MetadataError(.malformed, "the stored BLOB's serial number is not the one recorded with it", expected: "no = \(stored.number)", received: "no = \(blob.number)")
        }
        return blob
    }

    /// The FIDO2 models (by lowercase AAGUID) with a compromise report in force at `time` in `blob` that `previous` did
    /// not carry, with what to announce of each. U2F models, named by key identifiers, are not covered: their passkeys
    /// carry the zero AAGUID.
    static func newlyCompromised(
        _ blob: MetadataBLOB, since previous: MetadataBLOB?, at time: Date, refusingSignIn: Set<AuthenticatorStatus>
    ) -> [String: CompromiseAnnouncement] {
        var known: [String: Set<AuthenticatorStatus>] = [:]
        for entry in previous?.compromisedEntries(at: time) ?? [] {
            guard let aaguid = entry.aaguid?.lowercased() else { continue }
            known[aaguid, default: []].formUnion(entry.compromises(at: time).map(\.status))
        }
        var found: [String: CompromiseAnnouncement] = [:]
        for entry in blob.compromisedEntries(at: time) {
            guard let aaguid = entry.aaguid?.lowercased() else { continue }
            let statuses = entry.compromises(at: time).map(\.status)
            guard !Set(statuses).isSubset(of: known[aaguid] ?? []) else { continue }
            found[aaguid] = CompromiseAnnouncement(aaguid: aaguid, statuses: statuses, signInRefused: statuses.contains(where: refusingSignIn.contains))
        }
        return found
    }

    /// ``PasskeysOfModels/find(_:in:)`` in this store's repository.
    public func passkeys(of models: Set<String>) async throws -> [(passkey: CredentialRecordEntry, owner: UserRecord?)] {
        try await PasskeysOfModels.find(models, in: repository)
    }
}
