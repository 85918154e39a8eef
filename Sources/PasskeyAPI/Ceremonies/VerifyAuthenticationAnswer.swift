public import PasskeyWire

/// `POST /verify-authentication`'s answer: the account signed in to, and what the device's passkey manager is told
/// about it (WebAuthn L3 §5.1.10): `rpId` and `user` as in registration options, and each signal method's argument.
public struct VerifyAuthenticationAnswer: JSONRepresentable, Hashable {
    public var account: VerifiedAccountFields
    /// A sign-in accepted under `--allow-counter-regression` although the counter did not increase.
    public var counterRegressed: Bool
    public var rpId: String?
    public var user: PublicKeyCredentialUserEntityJSON?
    public var signalAllAcceptedCredentials: AllAcceptedCredentialsOptions?
    public var signalCurrentUserDetails: CurrentUserDetailsOptions?

    public init(
        account: VerifiedAccountFields, counterRegressed: Bool, rpId: String?, user: PublicKeyCredentialUserEntityJSON?,
        signalAllAcceptedCredentials: AllAcceptedCredentialsOptions?, signalCurrentUserDetails: CurrentUserDetailsOptions?
    ) {
        self.account = account
        self.counterRegressed = counterRegressed
        self.rpId = rpId
        self.user = user
        self.signalAllAcceptedCredentials = signalAllAcceptedCredentials
        self.signalCurrentUserDetails = signalCurrentUserDetails
    }

    /// Signals that cannot be read are left out rather than failing the sign-in: they are advice to the device.
    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        account = try VerifiedAccountFields(reader)
        counterRegressed = try reader.optionalBool("counterRegressed") ?? false
        rpId = try? reader.optionalString("rpId")
        user = try? reader.optional("user", as: PublicKeyCredentialUserEntityJSON.self)
        signalAllAcceptedCredentials = try? reader.optional("signalAllAcceptedCredentials", as: AllAcceptedCredentialsOptions.self)
        signalCurrentUserDetails = try? reader.optional("signalCurrentUserDetails", as: CurrentUserDetailsOptions.self)
    }

    public var json: JSONValue {
        var object = JSONObject()
        account.write(to: &object)
        if counterRegressed { object["counterRegressed"] = true }
        if let rpId { object["rpId"] = .string(rpId) }
        if let user { object["user"] = user.json }
        if let signalAllAcceptedCredentials { object["signalAllAcceptedCredentials"] = signalAllAcceptedCredentials.json }
        if let signalCurrentUserDetails { object["signalCurrentUserDetails"] = signalCurrentUserDetails.json }
        return .object(object)
    }
}
