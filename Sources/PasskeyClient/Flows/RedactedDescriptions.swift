/// Descriptions of the values that carry secrets — the connect token in a request's `Authorization`, the short-lived
/// `signedPasskeyData` proof — that leave the secrets out, so `print(result)`, string interpolation into an app's log
/// line, or `debugPrint` cannot leak a live token. (The synthesized descriptions printed every stored property.)

extension RelyingPartyRequest: CustomStringConvertible, CustomDebugStringConvertible {
    /// `POST connect/append/options (authorization: redacted, body: 42 bytes)`.
    public var description: String {
        var details: [String] = []
        if authorization != nil { details.append("authorization: redacted") }
        if let body { details.append("body: \(body.count) bytes") }
        return "\(method.rawValue) \(pathAndQuery)" + (details.isEmpty ? "" : " (\(details.joined(separator: ", ")))")
    }

    public var debugDescription: String { "RelyingPartyRequest(\(description))" }
}

extension PasskeyCeremonyResult: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        let who = username.map { "\"\($0)\"" } ?? "an anonymous account"
        let proof = signedPasskeyData == nil ? "" : ", signedPasskeyData: redacted"
        return "verified: \(verified), \(who), userId: \(userId), credentialId: \(credentialId)\(proof)"
    }

    public var debugDescription: String { "PasskeyCeremonyResult(\(description))" }
}

extension LoginStatus: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        switch self {
        case .done(_, let username): "done(signedPasskeyData: redacted, username: \(username.map { "\"\($0)\"" } ?? "nil"))"
        case .initSilentFallback(let identifier): "initSilentFallback(identifier: \(identifier.map { "\"\($0)\"" } ?? "nil"))"
        case .error(let error, let triggerFallback, let identifier):
            "error(\(error.code.rawValue), triggerFallback: \(triggerFallback), identifier: \(identifier.map { "\"\($0)\"" } ?? "nil"))"
        case .initRetry: "initRetry"
        case .ignore: "ignore"
        }
    }

    public var debugDescription: String { "LoginStatus.\(description)" }
}
