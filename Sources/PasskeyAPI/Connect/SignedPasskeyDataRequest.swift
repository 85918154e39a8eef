public import PasskeyWire

/// `POST /connect/verify`: a ceremony's `signedPasskeyData`, checked once.
public struct SignedPasskeyDataRequest: JSONRepresentable, Hashable {
    public var signedPasskeyData: String

    public init(signedPasskeyData: String) { self.signedPasskeyData = signedPasskeyData }

    public init(json: JSONValue) throws(WireError) { signedPasskeyData = try JSONObjectReader(json).string("signedPasskeyData") }

    public var json: JSONValue { ["signedPasskeyData": .string(signedPasskeyData)] }
}
