public import PasskeyWire

/// An account's passkeys (`GET /users/{id}/passkeys`, `GET /connect/passkeys`), with the RP ID and the account as its
/// passkeys carry it, so an SDK can tell the device's passkey manager which passkeys the account still has and its
/// current names (WebAuthn L3 §5.1.10 signals); and, when the app described the device, whether to offer adding one
/// there (`append`).
public struct PasskeyListAnswer: JSONRepresentable, Hashable {
    public var passkeys: [PasskeyEntry]
    /// Always sent by this server; servers before the signals sent neither this nor ``user``.
    public var rpId: String?
    public var user: PublicKeyCredentialUserEntityJSON?
    public var append: ConnectDecision?

    public init(passkeys: [PasskeyEntry], rpId: String?, user: PublicKeyCredentialUserEntityJSON?, append: ConnectDecision? = nil) {
        self.passkeys = passkeys
        self.rpId = rpId
        self.user = user
        self.append = append
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        passkeys = try reader.array("passkeys", of: PasskeyEntry.self)
        rpId = try reader.optionalString("rpId")
        user = try reader.optional("user", as: PublicKeyCredentialUserEntityJSON.self)
        append = try reader.optional("append", as: ConnectDecision.self)
    }

    public var json: JSONValue {
        var object: JSONObject = ["passkeys": .array(passkeys.map(\.json))]
        if let rpId { object["rpId"] = .string(rpId) }
        if let user { object["user"] = user.json }
        if let append { object["append"] = append.json }
        return .object(object)
    }
}

/// `DELETE /connect/passkeys/{credentialId}`: the passkeys left (the delete token is used up, and the screen shows the
/// list next).
public struct PasskeyDeleteAnswer: JSONRepresentable, Hashable {
    public var deleted: Bool
    public var list: PasskeyListAnswer

    public init(list: PasskeyListAnswer) {
        deleted = true
        self.list = list
    }

    public init(json: JSONValue) throws(WireError) {
        deleted = try JSONObjectReader(json).bool("deleted")
        list = try PasskeyListAnswer(json: json)
    }

    public var json: JSONValue {
        guard case .object(var object) = list.json else { return list.json }
        object["deleted"] = .bool(deleted)
        return .object(object)
    }
}

/// `POST /connect/append/verify`: the passkey added, as `/verify-registration` answers it (without `isAnonymous`: an
/// appended account is the app's user), with the account's list after the append (the append token is used up, and a
/// management screen shows both).
public struct AppendVerifyAnswer: JSONRepresentable, Hashable {
    public var account: VerifiedAccountFields
    public var passkey: PasskeyEntry
    public var list: PasskeyListAnswer

    public init(account: VerifiedAccountFields, passkey: PasskeyEntry, list: PasskeyListAnswer) {
        self.account = account
        self.passkey = passkey
        self.list = list
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        account = try VerifiedAccountFields(reader)
        passkey = try reader.required("passkey", as: PasskeyEntry.self)
        list = try PasskeyListAnswer(json: json)
    }

    public var json: JSONValue {
        guard case .object(var object) = list.json else { return list.json }
        account.write(to: &object, anonymity: false)
        object["passkey"] = passkey.json
        return .object(object)
    }
}
