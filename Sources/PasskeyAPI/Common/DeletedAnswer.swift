public import PasskeyWire

/// What a `DELETE` answers when it removed what it named: `{"deleted": true}`.
public struct DeletedAnswer: JSONRepresentable, Hashable {
    public var deleted: Bool

    public init(deleted: Bool = true) { self.deleted = deleted }

    public init(json: JSONValue) throws(WireError) { deleted = try JSONObjectReader(json).bool("deleted") }

    public var json: JSONValue { ["deleted": .bool(deleted)] }
}
