public import PasskeyWire

/// `POST /verify-registration`'s answer (also `/connect/append/verify` and `/links/verify`):
/// `{verified, username, userId, credentialId, isAnonymous, signedPasskeyData}`.
public struct VerifyRegistrationAnswer: JSONRepresentable, Hashable {
    public var account: VerifiedAccountFields

    public init(account: VerifiedAccountFields) { self.account = account }

    public init(json: JSONValue) throws(WireError) {
        account = try VerifiedAccountFields(try JSONObjectReader(json))
    }

    public var json: JSONValue {
        var object = JSONObject()
        account.write(to: &object)
        return .object(object)
    }
}
