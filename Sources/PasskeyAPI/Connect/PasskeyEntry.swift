public import PasskeyWire

/// A passkey as its owner and the app's backend see it in a list.
public struct PasskeyEntry: JSONRepresentable, Hashable {
    /// The credential ID, base64url.
    public var id: String
    /// The name given to it, else its provider's, else "Passkey".
    public var name: String
    /// The authenticator's model or passkey manager, by AAGUID, when known.
    public var provider: String?
    public var aaguid: String
    /// ISO 8601.
    public var createdAt: String
    public var lastUsedAt: String?
    /// Backed up (the BS flag).
    public var synced: Bool
    public var backupEligible: Bool
    public var deviceBound: Bool
    public var transports: [String]
    /// The COSE algorithm.
    public var algorithm: Int
    /// The model's icon from the FIDO metadata (a `data:` URL), when the server has one; absent otherwise.
    public var icon: String?
    /// Present when the FIDO Metadata Service reports the passkey's model compromised.
    public var compromise: AuthenticatorCompromiseJSON?

    public init(
        id: String, name: String, provider: String?, aaguid: String, createdAt: String, lastUsedAt: String?, synced: Bool,
        backupEligible: Bool, deviceBound: Bool, transports: [String], algorithm: Int, icon: String? = nil,
        compromise: AuthenticatorCompromiseJSON? = nil
    ) {
        self.icon = icon
        self.compromise = compromise
        self.id = id
        self.name = name
        self.provider = provider
        self.aaguid = aaguid
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.synced = synced
        self.backupEligible = backupEligible
        self.deviceBound = deviceBound
        self.transports = transports
        self.algorithm = algorithm
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        id = try reader.string("id")
        name = try reader.string("name")
        provider = try reader.optionalString("provider")
        aaguid = try reader.string("aaguid")
        createdAt = try reader.string("createdAt")
        lastUsedAt = try reader.optionalString("lastUsedAt")
        synced = try reader.bool("synced")
        backupEligible = try reader.bool("backupEligible")
        deviceBound = try reader.bool("deviceBound")
        transports = try reader.strings("transports")
        algorithm = try reader.int("algorithm")
        icon = try reader.optionalString("icon")
        compromise = try reader.optional("compromise", as: AuthenticatorCompromiseJSON.self)
    }

    public var json: JSONValue {
        var object: JSONObject = [
            "id": .string(id), "name": .string(name), "provider": provider.map(JSONValue.string) ?? .null, "aaguid": .string(aaguid),
            "createdAt": .string(createdAt), "lastUsedAt": lastUsedAt.map(JSONValue.string) ?? .null, "synced": .bool(synced),
            "backupEligible": .bool(backupEligible), "deviceBound": .bool(deviceBound), "transports": .array(transports.map(JSONValue.string)),
            "algorithm": .number(Double(algorithm)),
        ]
        // Absent rather than null: answers of servers without metadata stay as they were.
        if let icon { object["icon"] = .string(icon) }
        if let compromise { object["compromise"] = compromise.json }
        return .object(object)
    }
}
