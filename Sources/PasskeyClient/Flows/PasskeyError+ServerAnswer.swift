public import Foundation

extension PasskeyError {
    /// The error a passkey server's refusal means, for apps that make their own HTTP calls to it (the `/api/…` backend
    /// of a PasskeymeSDK app, the four endpoints of Nuri's guide): the mapping ``PasskeyAuthClient``'s flows use, so
    /// `username_taken`, `rate_limited` or `challenge_invalid` reach the app as codes rather than as "network error".
    ///
    /// ```swift
    /// guard (200..<300).contains(http.statusCode) else {
    ///     throw PasskeyError(serverStatus: http.statusCode, body: data, path: "/api/complete-registration")
    /// }
    /// ```
    ///
    /// The server's code is in ``server`` (``ServerProblem/code``, ``ServerProblem/message``); the ones the SDK knows
    /// become their own ``code`` (``Code/invalidChallenge``, ``Code/accountDisabled``, ``Code/passkeyDeletedOnServer``),
    /// the rest ``Code/server``. An answer that is not the server's JSON error (a proxy's page) is described, not shown.
    /// For a 2xx answer, which is no refusal, the error is ``Code/invalidResponse``: call this only for the others.
    public init(serverStatus status: Int, body: Data, path: String, stage: Stage = .verification) {
        do {
            _ = try PasskeyAuthClient.interpret(RelyingPartyResponse(status: status, body: Array(body)), path: path, stage: stage)
            self = PasskeyError(.invalidResponse, stage: stage, "\(path) answered \(status), which is not a refusal")
        } catch {
            self = error
        }
    }
}
