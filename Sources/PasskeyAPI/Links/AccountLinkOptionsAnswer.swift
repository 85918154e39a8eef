public import PasskeyWire

/// `POST /links/options`: registration options for the link's account, and whether the passkey will replace the
/// account's others.
public struct AccountLinkOptionsAnswer: JSONRepresentable, Hashable {
    public var registration: RegistrationOptionsAnswer
    public var replacesPasskeys: Bool

    public init(registration: RegistrationOptionsAnswer, replacesPasskeys: Bool) {
        self.registration = registration
        self.replacesPasskeys = replacesPasskeys
    }

    public init(json: JSONValue) throws(WireError) {
        registration = try RegistrationOptionsAnswer(json: json)
        replacesPasskeys = try JSONObjectReader(json).optionalBool("replacesPasskeys") ?? false
    }

    public var json: JSONValue {
        guard case .object(var object) = registration.json else { return registration.json }
        object["replacesPasskeys"] = .bool(replacesPasskeys)
        return .object(object)
    }
}
