/// WebAuthn L3 §5.4.2 `PublicKeyCredentialRpEntity`.
public struct PublicKeyCredentialRpEntity: JSONRepresentable, Hashable {
    public var id: String?
    public var name: String

    public init(id: String?, name: String) {
        self.id = id
        self.name = name
    }

    public init(json: JSONValue) throws(WireError) {
        let r = try JSONObjectReader(json, path: "rp")
        id = try r.optionalString("id")
        name = try r.string("name")
    }

    public var json: JSONValue {
        var b = JSONObjectBuilder()
        b.set("id", id)
        b.set("name", name)
        return b.value
    }
}

/// WebAuthn L3 §5.4.3 `PublicKeyCredentialUserEntityJSON`. `id` is the user handle (base64url): random, never PII.
public struct PublicKeyCredentialUserEntityJSON: JSONRepresentable, Hashable {
    public var id: String
    public var name: String
    public var displayName: String

    public init(id: String, name: String, displayName: String) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }

    public init(json: JSONValue) throws(WireError) {
        let r = try JSONObjectReader(json, path: "user")
        id = try r.string("id")
        name = try r.string("name")
        displayName = try r.optionalString("displayName") ?? ""
    }

    public var json: JSONValue {
        var b = JSONObjectBuilder()
        b.set("id", id)
        b.set("name", name)
        b.set("displayName", displayName)
        return b.value
    }
}

/// WebAuthn L3 §5.3 `PublicKeyCredentialParameters`.
public struct PublicKeyCredentialParameters: JSONRepresentable, Hashable {
    public var type: PublicKeyCredentialType
    public var alg: COSEAlgorithmIdentifier

    public init(type: PublicKeyCredentialType = .publicKey, alg: COSEAlgorithmIdentifier) {
        self.type = type
        self.alg = alg
    }

    public init(json: JSONValue) throws(WireError) {
        let r = try JSONObjectReader(json, path: "pubKeyCredParams[]")
        type = PublicKeyCredentialType(rawValue: try r.string("type"))
        alg = COSEAlgorithmIdentifier(rawValue: try r.int("alg"))
    }

    public var json: JSONValue {
        var b = JSONObjectBuilder()
        b.set("type", type)
        b.set("alg", alg.rawValue)
        return b.value
    }
}

/// WebAuthn L3 §5.8.3 `PublicKeyCredentialDescriptorJSON`.
public struct PublicKeyCredentialDescriptorJSON: JSONRepresentable, Hashable {
    public var id: String
    public var type: PublicKeyCredentialType
    public var transports: [AuthenticatorTransport]?

    public init(id: String, type: PublicKeyCredentialType = .publicKey, transports: [AuthenticatorTransport]? = nil) {
        self.id = id
        self.type = type
        self.transports = transports
    }

    public init(json: JSONValue) throws(WireError) {
        let r = try JSONObjectReader(json, path: "credentials[]")
        id = try r.string("id")
        type = PublicKeyCredentialType(rawValue: try r.string("type"))
        transports = try r.optionalStrings("transports", as: AuthenticatorTransport.self)
    }

    public var json: JSONValue {
        var b = JSONObjectBuilder()
        b.set("id", id)
        b.set("type", type)
        b.set("transports", transports)
        return b.value
    }
}

/// WebAuthn L3 §5.4.4 `AuthenticatorSelectionCriteria`.
public struct AuthenticatorSelectionCriteria: JSONRepresentable, Hashable {
    public var authenticatorAttachment: AuthenticatorAttachment?
    public var residentKey: ResidentKeyRequirement?
    public var requireResidentKey: Bool?
    public var userVerification: UserVerificationRequirement?

    public init(
        authenticatorAttachment: AuthenticatorAttachment? = nil, residentKey: ResidentKeyRequirement? = nil,
        requireResidentKey: Bool? = nil, userVerification: UserVerificationRequirement? = nil
    ) {
        self.authenticatorAttachment = authenticatorAttachment
        self.residentKey = residentKey
        self.requireResidentKey = requireResidentKey
        self.userVerification = userVerification
    }

    public init(json: JSONValue) throws(WireError) {
        let r = try JSONObjectReader(json, path: "authenticatorSelection")
        authenticatorAttachment = try r.optionalString("authenticatorAttachment").map(AuthenticatorAttachment.init(rawValue:))
        residentKey = try r.optionalString("residentKey").map(ResidentKeyRequirement.init(rawValue:))
        requireResidentKey = try r.optionalBool("requireResidentKey")
        userVerification = try r.optionalString("userVerification").map(UserVerificationRequirement.init(rawValue:))
    }

    public var json: JSONValue {
        var b = JSONObjectBuilder()
        b.set("authenticatorAttachment", authenticatorAttachment)
        b.set("residentKey", residentKey)
        b.set("requireResidentKey", requireResidentKey)
        b.set("userVerification", userVerification)
        return b.value
    }
}

/// WebAuthn L3 §5.4 `PublicKeyCredentialCreationOptionsJSON`: what `PublicKeyCredential.parseCreationOptionsFromJSON()` takes.
public struct PublicKeyCredentialCreationOptionsJSON: JSONRepresentable, Hashable {
    public var rp: PublicKeyCredentialRpEntity
    public var user: PublicKeyCredentialUserEntityJSON
    public var challenge: String
    public var pubKeyCredParams: [PublicKeyCredentialParameters]
    public var timeout: Int?
    public var excludeCredentials: [PublicKeyCredentialDescriptorJSON]?
    public var authenticatorSelection: AuthenticatorSelectionCriteria?
    public var hints: [PublicKeyCredentialHint]?
    public var attestation: AttestationConveyancePreference?
    public var attestationFormats: [AttestationFormat]?
    public var extensions: JSONObject?

