/// A decoded CBOR data item (RFC 8949).
///
/// Maps keep the order in which their entries appeared on the wire; equality of two maps is order-sensitive,
/// which is what the strict decoder needs for duplicate-key detection and what tests need to compare encodings.
public enum CBORValue: Sendable, Hashable {
    /// Major type 0.
    case unsigned(UInt64)
    /// Major type 1: the value is `-1 - n`.
    case negative(UInt64)
    /// Major type 2.
    case bytes([UInt8])
    /// Major type 3 (always valid UTF-8).
    case text(String)
    /// Major type 4.
    case array([CBORValue])
    /// Major type 5, entries in wire order, keys unique.
    case map(CBORMap)
    /// Major type 6.
    indirect case tagged(UInt64, CBORValue)
    /// Major type 7: `false`, `true`.
    case bool(Bool)
    /// Major type 7: `null`.
    case null
    /// Major type 7: `undefined`.
    case undefined
    /// Major type 7: other simple values.
    case simple(UInt8)
    /// Major type 7: half, single and double precision floats.
    case float(Double)

    /// An integer key or value as the spec writes it (`-7` for ES256, `3` for the COSE `alg` label).
    public static func int(_ value: Int64) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-(value + 1)))
    }

    /// The value as a signed 64-bit integer, when it is an integer that fits.
    public var intValue: Int64? {
        switch self {
        case .unsigned(let n): return n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): return n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: return nil
        }
    }

    public var bytesValue: [UInt8]? {
        if case .bytes(let b) = self { return b }
        return nil
    }

    public var textValue: String? {
        if case .text(let t) = self { return t }
        return nil
    }

    public var arrayValue: [CBORValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var mapValue: CBORMap? {
        if case .map(let m) = self { return m }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// A short name of the item's kind for error messages ("byte string", "map", ...).
    public var kindName: String {
        switch self {
        case .unsigned, .negative: return "integer"
        case .bytes: return "byte string"
        case .text: return "text string"
        case .array: return "array"
        case .map: return "map"
        case .tagged: return "tagged item"
        case .bool: return "boolean"
        case .null: return "null"
        case .undefined: return "undefined"
        case .simple: return "simple value"
        case .float: return "float"
        }
    }
}

/// A CBOR map: an ordered list of entries with unique keys.
public struct CBORMap: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public struct Entry: Sendable, Hashable {
        public var key: CBORValue
        public var value: CBORValue
        public init(key: CBORValue, value: CBORValue) {
            self.key = key
            self.value = value
        }
    }

    public private(set) var entries: [Entry]

    public init() { entries = [] }

    /// Builds a map from entries; a later duplicate key replaces the earlier value (builders only; the decoder rejects duplicates).
    public init(_ pairs: [(CBORValue, CBORValue)]) {
        entries = []
        for (k, v) in pairs { self[k] = v }
    }

    public init(dictionaryLiteral elements: (CBORValue, CBORValue)...) {
        self.init(elements)
    }

    init(uncheckedEntries: [Entry]) { entries = uncheckedEntries }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    public subscript(key: CBORValue) -> CBORValue? {
        get {
            for entry in entries where entry.key == key { return entry.value }
            return nil
        }
        set {
            if let index = entries.firstIndex(where: { $0.key == key }) {
                if let newValue { entries[index].value = newValue } else { entries.remove(at: index) }
            } else if let newValue {
                entries.append(Entry(key: key, value: newValue))
            }
        }
    }

    public subscript(text key: String) -> CBORValue? { self[.text(key)] }
    public subscript(int key: Int64) -> CBORValue? { self[.int(key)] }

    public func makeIterator() -> IndexingIterator<[Entry]> { entries.makeIterator() }
}

extension CBORValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
