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
    /// Seconds a whole request may take (connecting, sending, the answer) before it fails with ``PasskeyError/Code/timeout``.
    public let timeout: TimeInterval
    /// Adapts each request just before it is sent, after the transport set its own headers: the app's session cookie
    /// or token for its backend, an App Attest assertion, a trace id, a `User-Agent`. A ``PasskeyError`` it throws ends
    /// the request as it is; any other error becomes ``PasskeyError/Code/network`` at stage `network`.
    public let prepare: (@Sendable (inout URLRequest) async throws -> Void)?

    public init(
        baseURL: URL, session: URLSession = .shared, timeout: TimeInterval = 30, prepare: (@Sendable (inout URLRequest) async throws -> Void)? = nil
    ) {
        self.baseURL = baseURL
        self.session = session
        self.timeout = timeout
        self.prepare = prepare
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
        if let authorization = request.authorization { urlRequest.setValue(authorization, forHTTPHeaderField: "Authorization") }
        if let body = request.body {
            urlRequest.httpBody = Data(body)
            urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let prepare {
            do { try await prepare(&urlRequest) } catch let error as PasskeyError { throw error } catch {
                throw PasskeyError(.network, stage: .network, "the app's request adapter failed: \(error)")
            }
        }
        let outcome = await perform(urlRequest)
        switch outcome {
        case .success(let response): return response
        case .failure(let error): throw Self.map(error, url: url)
        }
    }

    /// Runs a data task. The answer comes from whichever happens first: the task finishing, ``timeout`` elapsing
    /// (`URLError.timedOut`), or the awaiting task being cancelled (`URLError.cancelled`); the data task is cancelled in
    /// the last two cases. The timer and cancellation are ours because FoundationNetworking on Linux applies neither a
    /// short `timeoutInterval` nor `cancel()` promptly.
    private func perform(_ request: URLRequest) async -> Result<RelyingPartyResponse, any Error> {
        let box = TaskBox()
        let timeout = self.timeout
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<RelyingPartyResponse, any Error>, Never>) in
                box.setContinuation(continuation)
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        box.finish(.failure(error))
                    } else if let http = response as? HTTPURLResponse {
                        box.finish(.success(RelyingPartyResponse(status: http.statusCode, body: Array(data ?? Data()))))
                    } else {
                        box.finish(.failure(URLError(.badServerResponse)))
                    }
                }
                box.set(task)
                task.resume()
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                    box.finish(.failure(URLError(.timedOut)))
                }
            }
        } onCancel: {
            box.finish(.failure(URLError(.cancelled)))
        }
    }

    /// A `URLSession` failure for `url` as the SDK reports it: for an app's own ``RelyingPartyTransport`` that wants the
    /// same codes (timeout, cancelled, network) and messages.
    public static func map(_ error: any Error, url: URL) -> PasskeyError {
        // With the port: "cannot reach localhost: connection refused" did not say which server was meant.
        let host = url.host.map { host in url.port.map { "\(host):\($0)" } ?? host } ?? url.absoluteString
        if let urlError = error as? URLError {
            switch urlError.code {
            case .timedOut:
                return PasskeyError(.timeout, stage: .network, "no answer from \(host) in time", recovery: .checkConnection)
            case .cancelled:
                return .cancelled(stage: .network, "the request to \(host) was cancelled")
            default:
                return PasskeyError(.network, stage: .network, "cannot reach \(host): \(urlError.plainDescription)")
            }
        }
        return PasskeyError(.network, stage: .network, "cannot reach \(host): \(error)")
    }
}

extension URLError {
    /// What went wrong, in words: ``URLError/Code/plainDescription``; on Linux, for a code that has no sentence there,
    /// the sentence FoundationNetworking keeps from curl. A TLS failure (an untrusted certificate, `https://` to a
    /// server that speaks plain HTTP) has code -1 on Linux, and only curl's sentence tells what happened.
    package var plainDescription: String {
        #if !canImport(Darwin)
        if code.namedDescription == nil, let text = userInfo[NSLocalizedDescriptionKey] as? String, !text.isEmpty {
            if text.hasPrefix("SSL certificate problem") {
                // curl checks against the system's trust store (Debian: /etc/ssl/certs), which is where a self-signed
                // or private CA's certificate has to go.
                return text
                    + " (this machine does not trust the server's certificate: add its CA to the system's trust store, on Debian /usr/local/share/ca-certificates and update-ca-certificates)"
            }
            // OpenSSL's words for a TLS handshake answered in plain HTTP.
            if text.contains("wrong version number") { return text + " (is it an https:// URL for a server that speaks plain HTTP?)" }
            return text
        }
        #endif
        return code.plainDescription
    }
}

