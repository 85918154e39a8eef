public import Foundation
public import PasskeyAttestation
import Synchronization

/// Revocation lists downloaded over HTTP (CAs publish them at `http://` URLs: the list is signed, the transport need
/// not be), each kept until its next update and at most a day, so a server checks a BLOB's chain without downloading
/// the same lists again for every BLOB.
public final class HTTPRevocationLists: RevocationListSource {
    /// A list larger than this is refused (GlobalSign's are a few kilobytes).
    static let limit = 16 * 1024 * 1024
    private let cache = Mutex<[String: (list: CertificateRevocationList, until: Date)]>([:])
    private let now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date = Date.init) { self.now = now }

    /// Read once when downloaded; a cached list is handed out as read.
    public func revocationList(at url: String) async -> Result<CertificateRevocationList, RevocationListUnavailable> {
        let time = now()
        if let cached = cache.withLock({ $0[url] }), cached.until > time { return .success(cached.list) }
        let list: CertificateRevocationList
        do { list = try CertificateRevocationList(derEncoded: try await MetadataDownload.fetch(url, limit: Self.limit, timeout: .seconds(15))) } catch {
            return .failure(RevocationListUnavailable("\(error)"))
        }
        let until = min(time.addingTimeInterval(86_400), list.nextUpdate ?? time.addingTimeInterval(3600))
        cache.withLock { $0[url] = (list, until) }
        return .success(list)
    }
}
