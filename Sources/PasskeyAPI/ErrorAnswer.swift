public import PasskeyWire

/// Every refusal's body: `{"error": "<stable_code>", "message": "…"}`, and for a sign-in with a passkey no account
/// holds, the argument of the browser's `signalUnknownCredential` (WebAuthn L3 §5.1.10).
public struct ErrorAnswer: JSONRepresentable, Hashable {
    public var error: ErrorCode
    /// Safe to show: never internals, challenges, keys or credential IDs.
    public var message: String
    public var signalUnknownCredential: UnknownCredentialOptions?

    public init(error: ErrorCode, message: String, signalUnknownCredential: UnknownCredentialOptions? = nil) {
        self.error = error
        self.message = message
        self.signalUnknownCredential = signalUnknownCredential
    }

    /// Reads a refusal as clients meet them: `message` may be missing (a server of the seeds' guides), and a
    /// `signalUnknownCredential` without a usable RP ID or credential ID is ignored rather than failing the whole answer.
    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        error = ErrorCode(rawValue: try reader.string("error"))
        message = try reader.optionalString("message") ?? ""
        signalUnknownCredential = try? reader.optional("signalUnknownCredential", as: UnknownCredentialOptions.self)
    }

    public var json: JSONValue {
        var object: JSONObject = ["error": .string(error.rawValue), "message": .string(message)]
        if let signalUnknownCredential { object["signalUnknownCredential"] = signalUnknownCredential.json }
        return .object(object)
    }
}
