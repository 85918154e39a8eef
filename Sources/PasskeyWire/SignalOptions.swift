/// The arguments of the three signal methods (WebAuthn L3 §5.1.10), as a relying party sends them to the page or app
/// that calls them: the browser methods take these dictionaries as they are, an app converts them for its platform.

/// `PublicKeyCredential.signalUnknownCredential(options)`: this passkey is not (or no longer) accepted here.
public struct UnknownCredentialOptions: JSONRepresentable, Hashable {
    public var rpId: String
    /// Base64url.
    public var credentialId: String

    public init(rpId: String, credentialId: String) {
        self.rpId = rpId
        self.credentialId = credentialId
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        rpId = try reader.string("rpId")
        credentialId = try reader.string("credentialId")
    }

    public var json: JSONValue { ["rpId": .string(rpId), "credentialId": .string(credentialId)] }
}

/// `PublicKeyCredential.signalAllAcceptedCredentials(options)`: every passkey the account holds now.
public struct AllAcceptedCredentialsOptions: JSONRepresentable, Hashable {
    public var rpId: String
    /// The user handle, base64url.
    public var userId: String
    /// Base64url credential IDs.
    public var allAcceptedCredentialIds: [String]

    public init(rpId: String, userId: String, allAcceptedCredentialIds: [String]) {
        self.rpId = rpId
        self.userId = userId
        self.allAcceptedCredentialIds = allAcceptedCredentialIds
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        rpId = try reader.string("rpId")
        userId = try reader.string("userId")
        allAcceptedCredentialIds = try reader.strings("allAcceptedCredentialIds")
    }

    public var json: JSONValue {
        ["rpId": .string(rpId), "userId": .string(userId), "allAcceptedCredentialIds": .array(allAcceptedCredentialIds.map(JSONValue.string))]
    }
}

/// `PublicKeyCredential.signalCurrentUserDetails(options)`: the account's current names.
public struct CurrentUserDetailsOptions: JSONRepresentable, Hashable {
    public var rpId: String
    /// The user handle, base64url.
    public var userId: String
    public var name: String
    public var displayName: String

    public init(rpId: String, userId: String, name: String, displayName: String) {
        self.rpId = rpId
        self.userId = userId
        self.name = name
        self.displayName = displayName
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        rpId = try reader.string("rpId")
        userId = try reader.string("userId")
        name = try reader.string("name")
        displayName = try reader.string("displayName")
    }

    public var json: JSONValue {
        ["rpId": .string(rpId), "userId": .string(userId), "name": .string(name), "displayName": .string(displayName)]
    }
}
