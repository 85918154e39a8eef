public import PasskeyWire

/// `/.well-known/webauthn` (WebAuthn L3 §5.11.1): the origins that may use this RP ID.
public struct RelatedOrigins: JSONRepresentable, Hashable {
    public var origins: [String]

    public init(origins: [String]) { self.origins = origins }

    public init(json: JSONValue) throws(WireError) { origins = try JSONObjectReader(json).strings("origins") }

    public var json: JSONValue { ["origins": .array(origins.map(JSONValue.string))] }
}
