public import PasskeyWire

/// `/.well-known/assetlinks.json`: a JSON array of statements (``AssetLinkStatement``).
public struct AssetLinks: JSONRepresentable, Hashable {
    public var statements: [AssetLinkStatement]

    public init(statements: [AssetLinkStatement]) { self.statements = statements }

    public init(json: JSONValue) throws(WireError) {
        guard case .array(let items) = json else { throw WireError(.fieldInvalid, field: nil, "expected an array, found \(json.typeName)") }
        var statements: [AssetLinkStatement] = []
        for (index, item) in items.enumerated() {
            do throws(WireError) { statements.append(try AssetLinkStatement(json: item)) } catch { throw error.within("[\(index)]") }
        }
        self.statements = statements
    }

    public var json: JSONValue { .array(statements.map(\.json)) }
}
