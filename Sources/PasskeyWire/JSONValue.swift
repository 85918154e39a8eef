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

extension JSONValue {
    /// Parses one JSON document. A leading UTF-8 byte order mark is skipped (WebAuthn L3 §7.1 step 5
    /// decodes clientDataJSON with "UTF-8 decode", which removes a BOM). Invalid UTF-8 is rejected.
    public static func parse(_ bytes: [UInt8], maximumDepth: Int = 32) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in
            try parse(buffer, maximumDepth: maximumDepth)
        }
    }

    public static func parse(_ string: String, maximumDepth: Int = 32) throws(JSONParseError) -> JSONValue {
        try parse(Array(string.utf8), maximumDepth: maximumDepth)
    }

    public static func parse(_ buffer: UnsafeBufferPointer<UInt8>, maximumDepth: Int = 32) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(buffer: buffer, maximumDepth: maximumDepth)
        if buffer.count >= 3, buffer[0] == 0xef, buffer[1] == 0xbb, buffer[2] == 0xbf { parser.position = 3 }
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.position == buffer.count else { throw JSONParseError("unexpected data after the document", offset: parser.position) }
        return value
    }
}

private struct JSONParser {
    let buffer: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var position = 0

    init(buffer: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.buffer = buffer
        self.maximumDepth = maximumDepth
    }

    mutating func skipWhitespace() {
        while position < buffer.count {
            switch buffer[position] {
            case 0x20, 0x09, 0x0a, 0x0d: position += 1
            default: return
            }
        }
    }

    func peek() -> UInt8? { position < buffer.count ? buffer[position] : nil }

    mutating func expect(_ literal: StaticString) throws(JSONParseError) {
        let start = position
        let count = literal.utf8CodeUnitCount
        guard buffer.count - position >= count else { throw JSONParseError("truncated literal", offset: start) }
        let lit = literal.utf8Start
        for i in 0..<count where buffer[position + i] != lit[i] {
            throw JSONParseError("invalid literal", offset: start)
        }
        position += count
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard let c = peek() else { throw JSONParseError("unexpected end of input", offset: position) }
        switch c {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw JSONParseError("unexpected character", offset: position)
        }
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < maximumDepth else { throw JSONParseError("nesting deeper than \(maximumDepth)", offset: position) }
        position += 1
        var members: [(name: String, value: JSONValue)] = []
        members.reserveCapacity(8)
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            position += 1
            return .object(JSONObject(uncheckedMembers: members))
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw JSONParseError("expected a member name", offset: position) }
            let nameOffset = position
            let name = try parseString()
            if members.contains(where: { $0.name == name }) {
                throw JSONParseError("member name given twice", offset: nameOffset, memberName: name)
            }
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw JSONParseError("expected ':'", offset: position) }
            position += 1
            skipWhitespace()
            let value = try parseValue(depth: depth + 1)
            members.append((name, value))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(JSONObject(uncheckedMembers: members))
            default: throw JSONParseError("expected ',' or '}'", offset: position)
            }
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < maximumDepth else { throw JSONParseError("nesting deeper than \(maximumDepth)", offset: position) }
        position += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            position += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(items)
            default: throw JSONParseError("expected ',' or ']'", offset: position)
            }
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> Double {
        let start = position
        if peek() == UInt8(ascii: "-") { position += 1 }
        guard let first = peek(), first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else {
            throw JSONParseError("invalid number", offset: start)
        }
        if first == UInt8(ascii: "0") {
            position += 1
        } else {
            while let c = peek(), c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") { position += 1 }
        }
        if peek() == UInt8(ascii: ".") {
            position += 1
            let digitsStart = position
            while let c = peek(), c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") { position += 1 }
            guard position > digitsStart else { throw JSONParseError("invalid fraction", offset: start) }
        }
        if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            position += 1
            if let s = peek(), s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { position += 1 }
            let digitsStart = position
            while let c = peek(), c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") { position += 1 }
            guard position > digitsStart else { throw JSONParseError("invalid exponent", offset: start) }
        }
        guard position - start <= 64 else { throw JSONParseError("number too long", offset: start) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw JSONParseError("number out of range", offset: start) }
        return value
    }

    mutating func parseString() throws(JSONParseError) -> String {
        let start = position
        position += 1
        // Fast path: no escapes. WebAuthn JSON is almost always ASCII (base64url), which needs no UTF-8 validation.
        var scan = plainRunEnd(from: position)
        var asciiOnly = true
        while scan < buffer.count {
            let c = buffer[scan]
            if c == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: buffer[position..<scan])
                let s: String
                if asciiOnly {
                    s = String(decoding: slice, as: UTF8.self)
                } else {
                    guard let validated = validUTF8String(slice) else {
                        throw JSONParseError("string is not valid UTF-8", offset: start)
                    }
                    s = validated
                }
                position = scan + 1
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw JSONParseError("control character in string", offset: scan) }
            asciiOnly = false  // c >= 0x80
            scan = plainRunEnd(from: scan + 1)
        }
        var bytes: [UInt8] = Array(UnsafeBufferPointer(rebasing: buffer[position..<scan]))
        position = scan
        while true {
            guard let c = peek() else { throw JSONParseError("unterminated string", offset: start) }
            position += 1
            switch c {
            case UInt8(ascii: "\""):
                guard let s = bytes.withUnsafeBufferPointer(validUTF8String) else {
                    throw JSONParseError("string is not valid UTF-8", offset: start)
                }
                return s
            case UInt8(ascii: "\\"):
                guard let e = peek() else { throw JSONParseError("unterminated escape", offset: position) }
                position += 1
                switch e {
                case UInt8(ascii: "\""): bytes.append(0x22)
                case UInt8(ascii: "\\"): bytes.append(0x5c)
                case UInt8(ascii: "/"): bytes.append(0x2f)
                case UInt8(ascii: "b"): bytes.append(0x08)
                case UInt8(ascii: "f"): bytes.append(0x0c)
                case UInt8(ascii: "n"): bytes.append(0x0a)
                case UInt8(ascii: "r"): bytes.append(0x0d)
                case UInt8(ascii: "t"): bytes.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if (0xd800..<0xdc00).contains(scalar) {
                        guard peek() == UInt8(ascii: "\\") else { throw JSONParseError("lone surrogate", offset: position) }
                        position += 1
                        guard peek() == UInt8(ascii: "u") else { throw JSONParseError("lone surrogate", offset: position) }
                        position += 1
                        let low = try parseHex4()
                        guard (0xdc00..<0xe000).contains(low) else { throw JSONParseError("invalid surrogate pair", offset: position) }
                        scalar = 0x10000 + ((scalar - 0xd800) << 10) + (low - 0xdc00)
                    } else if (0xdc00..<0xe000).contains(scalar) {
                        throw JSONParseError("lone surrogate", offset: position)
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw JSONParseError("invalid code point", offset: position) }
                    bytes.append(contentsOf: Array(String(Character(u)).utf8))
                default:
                    throw JSONParseError("invalid escape", offset: position - 1)
                }
            default:
                if c < 0x20 { throw JSONParseError("control character in string", offset: position - 1) }
                bytes.append(c)
            }
        }
    }

    /// The index of the first byte at or after `start` that ends a plain run of string content: a quote, a backslash,
    /// a control character or a non-ASCII byte. Eight bytes at a time (SWAR), then byte by byte.
    func plainRunEnd(from start: Int) -> Int {
        var index = start
        let count = buffer.count
        guard let base = UnsafeRawPointer(buffer.baseAddress) else { return index }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while index + 8 <= count {
            let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5c)
            // A byte is zero (or below 0x20) when subtracting borrows into its high bit while the byte's own high bit is clear.
            let hasQuote = (quote &- ones) & ~quote & highs
            let hasBackslash = (backslash &- ones) & ~backslash & highs
            let hasControl = (word &- (ones &* 0x20)) & ~word & highs
            if (hasQuote | hasBackslash | hasControl | (word & highs)) != 0 { break }
            index += 8
        }
        while index < count {
            let c = buffer[index]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 || c >= 0x80 { return index }
            index += 1
        }
        return index
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard buffer.count - position >= 4 else { throw JSONParseError("truncated \\u escape", offset: position) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = buffer[position]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw JSONParseError("invalid \\u escape", offset: position)
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }
}