    public init(
        rp: PublicKeyCredentialRpEntity, user: PublicKeyCredentialUserEntityJSON, challenge: String,
        pubKeyCredParams: [PublicKeyCredentialParameters], timeout: Int? = nil,
        excludeCredentials: [PublicKeyCredentialDescriptorJSON]? = nil,
        authenticatorSelection: AuthenticatorSelectionCriteria? = nil, hints: [PublicKeyCredentialHint]? = nil,
        attestation: AttestationConveyancePreference? = nil, attestationFormats: [AttestationFormat]? = nil,
        extensions: JSONObject? = nil
    ) {
        self.rp = rp
        self.user = user
        self.challenge = challenge
        self.pubKeyCredParams = pubKeyCredParams
        self.timeout = timeout
        self.excludeCredentials = excludeCredentials
        self.authenticatorSelection = authenticatorSelection
        self.hints = hints
        self.attestation = attestation
        self.attestationFormats = attestationFormats
        self.extensions = extensions
    }

    public init(json: JSONValue) throws(WireError) {
        let r = try JSONObjectReader(json)
        rp = try PublicKeyCredentialRpEntity(json: try r.required("rp"))
        user = try PublicKeyCredentialUserEntityJSON(json: try r.required("user"))
        challenge = try r.string("challenge")
        pubKeyCredParams = try r.optionalArray("pubKeyCredParams") { (v, _) throws(WireError) in
            try PublicKeyCredentialParameters(json: v)
        } ?? []
        timeout = try r.optionalInt("timeout")
        excludeCredentials = try r.optionalArray("excludeCredentials") { (v, _) throws(WireError) in
            try PublicKeyCredentialDescriptorJSON(json: v)
        }
        authenticatorSelection = try r.value("authenticatorSelection").map { (v) throws(WireError) in
            try AuthenticatorSelectionCriteria(json: v)
        }
        hints = try r.optionalStrings("hints", as: PublicKeyCredentialHint.self)
        attestation = try r.optionalString("attestation").map(AttestationConveyancePreference.init(rawValue:))
        attestationFormats = try r.optionalStrings("attestationFormats", as: AttestationFormat.self)
        extensions = try r.optionalObject("extensions")
    }

    public var json: JSONValue {
        var b = JSONObjectBuilder()
        b.set("rp", rp)
        b.set("user", user)
        b.set("challenge", challenge)
        b.set("pubKeyCredParams", pubKeyCredParams)
        b.set("timeout", timeout)
        b.set("excludeCredentials", excludeCredentials)
        b.set("authenticatorSelection", authenticatorSelection)
        b.set("hints", hints)
        b.set("attestation", attestation)
        b.set("attestationFormats", attestationFormats)
        b.set("extensions", extensions.map(JSONValue.object))
        return b.value
    }
}

/// WebAuthn L3 §5.5 `PublicKeyCredentialRequestOptionsJSON`: what `PublicKeyCredential.parseRequestOptionsFromJSON()` takes.
public struct PublicKeyCredentialRequestOptionsJSON: JSONRepresentable, Hashable {
    public var challenge: String
    public var timeout: Int?
    public var rpId: String?
    public var allowCredentials: [PublicKeyCredentialDescriptorJSON]?
    public var userVerification: UserVerificationRequirement?
    public var hints: [PublicKeyCredentialHint]?
    public var extensions: JSONObject?

    public init(
        challenge: String, timeout: Int? = nil, rpId: String? = nil,
        allowCredentials: [PublicKeyCredentialDescriptorJSON]? = nil, userVerification: UserVerificationRequirement? = nil,
        hints: [PublicKeyCredentialHint]? = nil, extensions: JSONObject? = nil
    ) {
        self.challenge = challenge
        self.timeout = timeout
        self.rpId = rpId
        self.allowCredentials = allowCredentials
        self.userVerification = userVerification
        self.hints = hints
        self.extensions = extensions
    }

    public init(json: JSONValue) throws(WireError) {
        let r = try JSONObjectReader(json)
        challenge = try r.string("challenge")
        timeout = try r.optionalInt("timeout")
        rpId = try r.optionalString("rpId")
        allowCredentials = try r.optionalArray("allowCredentials") { (v, _) throws(WireError) in
            try PublicKeyCredentialDescriptorJSON(json: v)
        }
        userVerification = try r.optionalString("userVerification").map(UserVerificationRequirement.init(rawValue:))
        hints = try r.optionalStrings("hints", as: PublicKeyCredentialHint.self)
        extensions = try r.optionalObject("extensions")
    }

    public var json: JSONValue {
        var b = JSONObjectBuilder()
        b.set("challenge", challenge)
        b.set("timeout", timeout)
        b.set("rpId", rpId)
        b.set("allowCredentials", allowCredentials)
        b.set("userVerification", userVerification)
        b.set("hints", hints)
        b.set("extensions", extensions.map(JSONValue.object))
        return b.value
    }
}
