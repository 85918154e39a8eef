import Foundation
import PasskeyAPI
import PasskeyClient
import PasskeyWire

/// The HTTP transport of the connect commands, keeping the server's last successful JSON answer per path.
///
/// The SDK's results keep what an app needs (``PasskeyInfo``, ``AppendStatus``) and drop the rest of the answer:
/// `aaguid`, `backupEligible` and `algorithm` of a passkey, `userId`, `username` and `signedPasskeyData` of an append.
/// `--json` prints what the server returned (docs/connect.md), so the commands read those members from here.
final class RecordingTransport: RelyingPartyTransport, @unchecked Sendable {
    private let base: URLSessionRelyingPartyTransport
    private let lock = NSLock()
    private var answers: [String: JSONObject] = [:]
    private var last: JSONObject?

    init(baseURL: URL) { base = URLSessionRelyingPartyTransport(baseURL: baseURL) }

    func send(_ request: RelyingPartyRequest) async throws(PasskeyError) -> RelyingPartyResponse {
        let response = try await base.send(request)
        if (200..<300).contains(response.status), let object = (try? JSONValue.parse(response.body))?.objectValue {
            lock.withLock {
                answers[request.path] = object
                last = object
            }
        }
        return response
    }

    /// The last 2xx answer for `path` (as the SDK names it, for example "connect/append/verify"), read as the API's type
    /// for it; nil when there was none, or it was of another shape.
    func answer<Answer: JSONRepresentable>(_ path: String, as type: Answer.Type) -> Answer? {
        lock.withLock { answers[path] }.flatMap { try? Answer(json: .object($0)) }
    }

    /// The last 2xx answer, whatever the path (a command that sends one request), read as the API's type for it.
    func lastAnswer<Answer: JSONRepresentable>(as type: Answer.Type) -> Answer? {
        lock.withLock { last }.flatMap { try? Answer(json: .object($0)) }
    }
}

/// A passkey as `--json` prints it: the SDK's fields, plus every other member the server's own entry has.
func passkeyJSON(_ passkey: PasskeyInfo, server: PasskeyEntry?) -> JSONValue {
    guard case .object(var object) = passkeyJSON(passkey), case .object(let entry)? = server?.json else { return passkeyJSON(passkey) }
    for (name, value) in entry where object[name] == nil { object[name] = value }
    return .object(object)
}
