import PasskeyWire

// The client extensions AuthenticationServices implements: largeBlob (iOS 17) and prf (iOS 18, read by `PRFInputs`),
// on platform requests only. Malformed inputs are option errors; an extension the OS lacks is left out and recorded, as
// a browser ignores extensions it does not implement (WebAuthn L3 §9).
extension AppleRequestPlan {
    static func largeBlobRegistration(_ extensions: JSONObject?) -> AppleLargeBlobRegistration? {
        guard let input = extensions?["largeBlob"]?.objectValue else { return nil }
        return input["support"]?.stringValue == "required" ? .required : .preferred
    }

    static func largeBlobAssertion(_ extensions: JSONObject?) throws(PasskeyError) -> AppleLargeBlobAssertion? {
        guard let input = extensions?["largeBlob"]?.objectValue else { return nil }
        let read = input["read"]?.boolValue == true
        let write = input["write"]?.stringValue
        switch (read, write) {
        case (true, .some):
            throw PasskeyError(.invalidOptions, stage: .options, "extensions.largeBlob cannot both read and write")
        case (true, nil):
            return .read
        case (false, .some(let encoded)):
            guard let bytes = Base64URL.decode(encoded) else {
                throw PasskeyError(.invalidOptions, stage: .options, "extensions.largeBlob.write is not base64url")
            }
            return .write(bytes)
        case (false, nil):
            return nil
        }
    }
}
