public import PasskeyWire

extension ContactKind {
    /// Stored as one text: the raw values joined by commas, nil for none.
    public static func encode(_ kinds: [ContactKind]) -> String? {
        kinds.isEmpty ? nil : kinds.map(\.rawValue).joined(separator: ",")
    }

    public static func decode(_ text: String?) -> [ContactKind] {
        (text ?? "").split(separator: ",").map { ContactKind(rawValue: String($0)) }
    }
}
