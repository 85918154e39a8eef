// The strict, bounded parser behind ``JSONValue/parse(_:maximumDepth:)``: duplicate member names, invalid UTF-8,
// nesting past the depth limit and trailing data are refused with the byte offset.

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

    /// Objects up to this many members find a repeated name by scanning them; larger ones keep a set.
    static let linearNameScanLimit = 32

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < maximumDepth else { throw JSONParseError("nesting deeper than \(maximumDepth)", offset: position) }
        position += 1
        var members: [(name: String, value: JSONValue)] = []
        members.reserveCapacity(8)
        // Names seen, once an object is large enough that scanning `members` for each new name would be quadratic: a
        // hostile 32 MB object of a million names must cost linear time (the requests' objects stay under the limit).
        var names: Set<String>?
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
            let repeated: Bool
            if var seen = names {
                repeated = !seen.insert(name).inserted
                names = seen
            } else {
                repeated = members.contains(where: { $0.name == name })
                if !repeated, members.count + 1 == Self.linearNameScanLimit { names = Set(members.map(\.name) + [name]) }
            }
            if repeated { throw JSONParseError("member name given twice", offset: nameOffset, memberName: name) }
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
