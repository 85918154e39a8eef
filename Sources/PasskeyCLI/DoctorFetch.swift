import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP GET as `passkey doctor` sees it: redirects are **not** followed, because Apple's CDN does not follow them
/// for apple-app-site-association, so a redirect is itself a finding.
struct FetchedDocument: Sendable {
    var url: String
    var status: Int
    var contentType: String?
    var location: String?
    var body: [UInt8]
}

/// A fetch that produced no HTTP answer at all (refused, DNS, TLS, timeout).
struct FetchFailure: Error, Sendable {
    var url: String
    var reason: String
}

enum DoctorFetch {
    /// A failed fetch in words (Foundation's own text on Linux is a domain and a number).
    static func describe(_ error: any Error) -> String {
        (error as? URLError).map(\.code.plainDescription) ?? "\(error)"
    }

    static func get(_ address: String, timeout: TimeInterval) async -> Result<FetchedDocument, FetchFailure> {
        guard let url = URL(string: address) else { return .failure(FetchFailure(url: address, reason: "not a valid URL")) }
        let delegate = RefuseRedirects()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.setValue("passkey-doctor", forHTTPHeaderField: "User-Agent")
        return await withCheckedContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                guard let http = response as? HTTPURLResponse else {
                    continuation.resume(returning: .failure(FetchFailure(url: url.absoluteString, reason: error.map(Self.describe) ?? "no HTTP response")))
                    return
                }
                continuation.resume(
                    returning: .success(
                        FetchedDocument(
                            url: url.absoluteString, status: http.statusCode, contentType: http.value(forHTTPHeaderField: "Content-Type"),
                            location: http.value(forHTTPHeaderField: "Location"), body: [UInt8](data ?? Data()))))
            }.resume()
        }
    }
}

/// Answers every redirect with "do not follow": the task then completes with the 3xx response itself.
private final class RefuseRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
