import PasskeyWire

/// The members both verify answers start with: the account and the passkey a ceremony proved, and the signed proof
/// for the app's backend.
public struct VerifiedAccountFields: Hashable, Sendable {
    public var verified: Bool
    /// The account's name as the passkey carries it (`user.name`): an anonymous account's generated name too.
    public var username: String?
    /// This server's id of the account.
    public var userId: String
    public var isAnonymous: Bool
    /// Base64url.
    public var credentialId: String?
    /// An ES256 JWS a backend verifies with `/.well-known/jwks.json` or `POST /connect/verify` (docs/connect.md).
    public var signedPasskeyData: String?

    public init(username: String?, userId: String, isAnonymous: Bool, credentialId: String?, signedPasskeyData: String?) {
        verified = true
        self.username = username
        self.userId = userId
        self.isAnonymous = isAnonymous
        self.credentialId = credentialId
        self.signedPasskeyData = signedPasskeyData
    }

    /// Reads what servers of the seeds' shape answer: `verified` and `userId` are required; the rest may be missing
    /// (`isAnonymous` then follows from the username).
    init(_ reader: JSONObjectReader) throws(WireError) {
        verified = try reader.bool("verified")
        userId = try reader.string("userId")
        username = try reader.optionalString("username")
        isAnonymous = try reader.optionalBool("isAnonymous") ?? (username == nil)
        credentialId = try reader.optionalString("credentialId")
        signedPasskeyData = try reader.optionalString("signedPasskeyData")
    }

    /// `username` is written as `null` when there is none (the seed guide's shape); the rest only when present.
    /// `isAnonymous` only with `anonymity` (an append's answer never had it: an appended account is the app's user).
    func write(to object: inout JSONObject, anonymity: Bool = true) {
        object["verified"] = .bool(verified)
        object["username"] = username.map(JSONValue.string) ?? .null
        object["userId"] = .string(userId)
        if let credentialId { object["credentialId"] = .string(credentialId) }
        if anonymity { object["isAnonymous"] = .bool(isAnonymous) }
        if let signedPasskeyData { object["signedPasskeyData"] = .string(signedPasskeyData) }
    }
}
