import PasskeyWire

/// A member a request type reads as optional (one type serves endpoints that need it and endpoints that do not), for
/// an endpoint that needs it: missing is `field_missing`, as the wire reader says it.
func required<Value>(_ value: Value?, _ name: String) throws(WireError) -> Value {
    guard let value else { throw WireError(.fieldMissing, field: name, "required member is missing") }
    return value
}
