import PasskeyWire

// The client extensions AuthenticationServices implements: largeBlob (iOS 17) and prf (iOS 18), on platform requests
// only. Malformed inputs are option errors; an extension the OS lacks is left out and recorded, as a browser ignores
// extensions it does not implement (WebAuthn L3 §9).
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

    static func prfRegistration(_ extensions: JSONObject?) throws(PasskeyError) -> ApplePRFRegistration? {
        guard let input = extensions?["prf"]?.objectValue else { return nil }
        guard let eval = input["eval"] else { return .checkForSupport }
        return .evaluate(try prfValues(eval, member: "extensions.prf.eval"))
    }

    static func prfAssertion(_ extensions: JSONObject?) throws(PasskeyError) -> ApplePRFAssertion? {
        guard let input = extensions?["prf"]?.objectValue else { return nil }
        let values = try input["eval"].map { (value) throws(PasskeyError) in try prfValues(value, member: "extensions.prf.eval") }
        var perCredential: [[UInt8]: ApplePRFValues] = [:]
        for (name, value) in input["evalByCredential"]?.objectValue ?? [:] {
            guard let id = Base64URL.decode(name), !id.isEmpty else {
                throw PasskeyError(.invalidOptions, stage: .options, "extensions.prf.evalByCredential has a key that is not base64url")
            }
            perCredential[id] = try prfValues(value, member: "extensions.prf.evalByCredential")
        }
        guard values != nil || !perCredential.isEmpty else { return nil }
        return ApplePRFAssertion(values: values, perCredential: perCredential)
    }

    static func prfValues(_ value: JSONValue, member: String) throws(PasskeyError) -> ApplePRFValues {
        guard let object = value.objectValue, let first = object["first"]?.stringValue, let firstBytes = Base64URL.decode(first) else {
            throw PasskeyError(.invalidOptions, stage: .options, "\(member).first must be base64url")
        }
        var second: [UInt8]?
        if let encoded = object["second"]?.stringValue {
            guard let bytes = Base64URL.decode(encoded) else {
                throw PasskeyError(.invalidOptions, stage: .options, "\(member).second must be base64url")
            }
            second = bytes
        }
        return ApplePRFValues(first: firstBytes, second: second)
    }
}
