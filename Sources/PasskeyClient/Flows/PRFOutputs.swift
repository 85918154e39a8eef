import PasskeyWire

/// What the `prf` extension (WebAuthn L3 §10.1.4) gave an app through the high-level flows: the outputs are secrets
/// derived on the device (keys for end-to-end encryption), so the flows take them out of the response before it goes
/// to the server and hand them to the app only.
public struct PRFOutputs: Sendable, Hashable {
    /// At registration: whether the new passkey supports PRF (`nil` when the authenticator did not say).
    public var enabled: Bool?
    /// The output for ``PRFValues/first`` (32 bytes), when the authenticator evaluated it.
    public var first: [UInt8]?
    /// The output for ``PRFValues/second``, when one was asked for and evaluated.
    public var second: [UInt8]?

    public init(enabled: Bool? = nil, first: [UInt8]? = nil, second: [UInt8]? = nil) {
        self.enabled = enabled
        self.first = first
        self.second = second
    }

    /// The `prf` input of options, L3 JSON: `{}` to ask for support only, or `{eval: {first, second}}`.
    static func input(_ values: PRFValues?) -> JSONValue {
        guard let values else { return .object([:]) }
        var eval: JSONObject = ["first": .string(Base64URL.encode(values.first))]
        if let second = values.second { eval["second"] = .string(Base64URL.encode(second)) }
        return .object(["eval": .object(eval)])
    }

    /// Reads the outputs from `clientExtensionResults` and returns the results with `prf.results` removed (what the
    /// server may see: at most `prf.enabled`). Nil outputs when the results hold no `prf` member.
    static func take(from results: JSONObject) -> (outputs: PRFOutputs?, remaining: JSONObject) {
        guard let prf = results["prf"]?.objectValue else { return (nil, results) }
        let outputs = prf["results"]?.objectValue
        let found = PRFOutputs(
            enabled: prf["enabled"]?.boolValue, first: outputs?["first"]?.stringValue.flatMap(Base64URL.decode),
            second: outputs?["second"]?.stringValue.flatMap(Base64URL.decode))
        var remaining = results
        var kept = prf
        kept["results"] = nil
        remaining["prf"] = kept.isEmpty ? nil : .object(kept)
        return (found, remaining)
    }
}
