public import PasskeyWire

/// An account as the dashboard lists it.
public struct UserSummary: JSONRepresentable, Hashable {
    public var id: String
    public var username: String
    public var displayName: String
    public var isAnonymous: Bool
    /// ISO 8601.
    public var createdAt: String?
    public var lastSignInAt: String?
    public var disabled: Bool
    public var disabledAt: String?
    public var passkeyCount: Int

    public init(
        id: String, username: String, displayName: String, isAnonymous: Bool, createdAt: String?, lastSignInAt: String?, disabled: Bool,
        disabledAt: String?, passkeyCount: Int
    ) {
        self.id = id
        self.username = username
        self.displayName = displayName
        self.isAnonymous = isAnonymous
        self.createdAt = createdAt
        self.lastSignInAt = lastSignInAt
        self.disabled = disabled
        self.disabledAt = disabledAt
        self.passkeyCount = passkeyCount
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        id = try reader.string("id")
        username = try reader.string("username")
        displayName = try reader.string("displayName")
        isAnonymous = try reader.bool("isAnonymous")
        createdAt = try reader.optionalString("createdAt")
        lastSignInAt = try reader.optionalString("lastSignInAt")
        disabled = try reader.bool("disabled")
        disabledAt = try reader.optionalString("disabledAt")
        passkeyCount = try reader.int("passkeyCount")
    }

    public var json: JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        return [
            "id": .string(id), "username": .string(username), "displayName": .string(displayName), "isAnonymous": .bool(isAnonymous),
            "createdAt": text(createdAt), "lastSignInAt": text(lastSignInAt), "disabled": .bool(disabled), "disabledAt": text(disabledAt),
            "passkeyCount": .number(Double(passkeyCount)),
        ]
    }
}

/// `GET /dashboard/api/users?search=&page=`.
public struct UserListAnswer: JSONRepresentable, Hashable {
    public var users: [UserSummary]
    public var page: Int
    public var hasMore: Bool

    public init(users: [UserSummary], page: Int, hasMore: Bool) {
        self.users = users
        self.page = page
        self.hasMore = hasMore
    }

    public init(json: JSONValue) throws(WireError) {
        let reader = try JSONObjectReader(json)
        users = try reader.array("users", of: UserSummary.self)
        page = try reader.int("page")
        hasMore = try reader.bool("hasMore")
    }

    public var json: JSONValue { ["users": .array(users.map(\.json)), "page": .number(Double(page)), "hasMore": .bool(hasMore)] }
}

/// `GET /dashboard/api/users/{id}`: the account and its passkeys, each with its full credential ID (admins act on it;
/// events never hold it).
public struct UserDetailAnswer: JSONRepresentable, Hashable {
    public var user: UserSummary
    public var passkeys: [AdminPasskeyEntry]

    public init(user: UserSummary, passkeys: [AdminPasskeyEntry]) {
        self.user = user
        self.passkeys = passkeys
    }

    public init(json: JSONValue) throws(WireError) {
        user = try UserSummary(json: json)
        passkeys = try JSONObjectReader(json).array("passkeys", of: AdminPasskeyEntry.self)
    }

    public var json: JSONValue {
        guard case .object(var object) = user.json else { return user.json }
        object["passkeys"] = .array(passkeys.map(\.json))
        return .object(object)
    }
}
