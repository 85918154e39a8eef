public import PasskeyWire

/// `POST /dashboard/api/setup/options`: the invite's token and the new admin's name.
public struct AdminSetupRequest: JSONRepresentable, Hashable {
    public var token: String?
    public var name: String?

    public init(token: String?, name: String?) {
        self.token = token
        self.name = name
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        token = try reader.optionalString("token")
        name = try reader.optionalString("name")
    }

    public var json: JSONValue {
        var builder = JSONObjectBuilder()
        builder.set("token", token)
        builder.set("name", name)
        return builder.value
    }
}

/// A dashboard session opened (setup or sign-in); the session itself is in the answer's cookie.
public struct AdminSessionAnswer: JSONRepresentable, Hashable {
    public var signedIn: Bool
    public var admin: String

    public init(admin: String) {
        signedIn = true
        self.admin = admin
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        signedIn = try reader.bool("signedIn")
        admin = try reader.string("admin")
    }

    public var json: JSONValue { ["signedIn": .bool(signedIn), "admin": .string(admin)] }
}

/// A passkey check passed (`POST /dashboard/api/recheck/verify`).
public struct RecheckAnswer: JSONRepresentable, Hashable {
    public var verified: Bool

    public init() { verified = true }

    public init(json: JSONValue) throws(WireError) { verified = try JSONObjectReader(json).bool("verified") }

    public var json: JSONValue { ["verified": .bool(verified)] }
}

/// `POST /dashboard/api/logout`.
public struct SignedOutAnswer: JSONRepresentable, Hashable {
    public var signedOut: Bool

    public init() { signedOut = true }

    public init(json: JSONValue) throws(WireError) { signedOut = try JSONObjectReader(json).bool("signedOut") }

    public var json: JSONValue { ["signedOut": .bool(signedOut)] }
}

/// `PATCH /dashboard/api/users/{id}/passkeys/{credentialId}`: the name as stored.
public struct PasskeyRenamedAnswer: JSONRepresentable, Hashable {
    public var renamed: Bool
    public var name: String

    public init(name: String) {
        renamed = true
        self.name = name
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        renamed = try reader.bool("renamed")
        name = try reader.string("name")
    }

    public var json: JSONValue { ["renamed": .bool(renamed), "name": .string(name)] }
}
