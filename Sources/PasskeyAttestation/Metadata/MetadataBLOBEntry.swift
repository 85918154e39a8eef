public import Foundation

/// One authenticator model in the Metadata BLOB (FIDO Metadata Service 3.0 §3.1.1, `MetadataBLOBPayloadEntry`),
/// named by its AAGUID (FIDO2), its attestation key identifiers (U2F) or its AAID (UAF).
public struct MetadataBLOBEntry: Sendable, Hashable {
    /// Lower-case with dashes, as ``PasskeyCore`` prints AAGUIDs.
    public var aaguid: String?
    public var aaid: String?
    /// Lower-case hex.
    public var attestationCertificateKeyIdentifiers: [String]
    public var metadataStatement: MetadataStatement?
    /// The model's status history, as the BLOB lists it.
    public var statusReports: [StatusReport]
    /// When the latest status report was added.
    public var timeOfLastStatusChange: Date?

    public init(
        aaguid: String? = nil, aaid: String? = nil, attestationCertificateKeyIdentifiers: [String] = [],
        metadataStatement: MetadataStatement? = nil, statusReports: [StatusReport], timeOfLastStatusChange: Date? = nil
    ) {
        self.aaguid = aaguid
        self.aaid = aaid
        self.attestationCertificateKeyIdentifiers = attestationCertificateKeyIdentifiers
        self.metadataStatement = metadataStatement
        self.statusReports = statusReports
        self.timeOfLastStatusChange = timeOfLastStatusChange
    }

    /// The reports of a compromise kind (``AuthenticatorStatus/compromises``, or the `kinds` given) in force at `time`:
    /// those without an effective date, or whose date has come. Any such report counts, as relying-party libraries
    /// commonly read the history: a later `UPDATE_AVAILABLE` does not say which authenticators were updated.
    public func compromises(at time: Date, of kinds: Set<AuthenticatorStatus> = AuthenticatorStatus.compromises) -> [StatusReport] {
        statusReports.filter { kinds.contains($0.status) && ($0.effectiveDate.map { $0 <= time } ?? true) }
    }
}
