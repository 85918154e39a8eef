import Foundation

/// An error from AuthenticationServices reduced to what the mapping reads: domain, code, texts, and the chain of
/// underlying errors (`NSUnderlyingErrorKey`), where association failures (`SWCErrorDomain`) show up.
public struct ApplePlatformError: Error, Sendable, Hashable, CustomStringConvertible {
    public var domain: String
    public var code: Int
    /// `localizedDescription`: localized on most devices, so it is only a fallback signal.
    public var message: String
    /// `NSLocalizedFailureReasonErrorKey`, when present (iOS 26 sets it for "no credentials" under immediate mediation).
    public var failureReason: String?
    /// Underlying errors, outermost first.
    public var underlying: [ApplePlatformError]

    public init(domain: String, code: Int, message: String = "", failureReason: String? = nil, underlying: [ApplePlatformError] = []) {
        self.domain = domain
        self.code = code
        self.message = message
        self.failureReason = failureReason
        self.underlying = underlying
    }

    /// Reads any `Error` the way Cocoa bridges it (`NSError`): works for `ASAuthorizationError` and `WKError` alike.
    public init(_ error: any Error) {
        self.init(error as NSError, depth: 0)
    }

    private init(_ error: NSError, depth: Int) {
        domain = error.domain
        code = error.code
        message = error.localizedDescription
        failureReason = error.userInfo[NSLocalizedFailureReasonErrorKey] as? String
        if depth < 4, let inner = error.userInfo[NSUnderlyingErrorKey] as? NSError {
            underlying = [ApplePlatformError(inner, depth: depth + 1)]
        } else {
            underlying = []
        }
    }

    /// The ASAuthorizationError code, if this is one.
    public var authorizationCode: AppleAuthorizationErrorCode? {
        domain == AppleAuthorizationErrorCode.domain ? AppleAuthorizationErrorCode(rawValue: code) : nil
    }

    /// This error and every underlying one.
    public var chain: [ApplePlatformError] { [self] + underlying.flatMap(\.chain) }

    public var description: String {
        var text = "\(domain) \(code)"
        if !message.isEmpty { text += " \"\(message)\"" }
        if let failureReason { text += " (reason: \(failureReason))" }
        for inner in underlying { text += " ← \(inner)" }
        return text
    }
}
