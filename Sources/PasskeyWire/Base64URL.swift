/// base64url (RFC 4648 §5) without padding, as WebAuthn Level 3 JSON uses for every binary value.
///
/// Table-driven and Foundation-free: this sits on the hot path of every ceremony.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xff, count: 256)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = UInt8(index) }
        return table
    }()

    /// Encodes bytes as base64url without padding.
    public static func encode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        // Contiguous storage (arrays, slices of them, Data) is read in place; anything else is copied once.
        if let encoded = bytes.withContiguousStorageIfAvailable({ encode(buffer: $0) }) { return encoded }
        return Array(bytes).withUnsafeBufferPointer { encode(buffer: $0) }
    }

    /// Encodes bytes as base64url without padding. (The overload callers with an array reach without generic dispatch:
    /// a generic function called across modules goes through its witness tables, per byte.)
    public static func encode(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer { encode(buffer: $0) }
    }

    /// Writes the characters straight into the string's storage: one allocation, no UTF-8 validation pass.
    static func encode(buffer input: UnsafeBufferPointer<UInt8>) -> String {
        let count = (input.count * 4 + 2) / 3
        guard count > 0 else { return "" }
        return String(unsafeUninitializedCapacity: count) { output in
            alphabet.withUnsafeBufferPointer { table in
                var index = 0
                var written = 0
                while index + 3 <= input.count {
                    let b0 = input[index], b1 = input[index + 1], b2 = input[index + 2]
                    output[written] = table[Int(b0 >> 2)]
                    output[written + 1] = table[Int(((b0 & 0x03) << 4) | (b1 >> 4))]
                    output[written + 2] = table[Int(((b1 & 0x0f) << 2) | (b2 >> 6))]
                    output[written + 3] = table[Int(b2 & 0x3f)]
                    index += 3
                    written += 4
                }
                switch input.count - index {
                case 1:
                    let b0 = input[index]
                    output[written] = table[Int(b0 >> 2)]
                    output[written + 1] = table[Int((b0 & 0x03) << 4)]
                    written += 2
                case 2:
                    let b0 = input[index], b1 = input[index + 1]
                    output[written] = table[Int(b0 >> 2)]
                    output[written + 1] = table[Int(((b0 & 0x03) << 4) | (b1 >> 4))]
                    output[written + 2] = table[Int((b1 & 0x0f) << 2)]
                    written += 3
                default:
                    break
                }
                return written
            }
        }
    }

    /// Decodes base64url. Returns `nil` for characters outside the URL-safe alphabet (so standard
    /// base64 `+` and `/` are refused), for an impossible length, and for non-zero trailing bits.
    /// Trailing `=` padding is tolerated (up to two characters, correctly placed), because some
    /// hand-written browser helpers add it; comparisons of challenges are done on the exact string elsewhere.
    public static func decode(_ string: String) -> [UInt8]? {
        var string = string
        return string.withUTF8 { decode(utf8: $0) }
    }

    /// Decodes base64url from UTF-8 bytes. See ``decode(_:)``.
    public static func decode(utf8 input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var count = input.count
        var padding = 0
        while count > 0, input[count - 1] == UInt8(ascii: "=") {
            count -= 1
            padding += 1
        }
        if padding > 0 {
            guard padding <= 2, input.count % 4 == 0 else { return nil }
        }
        if count % 4 == 1 { return nil }
        if padding > 0, (count + padding) % 4 != 0 || (4 - count % 4) % 4 != padding { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(count * 3 / 4)
        let table = decodeTable
        var index = 0
        while index + 4 <= count {
            let a = table[Int(input[index])], b = table[Int(input[index + 1])]
            let c = table[Int(input[index + 2])], d = table[Int(input[index + 3])]
            guard (a | b | c | d) & 0xc0 == 0 else { return nil }
            out.append((a << 2) | (b >> 4))
            out.append((b << 4) | (c >> 2))
            out.append((c << 6) | d)
            index += 4
        }
        switch count - index {
        case 2:
            let a = table[Int(input[index])], b = table[Int(input[index + 1])]
            guard (a | b) & 0xc0 == 0, b & 0x0f == 0 else { return nil }
            out.append((a << 2) | (b >> 4))
        case 3:
            let a = table[Int(input[index])], b = table[Int(input[index + 1])], c = table[Int(input[index + 2])]
            guard (a | b | c) & 0xc0 == 0, c & 0x03 == 0 else { return nil }
            out.append((a << 2) | (b >> 4))
            out.append((b << 4) | (c >> 2))
        default:
            break
        }
        return out
    }

    /// Standard base64 (RFC 4648 §4) with padding, for PEM bodies and SafetyNet nonces.
    public static func encodeStandard<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var s = Array(encode(bytes).utf8).map { c -> UInt8 in
            c == UInt8(ascii: "-") ? UInt8(ascii: "+") : (c == UInt8(ascii: "_") ? UInt8(ascii: "/") : c)
        }
        while s.count % 4 != 0 { s.append(UInt8(ascii: "=")) }
        return String(decoding: s, as: UTF8.self)
    }

    /// Decodes standard base64 (with or without padding, whitespace ignored).
    public static func decodeStandard(_ string: String) -> [UInt8]? {
        var mapped: [UInt8] = []
        mapped.reserveCapacity(string.utf8.count)
        for c in string.utf8 {
            switch c {
            case UInt8(ascii: "+"): mapped.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): mapped.append(UInt8(ascii: "_"))
            case UInt8(ascii: "-"), UInt8(ascii: "_"): return nil
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): continue
            default: mapped.append(c)
            }
        }
        return mapped.withUnsafeBufferPointer { decode(utf8: $0) }
    }
}
