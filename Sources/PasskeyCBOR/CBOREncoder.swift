/// Encodes CBOR items with definite lengths and the shortest argument encoding.
///
/// With `canonical: true` (the default) map keys are sorted as CTAP2 canonical CBOR requires
/// (shorter encoded key first, then bytewise), which is what authenticators emit.
public struct CBOREncoder: Sendable {
    public var canonical: Bool

    public init(canonical: Bool = true) { self.canonical = canonical }

    public func encode(_ value: CBORValue) -> [UInt8] {
        var out: [UInt8] = []
        append(value, to: &out)
        return out
    }

    func append(_ value: CBORValue, to out: inout [UInt8]) {
        switch value {
        case .unsigned(let n): appendHead(0, n, to: &out)
        case .negative(let n): appendHead(1, n, to: &out)
        case .bytes(let b):
            appendHead(2, UInt64(b.count), to: &out)
            out.append(contentsOf: b)
        case .text(let t):
            let utf8 = Array(t.utf8)
            appendHead(3, UInt64(utf8.count), to: &out)
            out.append(contentsOf: utf8)
        case .array(let items):
            appendHead(4, UInt64(items.count), to: &out)
            for item in items { append(item, to: &out) }
        case .map(let map):
            appendHead(5, UInt64(map.count), to: &out)
            var encoded = map.entries.map { (key: encode($0.key), value: encode($0.value)) }
            if canonical {
                encoded.sort { a, b in
                    a.key.count != b.key.count ? a.key.count < b.key.count : a.key.lexicographicallyPrecedes(b.key)
                }
            }
            for entry in encoded {
                out.append(contentsOf: entry.key)
                out.append(contentsOf: entry.value)
            }
        case .tagged(let tag, let inner):
            appendHead(6, tag, to: &out)
            append(inner, to: &out)
        case .bool(let b): out.append(b ? 0xf5 : 0xf4)
        case .null: out.append(0xf6)
        case .undefined: out.append(0xf7)
        case .simple(let s):
            if s < 24 { out.append(0xe0 | s) } else { out.append(0xf8); out.append(s) }
        case .float(let d):
            out.append(0xfb)
            let bits = d.bitPattern
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        }
    }

    func appendHead(_ major: UInt8, _ argument: UInt64, to out: inout [UInt8]) {
        let m = major << 5
        switch argument {
        case 0..<24: out.append(m | UInt8(argument))
        case 24...0xff: out.append(m | 24); out.append(UInt8(argument))
        case 0x100...0xffff:
            out.append(m | 25)
            out.append(UInt8(truncatingIfNeeded: argument >> 8)); out.append(UInt8(truncatingIfNeeded: argument))
        case 0x10000...0xffff_ffff:
            out.append(m | 26)
            for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: argument >> UInt64(shift))) }
        default:
            out.append(m | 27)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: argument >> UInt64(shift))) }
        }
    }
}
