public import Foundation

/// One entry of a model's status history in the Metadata BLOB (FIDO Metadata Service 3.0 §3.1.3, `StatusReport`).
public struct StatusReport: Sendable, Hashable {
    public var status: AuthenticatorStatus
    /// From when the status applies (`effectiveDate`, a day in UTC); nil when the BLOB gives none.
    public var effectiveDate: Date?
    /// The firmware version the status applies to and above, when the report names one.
    public var authenticatorVersion: Int?
    /// Where FIDO or the vendor explains the status.
    public var url: String?
    public var certificationDescriptor: String?
    public var certificateNumber: String?

    public init(
        status: AuthenticatorStatus, effectiveDate: Date? = nil, authenticatorVersion: Int? = nil, url: String? = nil,
        certificationDescriptor: String? = nil, certificateNumber: String? = nil
    ) {
        self.status = status
        self.effectiveDate = effectiveDate
        self.authenticatorVersion = authenticatorVersion
        self.url = url
        self.certificationDescriptor = certificationDescriptor
        self.certificateNumber = certificateNumber
    }
}
