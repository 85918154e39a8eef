public import Foundation
public import X509
import PasskeyWire

/// The verified payload of a FIDO Metadata Service BLOB (FIDO Metadata Service 3.0 §3.1.6, `MetadataBLOBPayload`):
/// every certified authenticator model, its statement and its status history, with the BLOB's serial number.
///
/// Made by ``MetadataBLOBVerifier``, which checks the signature and the chain first; reading is strict, and one
/// malformed entry refuses the whole BLOB, so the one in force is kept rather than half of a new one.
public struct MetadataBLOB: Sendable {
    /// The BLOB's serial number (`no`): each new BLOB has a higher one, which is how a rollback is refused.
    public let number: Int
    /// When FIDO publishes the next BLOB (`nextUpdate`, a day in UTC): when to fetch again.
    public let nextUpdate: Date
    public let legalHeader: String?
    public let entries: [MetadataBLOBEntry]
    /// The certificate path its signature was verified along, signing certificate first, root last: what revocation is
    /// checked on (``CertificateRevocationList``).
    public internal(set) var certificatePath: [Certificate] = []
    private let byAAGUID: [String: Int]
    private let byKeyIdentifier: [String: Int]

    /// The model with this AAGUID (any case, with dashes).
    public func entry(aaguid: String) -> MetadataBLOBEntry? { byAAGUID[aaguid.lowercased()].map { entries[$0] } }

    /// The U2F model whose attestation certificate key identifier (hex SHA-1 of its public key) this is.
    public func entry(attestationCertificateKeyIdentifier identifier: String) -> MetadataBLOBEntry? {
        byKeyIdentifier[identifier.lowercased()].map { entries[$0] }
    }

    /// The models with a compromise report (of `kinds`) in force at `time`.
    public func compromisedEntries(at time: Date, of kinds: Set<AuthenticatorStatus> = AuthenticatorStatus.compromises) -> [MetadataBLOBEntry] {
        entries.filter { !$0.compromises(at: time, of: kinds).isEmpty }
    }

    /// Reads the payload of a BLOB whose signature was verified.
    init(payload: JSONObject) throws(MetadataError) {
        let reader = MetadataReader(payload, path: "payload")
        guard let number = try reader.integer("no"), number >= 0 else {
            throw MetadataError(.malformed, "the metadata BLOB has no serial number \"no\"")
        }
        guard let nextUpdate = try reader.date("nextUpdate") else {
            throw MetadataError(.malformed, "the metadata BLOB has no \"nextUpdate\"")
        }
        self.number = number
        self.nextUpdate = nextUpdate
        legalHeader = try reader.string("legalHeader")
        var entries: [MetadataBLOBEntry] = []
        var byAAGUID: [String: Int] = [:]
        var byKeyIdentifier: [String: Int] = [:]
        for (index, value) in try reader.array("entries", required: true).enumerated() {
            let entry = try MetadataReader.entry(value, path: "entries[\(index)]")
            if let aaguid = entry.aaguid { byAAGUID[aaguid] = entries.count }
            for identifier in entry.attestationCertificateKeyIdentifiers { byKeyIdentifier[identifier] = entries.count }
            entries.append(entry)
        }
        self.entries = entries
        self.byAAGUID = byAAGUID
        self.byKeyIdentifier = byKeyIdentifier
    }
}
