import PasskeyWire
import PasskeyStorage

/// Reads members of a request body, turning wire errors into 400 answers.
struct JSONObjectReaderAPI {
    let reader: JSONObjectReader

    /// A request body, which must be a JSON object.
    init(_ value: JSONValue) throws(APIError) {
        do { reader = try JSONObjectReader(value) } catch { throw Self.notAnObject(value) }
    }

    static func notAnObject(_ value: JSONValue) -> APIError {
        APIError(.fieldInvalid, "The request body must be a JSON object, not \(value.typeName).")
    }

    /// A request body read as its type: not an object, or a member missing or of the wrong type, is a 400.
    static func decode<Body: JSONRepresentable>(_ type: Body.Type, from value: JSONValue) throws(APIError) -> Body {
        guard case .object = value else { throw notAnObject(value) }
        do { return try Body(json: value) } catch { throw APIError(error) }
    }

    init(reader: JSONObjectReader) { self.reader = reader }

    func optionalString(_ name: String) throws(APIError) -> String? {
        do { return try reader.optionalString(name) } catch { throw APIError(error) }
    }

    func requiredString(_ name: String) throws(APIError) -> String {
        do { return try reader.string(name) } catch { throw APIError(error) }
    }

    func requiredBool(_ name: String) throws(APIError) -> Bool {
        do { return try reader.bool(name) } catch { throw APIError(error) }
    }

    func optionalInt(_ name: String) throws(APIError) -> Int? {
        do { return try reader.optionalInt(name) } catch { throw APIError(error) }
    }

    func optionalBool(_ name: String) throws(APIError) -> Bool? {
        do { return try reader.optionalBool(name) } catch { throw APIError(error) }
    }

    /// An array of strings (webhook event types).
    func optionalStrings(_ name: String) throws(APIError) -> [String]? {
        do { return try reader.optionalStrings(name, as: WebhookEventType.self)?.map(\.rawValue) } catch { throw APIError(error) }
    }

    /// A nested object member, as a reader whose errors name the full path (`user.id`).
    func requiredObject(_ name: String) throws(APIError) -> JSONObjectReaderAPI {
        do {
            let value = try reader.required(name)
            return JSONObjectReaderAPI(reader: try JSONObjectReader(value, path: reader.fieldPath(name)))
        } catch { throw APIError(error) }
    }

    /// A credential in WebAuthn L3 JSON, also accepted wrapped as `{"credential": …}`, with its path for errors
    /// (`cred`, or `cred.credential` when wrapped).
    func credentialValue(_ name: String) throws(APIError) -> (value: JSONValue, path: String) {
        let value: JSONValue
        do { value = try reader.required(name) } catch { throw APIError(error) }
        if case .object(let object) = value, object["response"] == nil, let inner = object["credential"] {
            return (inner, reader.fieldPath(name) + ".credential")
        }
        return (value, reader.fieldPath(name))
    }

    func registrationCredential(_ name: String) throws(APIError) -> RegistrationResponseJSON {
        let credential = try credentialValue(name)
        do { return try RegistrationResponseJSON(json: credential.value) } catch { throw APIError(error.within(credential.path)) }
    }

    func authenticationCredential(_ name: String) throws(APIError) -> AuthenticationResponseJSON {
        let credential = try credentialValue(name)
        do { return try AuthenticationResponseJSON(json: credential.value) } catch { throw APIError(error.within(credential.path)) }
    }
}
