public import PasskeyWire

/// `DELETE /users/{id}/links`: how many unused links of the account were revoked.
public struct AccountLinksRevokedAnswer: JSONRepresentable, Hashable {
    public var revoked: Int

    public init(revoked: Int) { self.revoked = revoked }

    public init(json: JSONValue) throws(WireError) { revoked = try JSONObjectReader(json).int("revoked") }

    public var json: JSONValue { ["revoked": .number(Double(revoked))] }
}
