public import PasskeyWire

/// `/.well-known/passkey-endpoints` (W3C "A Well-Known URL for Relying Party Passkey Endpoints"): where a passkey
/// manager sends a person to create (`enroll`) or manage (`manage`) passkeys, and the PRF usage details. An empty
/// document still says the site supports passkeys.
public struct PasskeyEndpoints: JSONRepresentable, Hashable {
    public var enroll: String?
    public var manage: String?
    public var prfUsageDetails: String?

    public init(enroll: String? = nil, manage: String? = nil, prfUsageDetails: String? = nil) {
        self.enroll = enroll
        self.manage = manage
        self.prfUsageDetails = prfUsageDetails
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        enroll = try reader.optionalString("enroll")
        manage = try reader.optionalString("manage")
        prfUsageDetails = try reader.optionalString("prfUsageDetails")
    }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("enroll", enroll)
        builder.set("manage", manage)
        builder.set("prfUsageDetails", prfUsageDetails)
        return builder.value
    }
}
