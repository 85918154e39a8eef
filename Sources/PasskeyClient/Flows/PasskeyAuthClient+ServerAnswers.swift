import Foundation
import PasskeyAPI
import PasskeyWire

/// How the SDK reads a server's answers: a 2xx JSON object for the flows to decode as the API's type, a refusal as an
/// ``PasskeyAPI/ErrorAnswer`` mapped to a ``PasskeyError``.
extension PasskeyAuthClient {
    /// What to tell a user about an error answer without this API's JSON error object: a proxy's short text ("Bad
    /// Gateway") as it is, anything else (an HTML page, a long or binary body) described rather than shown, so a
    /// wrong server address does not print a page of markup as "the server refused: <!DOCTYPE …".
    static func describeForeignBody(_ body: [UInt8], status: Int) -> String {
        let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let plain = text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7f && $0 != "\u{FFFD}" }
        if !text.isEmpty, text.count <= 120, plain, !text.hasPrefix("<"), !text.hasPrefix("{"), !text.hasPrefix("[") {
            return "HTTP \(status): \(text)"
        }
        let what =
            text.isEmpty ? "an empty body"
            : text.hasPrefix("<") ? "an HTML page"
            : text.hasPrefix("{") || text.hasPrefix("[") ? "JSON without an \"error\" member"
            : "\(body.count) bytes that are not a JSON error"
        return "HTTP \(status) with \(what), not a passkey server's JSON error: is this the passkey server's address?"
    }

    /// Maps an HTTP answer: a 2xx JSON object is returned; an error answer becomes the ``PasskeyError`` described on
    /// the type.
    static func interpret(_ response: RelyingPartyResponse, path: String, stage: PasskeyError.Stage) throws(PasskeyError) -> JSONObject {
        let json = try? JSONValue.parse(response.body)
        if (200..<300).contains(response.status) {
            guard let object = json?.objectValue else {
                throw PasskeyError(.invalidResponse, stage: stage, "\(path) answered \(response.status) without a JSON object")
            }
            return object
        }
        guard let json, let refusal = try? ErrorAnswer(json: json) else {
            var error = PasskeyError.server(
                code: .httpStatus(response.status), message: describeForeignBody(response.body, status: response.status),
                httpStatus: response.status)
            error.stage = stage
            error.reason = "\(path) answered HTTP \(response.status) without an error object"
            throw error
        }
        let code = refusal.error
        let message = refusal.message
        var problem = PasskeyError.ServerProblem(code: code, message: message, httpStatus: response.status)
        if let signal = refusal.signalUnknownCredential, !signal.rpId.isEmpty, let id = Base64URL.decode(signal.credentialId), !id.isEmpty {
            problem.unknownCredential = PasskeyError.UnknownCredential(rpID: signal.rpId, credentialID: id)
        }
        switch code {
        case .challengeInvalid:
            throw PasskeyError(
                .invalidChallenge, stage: stage, "\(path): the server no longer knows this challenge (\(message))",
                recovery: .requestNewOptions, server: problem)
        case .accountDisabled:
            throw PasskeyError(.accountDisabled, stage: stage, "\(path): the account is disabled (\(message))", server: problem)
        case .passkeyDeletedOnServer:
            throw PasskeyError(
                .passkeyDeletedOnServer, stage: stage, "\(path): the passkey was deleted on the server (\(message))", server: problem)
        default:
            break
        }
        var error = PasskeyError.server(code: code, message: message, httpStatus: response.status)
        error.stage = stage
        error.server = problem
        throw error
    }
}
