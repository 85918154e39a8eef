#if canImport(Foundation)
public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// HTTP to the relying-party server with `URLSession` (FoundationNetworking on Linux).
///
/// Failures become ``PasskeyError`` with stage `network`: a timeout is ``PasskeyError/Code/timeout``, a cancelled task
/// ``PasskeyError/Code/cancelled``, anything else (refused, unreachable, DNS, TLS) ``PasskeyError/Code/network``.
public struct URLSessionRelyingPartyTransport: RelyingPartyTransport {
    /// The server's base URL, for example `https://auth.example.com/` or `http://localhost:8080`.
    public let baseURL: URL
    public let session: URLSession
    /// Seconds without progress before a request fails with ``PasskeyError/Code/timeout``.
    public let timeout: TimeInterval

    public init(baseURL: URL, session: URLSession = .shared, timeout: TimeInterval = 30) {
        self.baseURL = baseURL
        self.session = session
        self.timeout = timeout
    }

    /// The full URL of a request: the base URL's path, then the request's path and query.
    public func url(for request: RelyingPartyRequest) -> URL? {
        var base = baseURL.absoluteString
        if !base.hasSuffix("/") { base += "/" }
        return URL(string: base + request.pathAndQuery)
    }

    public func send(_ request: RelyingPartyRequest) async throws(PasskeyError) -> RelyingPartyResponse {
        guard let url = url(for: request) else {
            throw PasskeyError(.network, stage: .network, "cannot form a URL from \(baseURL) and \(request.path)", recovery: .checkConfiguration)
        }
        if Task.isCancelled { throw .cancelled(stage: .network, "cancelled before contacting the server") }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body = request.body {
            urlRequest.httpBody = Data(body)
            urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let outcome = await perform(urlRequest)
        switch outcome {
        case .success(let response): return response
        case .failure(let error): throw Self.map(error, url: url)
        }
    }

    /// Runs a data task; cancelling the awaiting task cancels it.
    private func perform(_ request: URLRequest) async -> Result<RelyingPartyResponse, any Error> {
        let box = TaskBox()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<RelyingPartyResponse, any Error>, Never>) in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(returning: .failure(error))
                    } else if let http = response as? HTTPURLResponse {
                        continuation.resume(returning: .success(RelyingPartyResponse(status: http.statusCode, body: Array(data ?? Data()))))
                    } else {
                        continuation.resume(returning: .failure(URLError(.badServerResponse)))
                    }
                }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }

    static func map(_ error: any Error, url: URL) -> PasskeyError {
        let host = url.host ?? url.absoluteString
        if let urlError = error as? URLError {
            switch urlError.code {
            case .timedOut:
                return PasskeyError(.timeout, stage: .network, "no answer from \(host) in time", recovery: .checkConnection)
            case .cancelled:
                return .cancelled(stage: .network, "the request to \(host) was cancelled")
            default:
                return PasskeyError(.network, stage: .network, "cannot reach \(host): \(urlError.localizedDescription) (URLError \(urlError.code.rawValue))")
            }
        }
        return PasskeyError(.network, stage: .network, "cannot reach \(host): \(error)")
    }
}

/// Holds the data task so a cancellation arriving before or after it starts is honoured.
private final class TaskBox: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    func set(_ task: URLSessionDataTask) {
        let cancelNow = lock.withLock { () -> Bool in
            self.task = task
            return cancelled
        }
        if cancelNow { task.cancel() }
    }

    func cancel() {
        let task = lock.withLock { () -> URLSessionDataTask? in
            cancelled = true
            return self.task
        }
        task?.cancel()
    }
}
#endif

#if canImport(Foundation)
extension PasskeyAuthClient {
    /// A client for the passkey server at `serverURL`, over HTTP with `URLSession`.
    public init(
        serverURL: URL, authenticator: any Authenticator, session: URLSession = .shared, timeout: TimeInterval = 30,
        onEvent: (@Sendable (PasskeyClientEvent) -> Void)? = nil
    ) {
        self.init(
            transport: URLSessionRelyingPartyTransport(baseURL: serverURL, session: session, timeout: timeout),
            authenticator: authenticator, onEvent: onEvent)
    }
}
#endif
