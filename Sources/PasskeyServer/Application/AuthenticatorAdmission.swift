public import Foundation
public import PasskeyAttestation
public import PasskeyCore

/// Which authenticator models may register, judged by the FIDO Metadata Service BLOB in force
/// (`--admit-authenticators`). The model must be proven by a trusted attestation chaining to the roots the BLOB gives
/// it; without a BLOB nothing is admitted.
public enum AuthenticatorAdmission: Sendable, Hashable, CustomStringConvertible {
    /// Any passkey (the default): synced passkeys too, which carry no attestation.
    case any
    /// Only models the BLOB lists.
    case known
    /// Only models the BLOB certifies at this level or above.
    case certified(CertificationLevel)

    /// `any`, `known`, or a level's status (`FIDO_CERTIFIED_L1` … `FIDO_CERTIFIED_L3plus`, `FIDO_CERTIFIED` for L1).
    public init?(_ text: String) {
        switch text.lowercased() {
        case "any": self = .any
        case "known": self = .known
        default:
            guard let level = CertificationLevel(AuthenticatorStatus(rawValue: text.uppercased().replacingOccurrences(of: "PLUS", with: "plus"))) else {
                return nil
            }
            self = .certified(level)
        }
    }

    public var description: String {
        switch self {
        case .any: "any"
        case .known: "known"
        case .certified(let level): level.status.rawValue
        }
    }

    /// The FIDO2 models `blob` admits at `time`; nil under `.any`.
    public func admitted(by blob: MetadataBLOB?, at time: Date) -> Set<AAGUID>? {
        switch self {
        case .any: return nil
        case .known: return Set((blob?.entries ?? []).compactMap { $0.aaguid.flatMap { AAGUID($0) } })
        case .certified(let level):
            return Set(
                (blob?.entries ?? []).compactMap { entry in
                    guard let certified = entry.certificationLevel(at: time), certified >= level else { return nil }
                    return entry.aaguid.flatMap { AAGUID($0) }
                })
        }
    }
}
