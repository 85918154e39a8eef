public import PasskeyWire

/// The `largeBlob` input of a registration (WebAuthn L3 §10.1.5 `support`): whether the new credential must be able to
/// store a blob.
public enum LargeBlobRegistrationInput: String, Sendable, Hashable {
    /// Only an authenticator that can store blobs may create the credential.
    case required
    /// Any authenticator; the result's `supported` says whether this one can. Also what an absent or unknown
    /// `support` value means (§10.1.5 registration step 3; unknown DOMString values are ignored).
    case preferred
}

/// The `largeBlob` input of a sign-in (§10.1.5): read the credential's blob, or replace it.
public enum LargeBlobAssertionInput: Sendable, Hashable {
    case read
    /// The bytes to store with the credential that answers; `allowCredentials` names exactly that one.
    case write([UInt8])
}

/// Reads the `largeBlob` extension's inputs from options' `extensions` as a browser does (WebAuthn L3 §10.1.5 client
/// extension processing, with WebIDL's conversions), so every authenticator behind the SDK refuses the same inputs with
/// the same ``PasskeyError/Code/invalidOptions`` (NotSupportedError or TypeError in a browser): `read` or `write` when
/// creating a credential, `support` when signing in, `read` together with `write`, `write` unless `allowCredentials`
/// names exactly one credential (a blob belongs to one credential, chosen before the person picks), a `write` that is
/// not base64url, and a `largeBlob` that is not an object. A member is present whatever its value, `null` included, as
/// in a browser (`read: null` is present and false); `read` is true or false by ECMAScript's rules.
public enum LargeBlobInputs {
    /// `nil` when the options have no `largeBlob` member.
    public static func registration(_ extensions: JSONObject?) throws(PasskeyError) -> LargeBlobRegistrationInput? {
        guard let input = try ExtensionInput.object(extensions, "largeBlob") else { return nil }
        // §10.1.5 registration step 1.
        if input["read"] != nil || input["write"] != nil {
            throw PasskeyError(
                .invalidOptions, stage: .options,
                "extensions.largeBlob.read and .write are for sign-in, not for creating a credential (WebAuthn L3 §10.1.5)")
        }
        return input["support"]?.stringValue == LargeBlobRegistrationInput.required.rawValue ? .required : .preferred
    }

    /// `nil` when the options have no `largeBlob` member or ask for nothing (`largeBlob: {}`, `read: false`).
    public static func assertion(_ extensions: JSONObject?, allowCredentials: [[UInt8]]) throws(PasskeyError) -> LargeBlobAssertionInput? {
        guard let input = try ExtensionInput.object(extensions, "largeBlob") else { return nil }
        // §10.1.5 authentication steps 1 and 2: presence counts, whatever the value.
        if input["support"] != nil {
            throw PasskeyError(
                .invalidOptions, stage: .options, "extensions.largeBlob.support is for creating a credential, not for sign-in (WebAuthn L3 §10.1.5)")
        }
        if input["read"] != nil, input["write"] != nil {
            throw PasskeyError(.invalidOptions, stage: .options, "extensions.largeBlob cannot both read and write (WebAuthn L3 §10.1.5)")
        }
        if let write = input["write"] {
            guard let encoded = write.stringValue, let bytes = Base64URL.decode(encoded) else {
                throw PasskeyError(.invalidOptions, stage: .options, "extensions.largeBlob.write is not base64url")
            }
            // §10.1.5 authentication step 4.1.
            guard allowCredentials.count == 1 else {
                throw PasskeyError(
                    .invalidOptions, stage: .options,
                    "extensions.largeBlob.write needs allowCredentials to name exactly one credential, not \(allowCredentials.count) (WebAuthn L3 §10.1.5)")
            }
            return .write(bytes)
        }
        return input["read"].map(ExtensionInput.boolean) == true ? .read : nil
    }
}
