import PasskeyWire

/// Reading a request body as its endpoint's type (`PasskeyAPI`): the one place the HTTP edge turns what a client sent
/// into a typed request, and a malformed one into a 400 that names the member.
enum RequestBody {
    /// `value` read as `Body`: not a JSON object, or a member missing or of the wrong type, is a 400.
    static func decode<Body: JSONRepresentable>(_ type: Body.Type, from value: JSONValue) throws(APIError) -> Body {
        guard case .object = value else {
            throw APIError(.fieldInvalid, "The request body must be a JSON object, not \(value.typeName).")
        }
        do { return try Body(json: value) } catch { throw APIError(error) }
    }
}