/// The string, if `bytes` are valid UTF-8. (`String(validating:as:)` would do, but needs iOS 18 / macOS 15.)
/// Decoding repairs invalid sequences with U+FFFD, so the bytes come back unchanged exactly when nothing was invalid.
func validUTF8String(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    let string = String(decoding: bytes, as: UTF8.self)
    return string.utf8.elementsEqual(bytes) ? string : nil
}

// MARK: - Serialisation

extension JSONValue {
    /// Compact JSON text. Object members keep their order; `/` is not escaped.
    public func serialized(sortedKeys: Bool = false) -> String {
        var out: [UInt8] = []
        write(to: &out, sortedKeys: sortedKeys, indent: nil, level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// Indented JSON text for people (two spaces per level).
    public func prettyPrinted(sortedKeys: Bool = false) -> String {
        var out: [UInt8] = []
        write(to: &out, sortedKeys: sortedKeys, indent: 2, level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    public var serializedBytes: [UInt8] {
        var out: [UInt8] = []
        write(to: &out, sortedKeys: false, indent: nil, level: 0)
        return out
    }

    private func newline(_ out: inout [UInt8], _ indent: Int?, _ level: Int) {
        guard let indent else { return }
        out.append(0x0a)
        out.append(contentsOf: repeatElement(0x20, count: indent * level))
    }

    private func write(to out: inout [UInt8], sortedKeys: Bool, indent: Int?, level: Int) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n):
            if n.rounded() == n, abs(n) < 1e15 {
                out.append(contentsOf: String(Int64(n)).utf8)
            } else {
                out.append(contentsOf: "\(n)".utf8)
            }
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent, level + 1)
                item.write(to: &out, sortedKeys: sortedKeys, indent: indent, level: level + 1)
            }
            if !items.isEmpty { newline(&out, indent, level) }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            let members = sortedKeys ? object.members.sorted { $0.name < $1.name } : object.members
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent, level + 1)
                JSONValue.writeString(member.name, to: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(0x20) }
                member.value.write(to: &out, sortedKeys: sortedKeys, indent: indent, level: level + 1)
            }
            if !members.isEmpty { newline(&out, indent, level) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for c in s.utf8 {
            switch c {
            case 0x22: out.append(0x5c); out.append(0x22)
            case 0x5c: out.append(0x5c); out.append(0x5c)
            case 0x0a: out.append(0x5c); out.append(UInt8(ascii: "n"))
            case 0x0d: out.append(0x5c); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(0x5c); out.append(UInt8(ascii: "t"))
            case 0..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hexDigits[Int(c >> 4)])
                out.append(hexDigits[Int(c & 0xf)])
            default: out.append(c)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
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
