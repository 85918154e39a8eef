public import PasskeyWire

/// One or two PRF inputs (WebAuthn L3 §10.1.4 `AuthenticationExtensionsPRFValues`; Apple's `saltInput1` / `saltInput2`),
/// as the relying party sent them: the authenticator applies the WebAuthn salt hashing.
public struct PRFValues: Sendable, Hashable {
    public var first: [UInt8]
    public var second: [UInt8]?

    public init(first: [UInt8], second: [UInt8]? = nil) {
        self.first = first
        self.second = second
    }
}

/// The `prf` input of a registration.
public enum PRFRegistrationInput: Sendable, Hashable {
    /// `prf: {}`: ask whether the new credential supports PRF.
    case checkForSupport
    /// `prf: {eval: …}`: evaluate at creation where the authenticator can.
    case evaluate(PRFValues)
}

/// The `prf` input of a sign-in.
public struct PRFAssertionInput: Sendable, Hashable {
    /// `eval`: for whichever credential answers.
    public var values: PRFValues?
    /// `evalByCredential`: per credential ID.
    public var perCredential: [[UInt8]: PRFValues]

    public init(values: PRFValues?, perCredential: [[UInt8]: PRFValues] = [:]) {
        self.values = values
        self.perCredential = perCredential
    }

    /// The values for the credential that answers: its own entry, else `eval` (§10.1.4).
    public func values(for credentialID: [UInt8]) -> PRFValues? { perCredential[credentialID] ?? values }
}

/// Reads the `prf` extension's inputs from options' `extensions` with the checks a browser makes before it asks any
/// authenticator (WebAuthn L3 §10.1.4 client extension processing), so every authenticator behind the SDK refuses the
/// same inputs with the same ``PasskeyError/Code/invalidOptions``: `evalByCredential` at registration
/// (NotSupportedError in a browser), `evalByCredential` without `allowCredentials` (NotSupportedError), a key of it that
/// is not the base64url ID of a credential in `allowCredentials` (SyntaxError), values that are not base64url.
public enum PRFInputs {
    /// `nil` when the options have no `prf` member.
    public static func registration(_ extensions: JSONObject?) throws(PasskeyError) -> PRFRegistrationInput? {
        guard let input = try ExtensionInput.object(extensions, "prf") else { return nil }
        if input["evalByCredential"] != nil {
            throw PasskeyError(
                .invalidOptions, stage: .options,
                "extensions.prf.evalByCredential is not allowed when creating a credential (WebAuthn L3 §10.1.4)")
        }
        guard let eval = input["eval"] else { return .checkForSupport }
        return .evaluate(try values(eval, member: "extensions.prf.eval"))
    }

    /// `nil` when the options have no `prf` member or ask for no evaluation (`prf: {}`).
    public static func assertion(_ extensions: JSONObject?, allowCredentials: [[UInt8]]) throws(PasskeyError) -> PRFAssertionInput? {
        guard let input = try ExtensionInput.object(extensions, "prf") else { return nil }
        let eval = try input["eval"].map { (value) throws(PasskeyError) in try values(value, member: "extensions.prf.eval") }
        var perCredential: [[UInt8]: PRFValues] = [:]
        if let entries = input["evalByCredential"] {
            guard let object = entries.objectValue else {
                throw PasskeyError(.invalidOptions, stage: .options, "extensions.prf.evalByCredential is not an object")
            }
            if !object.isEmpty, allowCredentials.isEmpty {
                throw PasskeyError(
                    .invalidOptions, stage: .options,
                    "extensions.prf.evalByCredential needs allowCredentials: it names credentials (WebAuthn L3 §10.1.4)")
            }
            for (key, value) in object {
                guard let id = Base64URL.decode(key), !id.isEmpty else {
                    throw PasskeyError(.invalidOptions, stage: .options, "extensions.prf.evalByCredential has a key that is not base64url")
                }
                guard allowCredentials.contains(id) else {
                    throw PasskeyError(
                        .invalidOptions, stage: .options, "extensions.prf.evalByCredential names a credential that allowCredentials does not list")
                }
                perCredential[id] = try values(value, member: "extensions.prf.evalByCredential")
            }
        }
        guard eval != nil || !perCredential.isEmpty else { return nil }
        return PRFAssertionInput(values: eval, perCredential: perCredential)
    }

    /// `AuthenticationExtensionsPRFValues` in L3 JSON: `first` required, `second` optional, both base64url.
    private static func values(_ value: JSONValue, member: String) throws(PasskeyError) -> PRFValues {
        guard let object = value.objectValue, let first = object["first"]?.stringValue, let firstBytes = Base64URL.decode(first) else {
            throw PasskeyError(.invalidOptions, stage: .options, "\(member).first must be base64url")
        }
        var second: [UInt8]?
        if let encoded = object["second"] {
            guard let text = encoded.stringValue, let bytes = Base64URL.decode(text) else {
                throw PasskeyError(.invalidOptions, stage: .options, "\(member).second must be base64url")
            }
            second = bytes
        }
        return PRFValues(first: firstBytes, second: second)
    }
}
