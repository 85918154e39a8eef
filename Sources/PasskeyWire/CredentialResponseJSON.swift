/// The response member of a credential: ``AuthenticatorAttestationResponseJSON`` after `create()`,
/// ``AuthenticatorAssertionResponseJSON`` after `get()`.
public protocol AuthenticatorResponseJSON: JSONRepresentable, Hashable {
    /// Reads the member, naming errors with `path` (`response.clientDataJSON`).
    init(json: JSONValue, path: String) throws(WireError)
}

/// WebAuthn L3 §5.1: what `PublicKeyCredential.toJSON()` gives. The envelope (`id`, `rawId`, `type`, attachment and
/// client extension results) is the same for both ceremonies; only `response` differs.
///
/// Binary members stay base64url strings here, exactly as received; the verifier decodes them and says which member
/// was not valid base64url.
public struct PublicKeyCredentialJSON<Response: AuthenticatorResponseJSON>: JSONRepresentable, Hashable {
    public var id: String
    public var rawId: String
    public var response: Response
    public var authenticatorAttachment: AuthenticatorAttachment?
    public var clientExtensionResults: JSONObject
    public var type: PublicKeyCredentialType

    public init(
        id: String, rawId: String, response: Response, authenticatorAttachment: AuthenticatorAttachment? = nil,
        clientExtensionResults: JSONObject = [:], type: PublicKeyCredentialType = .publicKey
    ) {
        self.id = id
        self.rawId = rawId
        self.response = response
        self.authenticatorAttachment = authenticatorAttachment
        self.clientExtensionResults = clientExtensionResults
        self.type = type
    }

    public init(json: JSONValue) throws(WireError) {
        let r = try JSONObjectReader(json)
        id = try r.string("id")
        rawId = try r.optionalString("rawId") ?? id
        response = try Response(json: try r.required("response"), path: "response")
        authenticatorAttachment = try r.optionalEnum("authenticatorAttachment", as: AuthenticatorAttachment.self)
        clientExtensionResults = try r.optionalObject("clientExtensionResults") ?? [:]
        type = PublicKeyCredentialType(rawValue: try r.string("type"))
    }

    public var json: JSONValue {
        var b = JSONObjectBuilder()
        b.set("id", id)
        b.set("rawId", rawId)
        b.set("response", response)
        b.set("authenticatorAttachment", authenticatorAttachment)
        b.set("clientExtensionResults", .object(clientExtensionResults))
        b.set("type", type)
        return b.value
    }
}

/// WebAuthn L3 §5.1 `RegistrationResponseJSON`: the result of `navigator.credentials.create()`.
public typealias RegistrationResponseJSON = PublicKeyCredentialJSON<AuthenticatorAttestationResponseJSON>

/// WebAuthn L3 §5.1 `AuthenticationResponseJSON`: the result of `navigator.credentials.get()`.
public typealias AuthenticationResponseJSON = PublicKeyCredentialJSON<AuthenticatorAssertionResponseJSON>

/// WebAuthn L3 §5.2.1 `AuthenticatorAttestationResponseJSON`.
///
/// `authenticatorData`, `publicKey` and `publicKeyAlgorithm` are conveniences for clients: a relying party
/// takes every stored value from `attestationObject`, never from these copies.
public struct AuthenticatorAttestationResponseJSON: AuthenticatorResponseJSON {
    public var clientDataJSON: String
    public var authenticatorData: String?
    public var transports: [AuthenticatorTransport]?
    public var publicKey: String?
    public var publicKeyAlgorithm: COSEAlgorithmIdentifier?
    public var attestationObject: String

    public init(
        clientDataJSON: String, attestationObject: String, authenticatorData: String? = nil,
        transports: [AuthenticatorTransport]? = nil, publicKey: String? = nil, publicKeyAlgorithm: COSEAlgorithmIdentifier? = nil
    ) {
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.authenticatorData = authenticatorData
        self.transports = transports
        self.publicKey = publicKey
        self.publicKeyAlgorithm = publicKeyAlgorithm
    }

    public init(json: JSONValue) throws(WireError) { try self.init(json: json, path: "") }

    public init(json: JSONValue, path: String) throws(WireError) {
        let r = try JSONObjectReader(json, path: path)
        clientDataJSON = try r.string("clientDataJSON")
        attestationObject = try r.string("attestationObject")
        authenticatorData = try r.optionalString("authenticatorData")
        transports = try r.optionalStrings("transports", as: AuthenticatorTransport.self)
        publicKey = try r.optionalString("publicKey")
        publicKeyAlgorithm = try r.optionalInt("publicKeyAlgorithm").map(COSEAlgorithmIdentifier.init(rawValue:))
    }

    public var json: JSONValue {
        var b = JSONObjectBuilder()
        b.set("clientDataJSON", clientDataJSON)
        b.set("authenticatorData", authenticatorData)
        b.set("transports", transports)
        b.set("publicKey", publicKey)
        b.set("publicKeyAlgorithm", publicKeyAlgorithm?.rawValue)
        b.set("attestationObject", attestationObject)
        return b.value
    }
}

/// WebAuthn L3 §5.2.2 `AuthenticatorAssertionResponseJSON`.
public struct AuthenticatorAssertionResponseJSON: AuthenticatorResponseJSON {
    public var clientDataJSON: String
    public var authenticatorData: String
    public var signature: String
    public var userHandle: String?
    public var attestationObject: String?

    public init(
        clientDataJSON: String, authenticatorData: String, signature: String, userHandle: String? = nil,
        attestationObject: String? = nil
    ) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
        self.attestationObject = attestationObject
    }

    public init(json: JSONValue) throws(WireError) { try self.init(json: json, path: "") }

    public init(json: JSONValue, path: String) throws(WireError) {
        let r = try JSONObjectReader(json, path: path)
        clientDataJSON = try r.string("clientDataJSON")
        authenticatorData = try r.string("authenticatorData")
        signature = try r.string("signature")
        let handle = try r.optionalString("userHandle")
        userHandle = handle?.isEmpty == true ? nil : handle
        attestationObject = try r.optionalString("attestationObject")
    }

    public var json: JSONValue {
        var b = JSONObjectBuilder()
        b.set("clientDataJSON", clientDataJSON)
        b.set("authenticatorData", authenticatorData)
        b.set("signature", signature)
        b.set("userHandle", userHandle)
        b.set("attestationObject", attestationObject)
        return b.value
    }
}
