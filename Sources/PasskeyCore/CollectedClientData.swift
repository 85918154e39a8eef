public import PasskeyWire

/// The client data a browser or platform signs over (WebAuthn L3 §5.8.1), parsed from the exact `clientDataJSON` bytes.
///
/// Unknown members are tolerated (the spec lets clients add them; the L3 test vectors do), a leading UTF-8 BOM is removed,
/// invalid UTF-8 is rejected. Hash ``bytes`` — the bytes received — never a re-serialisation.
///
/// - SeeAlso: [WebAuthn L3 §5.8.1 Client Data](https://www.w3.org/TR/webauthn-3/#dictdef-collectedclientdata)
public struct CollectedClientData: Sendable, Hashable {
    /// The ceremony the client data belongs to.
    public struct CeremonyType: OpenStringEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let create: Self = "webauthn.create"
        public static let get: Self = "webauthn.get"
    }

    /// `tokenBinding.status` (WebAuthn Level 2; removed from Level 3 but still sent by old clients).
    public struct TokenBindingStatus: OpenStringEnumeration {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let present: Self = "present"
        public static let supported: Self = "supported"
    }

    /// The bytes received, hashed for signatures.
    public let bytes: [UInt8]
    public let type: CeremonyType
    /// The challenge exactly as the client wrote it (base64url of the challenge bytes).
    public let challenge: String
    public let origin: String
    /// `true` when the ceremony ran in a cross-origin iframe.
    public let crossOrigin: Bool?
    /// The top-level origin, present only for cross-origin iframes.
    public let topOrigin: String?
    public let tokenBindingStatus: TokenBindingStatus?
    /// Every member, for diagnostics and tools.
    public let members: JSONObject

    /// Parses client data.
    /// - Throws: `client_data_malformed` when the bytes are not UTF-8 JSON or a required member is missing or mistyped.
    public init(bytes: [UInt8]) throws(WebAuthnError) {
        self.bytes = bytes
        let value: JSONValue
        do { value = try JSONValue.parse(bytes, maximumDepth: 8) } catch {
            throw WebAuthnError(.clientDataMalformed, "clientDataJSON is not UTF-8 JSON: \(error.description)")
        }
        guard case .object(let object) = value else {
            throw WebAuthnError(.clientDataMalformed, "clientDataJSON must be a JSON object", received: value.typeName)
        }
        members = object
        func string(_ name: String) throws(WebAuthnError) -> String {
            guard let v = object[name] else {
                throw WebAuthnError(.clientDataMalformed, "clientDataJSON has no \"\(name)\"")
            }
            guard case .string(let s) = v else {
                throw WebAuthnError(.clientDataMalformed, "clientDataJSON \"\(name)\" must be a string", received: v.typeName)
            }
            return s
        }
        type = CeremonyType(rawValue: try string("type"))
        challenge = try string("challenge")
        origin = try string("origin")
        switch object["crossOrigin"] {
        case nil, .null?: crossOrigin = nil
        case .bool(let b)?: crossOrigin = b
        case let other?:
            throw WebAuthnError(.clientDataMalformed, "clientDataJSON \"crossOrigin\" must be a boolean", received: other.typeName)
        }
        switch object["topOrigin"] {
        case nil, .null?: topOrigin = nil
        case .string(let s)?: topOrigin = s
        case let other?:
            throw WebAuthnError(.clientDataMalformed, "clientDataJSON \"topOrigin\" must be a string", received: other.typeName)
        }
        switch object["tokenBinding"] {
        case nil, .null?: tokenBindingStatus = nil
        case .object(let tb)?:
            guard case .string(let status)? = tb["status"] else {
                throw WebAuthnError(.tokenBindingInvalid, "clientDataJSON tokenBinding has no string \"status\"")
            }
            tokenBindingStatus = TokenBindingStatus(rawValue: status)
        case let other?:
            throw WebAuthnError(.tokenBindingInvalid, "clientDataJSON \"tokenBinding\" must be an object", received: other.typeName)
        }
    }
}
