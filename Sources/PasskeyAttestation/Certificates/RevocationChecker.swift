public import Foundation
public import X509

/// Where certificate revocation lists come from: the server downloads them (and keeps them until their next update);
/// the library does no I/O.
public protocol RevocationListSource: Sendable {
    /// The list published at `url`, read (``CertificateRevocationList/init(derEncoded:)``), or why it could not be had.
    func revocationList(at url: String) async -> Result<CertificateRevocationList, RevocationListUnavailable>
}

/// Why a revocation list could not be had (the network, an answer, its size, bytes that are not a list).
public struct RevocationListUnavailable: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Checks a certificate path against the revocation lists its certificates name (RFC 5280 §6.3, by CRL distribution
/// point): a revoked certificate is a refusal; a list that cannot be had, is not signed by the issuer, or is past its
/// next update is a warning, since the path was still valid when checked otherwise.
public struct RevocationChecker: Sendable {
    public enum Status: Sendable, Equatable {
        /// Every certificate that names a list is on none, or names none.
        case good
        /// This certificate (its subject) is revoked.
        case revoked(String)
        /// What could not be checked, a line each.
        case unknown([String])
    }

    public let source: any RevocationListSource

    public init(source: any RevocationListSource) { self.source = source }

    /// `path` as ``MetadataBLOB/certificatePath`` holds it: each certificate followed by its issuer, the root last (a
    /// root is not checked: nothing above it signs a list for it).
    public func check(_ path: [Certificate], at time: Date) async -> Status {
        var unknown: [String] = []
        for (certificate, issuer) in zip(path, path.dropFirst()) {
            let urls = certificate.crlDistributionPoints
            guard !urls.isEmpty else { continue }
            var problems: [String] = []
            var checked = false
            for url in urls where !checked {
                switch await source.revocationList(at: url) {
                case .failure(let error): problems.append("\(url): \(error)")
                case .success(let list):
                    guard list.isSigned(by: issuer) else {
                        problems.append("\(url): not signed by \(issuer.subject)")
                        continue
                    }
                    if list.revokes(certificate) { return .revoked("\(certificate.subject) (serial \(certificate.serialNumber))") }
                    if let next = list.nextUpdate, next < time { problems.append("\(url): past its next update \(next)") }
                    checked = true
                }
            }
            if !checked { unknown.append("\(certificate.subject): " + problems.joined(separator: "; ")) }
            else { unknown += problems.filter { $0.contains("past its next update") } }
        }
        return unknown.isEmpty ? .good : .unknown(unknown)
    }
}
