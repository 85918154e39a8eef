// How JSONValue is written: compact, pretty or with sorted keys, by our own writer (no Foundation on the hot path).

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
