/// A JSON value (RFC 8259), parsed by a strict, bounded parser of our own.
///
/// WebAuthn needs JSON in two places: the wire types and `clientDataJSON`. Parsing both with one small
/// parser keeps the hot path free of Foundation and lets errors say exactly what was wrong.
/// Object members keep their order; duplicate member names are rejected.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var numberValue: Double? { if case .number(let n) = self { return n }; return nil }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o }; return nil }
    public var isNull: Bool { if case .null = self { return true }; return false }

    /// The JSON type's name, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// Integer value when the number is integral and fits in `Int`.
    public var intValue: Int? {
        guard case .number(let n) = self, n.rounded() == n, abs(n) <= 9_007_199_254_740_992 else { return nil }
        return Int(n)
    }
}

/// A JSON object with members in document order.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var members: [(name: String, value: JSONValue)]

    public init() { members = [] }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        members = []
        for (k, v) in elements { self[k] = v }
    }

    init(uncheckedMembers: [(name: String, value: JSONValue)]) { members = uncheckedMembers }

    public subscript(name: String) -> JSONValue? {
        get {
            for member in members where member.name == name { return member.value }
            return nil
        }
        set {
            if let index = members.firstIndex(where: { $0.name == name }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((name, newValue))
            }
        }
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    public func makeIterator() -> IndexingIterator<[(name: String, value: JSONValue)]> { members.makeIterator() }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for member in members {
            hasher.combine(member.name)
            hasher.combine(member.value)
        }
    }
}

/// Why a JSON document could not be parsed.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, in fixed words that quote nothing from the input: safe to show to whoever sent it.
    public let reason: String
    public let offset: Int
    /// The member name given twice, for a duplicate: the input's own text, in ``description`` only.
    public let memberName: String?

    public init(_ reason: String, offset: Int, memberName: String? = nil) {
        self.reason = reason
        self.offset = offset
        self.memberName = memberName
    }

    public var description: String { "invalid JSON at byte \(offset): \(reason)\(memberName.map { " \"\($0)\"" } ?? "")" }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByNilLiteral, ExpressibleByDictionaryLiteral
{
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject()
        for (name, value) in elements { object[name] = value }
        self = .object(object)
    }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
}
