import PasskeyWire

/// One client extension's input in options' `extensions`, read as a browser converts it (WebIDL), so every
/// authenticator behind the SDK accepts and refuses the same inputs.
enum ExtensionInput {
    /// The member `name` as an object: nil when `extensions` has no such member, `[:]` for `null` (WebIDL reads a null
    /// dictionary as an empty one, so the extension is still asked for), and ``PasskeyError/Code/invalidOptions`` for
    /// anything else that is not an object (a TypeError in a browser).
    static func object(_ extensions: JSONObject?, _ name: String) throws(PasskeyError) -> JSONObject? {
        guard let value = extensions?[name] else { return nil }
        if value.isNull { return [:] }
        guard let input = value.objectValue else {
            throw PasskeyError(.invalidOptions, stage: .options, "extensions.\(name) is not an object")
        }
        return input
    }

    /// A `boolean` member as WebIDL converts it (ECMAScript ToBoolean): false for `false`, `null`, 0 and `""`, true for
    /// every other value.
    static func boolean(_ value: JSONValue) -> Bool {
        switch value {
        case .bool(let flag): flag
        case .null: false
        case .number(let number): number != 0 && !number.isNaN
        case .string(let text): !text.isEmpty
        default: true
        }
    }
}
