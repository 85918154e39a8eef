public import PasskeyWire

/// What the FIDO Metadata Service reports of a passkey's authenticator model, on a passkey whose model it reports
/// compromised (absent otherwise): the statuses (`USER_KEY_PHYSICAL_COMPROMISE`, …), and whether the server refuses the
/// passkey's sign-ins.
public struct AuthenticatorCompromiseJSON: JSONRepresentable, Hashable {
    public var statuses: [String]
    public var signInRefused: Bool

    public init(statuses: [String], signInRefused: Bool) {
        self.statuses = statuses
        self.signInRefused = signInRefused
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        statuses = try reader.strings("statuses")
        signInRefused = try reader.bool("signInRefused")
    }

    public var json: JSONValue { ["statuses": .array(statuses.map(JSONValue.string)), "signInRefused": .bool(signInRefused)] }
}
