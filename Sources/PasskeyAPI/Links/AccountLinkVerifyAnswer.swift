public import PasskeyWire

/// `POST /links/verify`: the passkey added as `/verify-registration` answers it, and how many of the account's other
/// passkeys it replaced.
public struct AccountLinkVerifyAnswer: JSONRepresentable, Hashable {
    public var account: VerifiedAccountFields
    public var replacedPasskeys: Int

    public init(account: VerifiedAccountFields, replacedPasskeys: Int) {
        self.account = account
        self.replacedPasskeys = replacedPasskeys
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        account = try VerifiedAccountFields(reader)
        replacedPasskeys = try reader.optionalInt("replacedPasskeys") ?? 0
    }

    public var json: JSONValue {
        var object = JSONObject()
        account.write(to: &object)
        object["replacedPasskeys"] = .number(Double(replacedPasskeys))
        return .object(object)
    }
}
