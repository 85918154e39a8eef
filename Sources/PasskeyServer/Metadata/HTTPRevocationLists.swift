public import Foundation
public import PasskeyAttestation
import Synchronization

/// Revocation lists downloaded over HTTP (CAs publish them at `http://` URLs: the list is signed, the transport need
/// not be), each kept until its next update and at most a day, so a server checks a BLOB's chain without downloading
/// the same lists again for every BLOB.
public final class HTTPRevocationLists: RevocationListSource {
    /// A list larger than this is refused (GlobalSign's are a few kilobytes).
    static let limit = 16 * 1024 * 1024
    private let cache = Mutex<[String: (bytes: [UInt8], until: Date)]>([:])
    private let now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date = Date.init) { self.now = now }

    public func revocationList(at url: String) async -> Result<[UInt8], RevocationListUnavailable> {
        let time = now()
        if let cached = cache.withLock({ $0[url] }), cached.until > time { return .success(cached.bytes) }
        let bytes: [UInt8]
        do { bytes = try await MetadataDownload.fetch(url, limit: Self.limit, timeout: .seconds(15)) } catch {
            return .failure(RevocationListUnavailable(error.description))
        }
        let nextUpdate = (try? CertificateRevocationList(derEncoded: bytes))?.nextUpdate ?? time.addingTimeInterval(3600)
        let until = min(time.addingTimeInterval(86_400), nextUpdate)
        cache.withLock { $0[url] = (bytes, until) }
        return .success(bytes)
    }
}