extension URLError.Code {
    /// What went wrong, in words: Foundation on Linux describes every URL error as "The operation could not be
    /// completed. (NSURLErrorDomain error -1004.)".
    package var plainDescription: String {
        if let namedDescription { return namedDescription }
        #if canImport(Darwin)
        // Apple's own text is readable there, and names what the codes below do not.
        return URLError(self).localizedDescription
        #else
        return "network error \(rawValue)"
        #endif
    }

    /// The sentence for the codes this SDK names; nil for the others.
    package var namedDescription: String? {
        switch self {
        case .cannotConnectToHost: "connection refused"
        case .cannotFindHost, .dnsLookupFailed: "no such host (DNS lookup failed)"
        case .timedOut: "no answer in time"
        case .networkConnectionLost: "the connection was closed before the answer was complete"
        case .notConnectedToInternet: "no network connection"
        case .secureConnectionFailed: "the TLS handshake failed (is it an https:// URL for a server that speaks plain HTTP?)"
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot, .serverCertificateHasBadDate, .serverCertificateNotYetValid:
            "the server's TLS certificate is not trusted"
        case .badServerResponse: "the answer was not valid HTTP"
        case .badURL, .unsupportedURL: "the URL cannot be used"
        case .httpTooManyRedirects, .redirectToNonExistentLocation: "redirects that do not end"
        case .cancelled: "the request was cancelled"
        case .appTransportSecurityRequiresSecureConnection: "App Transport Security allows only https:// here"
        default: nil
        }
    }
}

/// Holds the data task and the continuation: the first outcome (answer, timeout, cancellation) resumes the
/// continuation exactly once and cancels the data task if it is still running.
private final class TaskBox: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var continuation: CheckedContinuation<Result<RelyingPartyResponse, any Error>, Never>?
    private var outcome: Result<RelyingPartyResponse, any Error>?

    func setContinuation(_ continuation: CheckedContinuation<Result<RelyingPartyResponse, any Error>, Never>) {
        let early = lock.withLock { () -> Result<RelyingPartyResponse, any Error>? in
            if let outcome { return outcome }
            self.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    func set(_ task: URLSessionDataTask) {
        let finished = lock.withLock { () -> Bool in
            self.task = task
            return outcome != nil
        }
        if finished { task.cancel() }
    }

    /// Records the first outcome and resumes the waiting caller with it; later outcomes are ignored.
    func finish(_ result: Result<RelyingPartyResponse, any Error>) {
        let (continuation, task) = lock.withLock { () -> (CheckedContinuation<Result<RelyingPartyResponse, any Error>, Never>?, URLSessionDataTask?) in
            guard outcome == nil else { return (nil, nil) }
            outcome = result
            let waiting = self.continuation
            self.continuation = nil
            return (waiting, self.task)
        }
        guard let continuation else { return }
        if case .failure = result { task?.cancel() }
        continuation.resume(returning: result)
    }
}
#endif

#if canImport(Foundation)
extension PasskeyAuthClient {
    /// A client for the passkey server at `serverURL`, over HTTP with `URLSession`. `prepare` adapts each request
    /// before it is sent (``URLSessionRelyingPartyTransport/prepare``): the app's own headers.
    public init(
        serverURL: URL, authenticator: any Authenticator, session: URLSession = .shared, timeout: TimeInterval = 30,
        prepare: (@Sendable (inout URLRequest) async throws -> Void)? = nil, onEvent: (@Sendable (PasskeyClientEvent) -> Void)? = nil
    ) {
        self.init(
            transport: URLSessionRelyingPartyTransport(baseURL: serverURL, session: session, timeout: timeout, prepare: prepare),
            authenticator: authenticator, onEvent: onEvent)
    }
}
#endif
