import Foundation
public import PasskeyWire

extension JSONRepresentable {
    /// The JSON as Foundation objects (`[String: Any]` of `String`, `NSNumber`, `Bool`, arrays, dictionaries and
    /// `NSNull`), for code that builds request bodies with `JSONSerialization` as PasskeymeSDK's guides do:
    /// `["credential": credential.toDictionary(), "username": username]`. Members keep the WebAuthn JSON names and
    /// base64url strings. Codable code needs none of this: the wire types encode themselves.
    public func toDictionary() -> [String: Any] {
        json.foundationObject as? [String: Any] ?? [:]
    }
}

extension JSONValue {
    /// The value as a Foundation object of the kind `JSONSerialization` reads and writes; whole numbers as `Int`, so
    /// they are written back without a fraction.
    public var foundationObject: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let value): return value
        case .number(let value):
            if let whole = Int(exactly: value) { return whole }
            return value
        case .string(let value): return value
        case .array(let values): return values.map(\.foundationObject)
        case .object(let object):
            return Dictionary(object.members.map { ($0.name, $0.value.foundationObject) }, uniquingKeysWith: { _, last in last })
        }
    }
}
