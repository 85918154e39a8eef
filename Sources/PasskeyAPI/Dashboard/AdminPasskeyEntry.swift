public import PasskeyWire

/// A passkey as the dashboard's user page shows it.
public struct AdminPasskeyEntry: JSONRepresentable, Hashable {
    /// The full credential ID, base64url.
    public var id: String
    public var name: String?
    public var provider: String?
    public var aaguid: String
    /// Backup eligible.
    public var synced: Bool
    public var backedUp: Bool
    public var attestationFormat: String
    /// The COSE algorithm's name (`ES256`).
    public var algorithm: String
    public var transports: [String]
    public var signCount: Int
    /// ISO 8601.
    public var createdAt: String?
    public var lastUsedAt: String?
    /// The model's icon from the FIDO metadata (a `data:` URL); absent when there is none.
    public var icon: String?
    /// Present when the FIDO Metadata Service reports the passkey's model compromised.
    public var compromise: AuthenticatorCompromiseJSON?

    public init(
        id: String, name: String?, provider: String?, aaguid: String, synced: Bool, backedUp: Bool, attestationFormat: String, algorithm: String,
        transports: [String], signCount: Int, createdAt: String?, lastUsedAt: String?, icon: String? = nil,
        compromise: AuthenticatorCompromiseJSON? = nil
    ) {
        self.icon = icon
        self.compromise = compromise
        self.id = id
        self.name = name
        self.provider = provider
        self.aaguid = aaguid
        self.synced = synced
        self.backedUp = backedUp
        self.attestationFormat = attestationFormat
        self.algorithm = algorithm
        self.transports = transports
        self.signCount = signCount
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        id = try reader.string("id")
        name = try reader.optionalString("name")
        provider = try reader.optionalString("provider")
        aaguid = try reader.string("aaguid")
        synced = try reader.bool("synced")
        backedUp = try reader.bool("backedUp")
        attestationFormat = try reader.string("attestationFormat")
        algorithm = try reader.string("algorithm")
        transports = try reader.strings("transports")
        signCount = try reader.int("signCount")
        createdAt = try reader.optionalString("createdAt")
        lastUsedAt = try reader.optionalString("lastUsedAt")
        icon = try reader.optionalString("icon")
        compromise = try reader.optional("compromise", as: AuthenticatorCompromiseJSON.self)
    }

    public var json: JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        var object: JSONObject = [
            "id": .string(id), "name": text(name), "provider": text(provider), "aaguid": .string(aaguid), "synced": .bool(synced),
            "backedUp": .bool(backedUp), "attestationFormat": .string(attestationFormat), "algorithm": .string(algorithm),
            "transports": .array(transports.map(JSONValue.string)), "signCount": .number(Double(signCount)), "createdAt": text(createdAt),
            "lastUsedAt": text(lastUsedAt),
        ]
        if let icon { object["icon"] = .string(icon) }
        if let compromise { object["compromise"] = compromise.json }
        return .object(object)
    }
}
