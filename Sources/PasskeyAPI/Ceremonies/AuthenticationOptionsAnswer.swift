public import PasskeyWire

/// Sign-in options as the server answers them: the WebAuthn L3 options a browser's `parseRequestOptionsFromJSON()`
/// takes, with the challenge's key beside them.
public struct AuthenticationOptionsAnswer: JSONRepresentable, Hashable {
    public var options: PublicKeyCredentialRequestOptionsJSON
    /// Names the stored challenge; the app-backend guide's endpoints have none.
    public var challengeKey: String?

    public init(options: PublicKeyCredentialRequestOptionsJSON, challengeKey: String?) {
        self.options = options
        self.challengeKey = challengeKey
    }

    public init(json: JSONValue) throws(WireError) {
        options = try PublicKeyCredentialRequestOptionsJSON(json: json)
        challengeKey = try JSONObjectReader(json).optionalString("challengeKey")
    }

    public var json: JSONValue {
        guard case .object(var object) = options.json else { return options.json }
        if let challengeKey { object["challengeKey"] = .string(challengeKey) }
        return .object(object)
    }
}
