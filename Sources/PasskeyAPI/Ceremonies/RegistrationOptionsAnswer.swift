public import PasskeyWire

/// Registration options as the server answers them: the WebAuthn L3 options a browser's
/// `parseCreationOptionsFromJSON()` takes, with the members of this API beside them.
public struct RegistrationOptionsAnswer: JSONRepresentable, Hashable {
    public var options: PublicKeyCredentialCreationOptionsJSON
    /// Names the stored challenge; sent back with the response (`/verify-registration`). The app-backend guide's
    /// endpoints have none: they find the challenge from the signed client data.
    public var challengeKey: String?
    /// Options for the system's sign-up sheet: the contact kinds it may offer (the request's `contact`).
    public var acceptedContacts: [ContactKind]?

    public init(options: PublicKeyCredentialCreationOptionsJSON, challengeKey: String?, acceptedContacts: [ContactKind]? = nil) {
        self.options = options
        self.challengeKey = challengeKey
        self.acceptedContacts = acceptedContacts
    }

    public init(json: JSONValue) throws(WireError) {
        options = try PublicKeyCredentialCreationOptionsJSON(json: json)
        let reader = try JSONObjectReader(json)
        challengeKey = try reader.optionalString("challengeKey")
        acceptedContacts = try reader.optionalStrings("acceptedContacts", as: ContactKind.self)
    }

    public var json: JSONValue {
        guard case .object(var object) = options.json else { return options.json }
        if let challengeKey { object["challengeKey"] = .string(challengeKey) }
        if let acceptedContacts, !acceptedContacts.isEmpty { object["acceptedContacts"] = .array(acceptedContacts.map { .string($0.rawValue) }) }
        return .object(object)
    }
}
