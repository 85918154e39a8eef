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
    /// At most ``DoctorFetch/maximumBodySize`` bytes.
    var body: [UInt8]
    /// The body was longer than ``DoctorFetch/maximumBodySize``; the rest was not read.
    var truncated = false
}

/// A fetch that produced no HTTP answer at all (refused, DNS, TLS, timeout).
struct FetchFailure: Error, Sendable {
    var url: String
    var reason: String
}

enum DoctorFetch {
    /// The most bytes of a body read: eight times what Apple reads of apple-app-site-association (128 KiB), so a file
    /// over Apple's limit is still measured, while a misrouted path that serves something huge is not read in full.
    static let maximumBodySize = 1 << 20

    /// A failed fetch in words (Foundation's own text on Linux is a domain and a number).
    static func describe(_ error: any Error) -> String {
        (error as? URLError).map(\.plainDescription) ?? "\(error)"
    }

    static func get(_ address: String, timeout: TimeInterval) async -> Result<FetchedDocument, FetchFailure> {
        guard let url = URL(string: address) else { return .failure(FetchFailure(url: address, reason: "not a valid URL")) }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.setValue("passkey-doctor", forHTTPHeaderField: "User-Agent")
        return await withCheckedContinuation { continuation in
            let delegate = BoundedFetch(url: url.absoluteString, limit: maximumBodySize, continuation: continuation)
            let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
            let task = session.dataTask(with: request)
            task.resume()
            session.finishTasksAndInvalidate()
            // The request timeout above is an idle timeout: a server that trickles a byte now and then would keep the
            // doctor waiting. This bounds the whole fetch.
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { delegate.expire(task, after: timeout) }
        }
    }
}

/// Reads one answer up to a limit, then stops the transfer, and refuses redirects (the task then completes with the
/// 3xx response itself). Resumes its continuation once, when the task completes.
private final class BoundedFetch: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let url: String
    private let limit: Int
    // Guarded by `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Result<FetchedDocument, FetchFailure>, Never>?
    private var response: HTTPURLResponse?
    private var body: [UInt8] = []
    private var truncated = false
    private var expiry: TimeInterval?

    init(url: String, limit: Int, continuation: CheckedContinuation<Result<FetchedDocument, FetchFailure>, Never>) {
        self.url = url
        self.limit = limit
        self.continuation = continuation
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        lock.withLock { self.response = response as? HTTPURLResponse }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let stop = lock.withLock { () -> Bool in
            guard !truncated else { return false }
            let room = limit - body.count
            if data.count > room {
                body.append(contentsOf: data.prefix(room))
                truncated = true
            } else {
                body.append(contentsOf: data)
            }
            return truncated
        }
        if stop { dataTask.cancel() }
    }

    /// Ends a fetch still running after `seconds`: it completes as a failure that says so.
    func expire(_ task: URLSessionTask, after seconds: TimeInterval) {
        let running = lock.withLock { () -> Bool in
            guard continuation != nil, !truncated else { return false }
            expiry = seconds
            return true
        }
        if running { task.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, outcome) = lock.withLock { () -> (CheckedContinuation<Result<FetchedDocument, FetchFailure>, Never>?, Result<FetchedDocument, FetchFailure>) in
            defer { self.continuation = nil }
            if let expiry, !truncated {
                let seconds = expiry == expiry.rounded() ? String(Int(expiry)) : String(expiry)
                return (self.continuation, .failure(FetchFailure(url: url, reason: "no complete answer within \(seconds) s")))
            }
            let response = self.response ?? task.response as? HTTPURLResponse
            guard let http = response, error == nil || truncated else {
                return (self.continuation, .failure(FetchFailure(url: url, reason: error.map(DoctorFetch.describe) ?? "no HTTP response")))
            }
            return (
                self.continuation,
                .success(
                    FetchedDocument(
                        url: url, status: http.statusCode, contentType: http.value(forHTTPHeaderField: "Content-Type"),
                        location: http.value(forHTTPHeaderField: "Location"), body: body, truncated: truncated))
            )
        }
        continuation?.resume(returning: outcome)
    }
}
