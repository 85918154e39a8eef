import AsyncHTTPClient
import Foundation
import NIOCore
import PasskeyAttestation

/// Downloads the metadata BLOB from `--metadata-url` (FIDO's is https://mds3.fidoalliance.org/), and the revocation
/// lists its chain names. The transport needs no trust of its own: the BLOB is a signed JWS and a list is signed by its
/// issuer, both verified before they are used. Bounded: at most `limit` bytes, in at most `timeout`.
enum MetadataDownload {
    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    static func fetch(_ url: String, limit: Int = MetadataBLOBVerifier.maximumSize, timeout: Duration = .seconds(60)) async throws(Failed) -> [UInt8] {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .follow(max: 3, allowCycles: false)
        configuration.timeout = .init(connect: .seconds(15), read: .seconds(Int64(timeout.components.seconds)))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let result: Result<[UInt8], Failed>
        do { result = .success(try await fetch(url, client: client, limit: limit, timeout: timeout)) } catch { result = .failure(error) }
        try? await client.shutdown()
        return try result.get()
    }

    static func fetch(_ url: String, client: HTTPClient, limit: Int, timeout: Duration) async throws(Failed) -> [UInt8] {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/jwt, application/octet-stream, */*")
        do {
            let response = try await client.execute(request, timeout: .seconds(Int64(timeout.components.seconds)))
            guard response.status == .ok else { throw Failed(description: "\(url) answered \(response.status.code)") }
            if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > limit {
                throw Failed(description: "\(url) sends \(length) bytes, more than the \(limit) read")
            }
            let body = try await response.body.collect(upTo: limit)
            return Array(body.readableBytesView)
        } catch let error as Failed {
            throw error
        } catch is NIOTooManyBytesError {
            throw Failed(description: "\(url) sends more than the \(limit) bytes read")
        } catch {
            throw Failed(description: "\(url) could not be downloaded: \(error)")
        }
    }
}
