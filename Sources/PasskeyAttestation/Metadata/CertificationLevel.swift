public import Foundation

/// How far FIDO certified an authenticator model (FIDO Metadata Service 3.0 §3.1.4: `FIDO_CERTIFIED` is the level 1
/// of old, then `FIDO_CERTIFIED_L1` … `FIDO_CERTIFIED_L3plus`), ordered: a policy admits a level and those above.
public struct CertificationLevel: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// 10 for L1, 15 for L1plus, 20 for L2, …: the order of the levels.
    let rank: Int
    public let status: AuthenticatorStatus

    public static let l1 = CertificationLevel(rank: 10, status: .fidoCertifiedL1)
    public static let l1Plus = CertificationLevel(rank: 15, status: .fidoCertifiedL1Plus)
    public static let l2 = CertificationLevel(rank: 20, status: .fidoCertifiedL2)
    public static let l2Plus = CertificationLevel(rank: 25, status: .fidoCertifiedL2Plus)
    public static let l3 = CertificationLevel(rank: 30, status: .fidoCertifiedL3)
    public static let l3Plus = CertificationLevel(rank: 35, status: .fidoCertifiedL3Plus)

    public static let all: [CertificationLevel] = [.l1, .l1Plus, .l2, .l2Plus, .l3, .l3Plus]

    /// The level a certification status gives; nil for a status that certifies nothing. `FIDO_CERTIFIED` is level 1.
    public init?(_ status: AuthenticatorStatus) {
        if status == .fidoCertified {
            self = .l1
            return
        }
        guard let level = Self.all.first(where: { $0.status == status }) else { return nil }
        self = level
    }

    init(rank: Int, status: AuthenticatorStatus) {
        self.rank = rank
        self.status = status
    }

    public static func < (lhs: CertificationLevel, rhs: CertificationLevel) -> Bool { lhs.rank < rhs.rank }
    public var description: String { status.rawValue }
}

extension MetadataBLOBEntry {
    /// The highest level the model is certified at, at `time`, from its reports in force in the order the BLOB lists
    /// them; nil when it is not certified, or a later `NOT_FIDO_CERTIFIED` or `REVOKED` withdrew it.
    public func certificationLevel(at time: Date) -> CertificationLevel? {
        var level: CertificationLevel?
        for report in statusReports where report.effectiveDate.map({ $0 <= time }) ?? true {
            if let certified = CertificationLevel(report.status) {
                level = max(level ?? certified, certified)
            } else if report.status == .notFIDOCertified || report.status == .revoked {
                level = nil
            }
        }
        return level
    }
}
