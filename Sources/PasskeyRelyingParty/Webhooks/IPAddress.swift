/// An IPv4 or IPv6 address, as bytes: what a webhook receiver's host is checked as, whichever way it was written.
///
/// Text is read two ways. ``init(_:)`` is strict, the one spelling an address should have in a URL (dotted decimal;
/// RFC 4291 hexadecimal groups with at most one `::`, an IPv4 tail allowed, no zone). ``looseIPv4(_:)`` reads every
/// spelling C libraries and browsers take for an IPv4 address (`2130706433`, `0x7f.1`, `017700000001`), so that such a
/// host is known for what it is and refused, instead of being taken for a name that some resolver turns into 127.0.0.1.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6, in network order.
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// An IPv4 address from its four bytes.
    public static func v4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> IPAddress { IPAddress(checked: [a, b, c, d]) }

    /// An IPv6 address from its leading groups, the rest zero (`v6(0xfe80)` is `fe80::`).
    public static func v6(_ groups: UInt16...) -> IPAddress {
        let all = Array(groups.prefix(8)) + Array(repeating: 0, count: max(0, 8 - groups.count))
        return IPAddress(checked: all.flatMap { [UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] })
    }

    /// For bytes whose count the caller made 4 or 16.
    private init(checked bytes: [UInt8]) { self.bytes = bytes }

    public var isIPv4: Bool { bytes.count == 4 }

    /// Dotted decimal, or RFC 4291 text in RFC 5952's canonical form (lower case, the longest run of zero groups as `::`).
    public var description: String {
        if isIPv4 { return bytes.map(String.init).joined(separator: ".") }
        let groups = stride(from: 0, to: 16, by: 2).map { Int(bytes[$0]) << 8 | Int(bytes[$0 + 1]) }
        // RFC 5952 §4.2: the longest run of two or more zero groups, the first of equal ones.
        var best: (start: Int, count: Int)?
        var index = 0
        while index < 8 {
            guard groups[index] == 0 else {
                index += 1
                continue
            }
            var end = index
            while end < 8, groups[end] == 0 { end += 1 }
            if end - index >= 2, end - index > (best?.count ?? 0) { best = (index, end - index) }
            index = end
        }
        let hex = groups.map { String($0, radix: 16) }
        guard let best else { return hex.joined(separator: ":") }
        return hex[..<best.start].joined(separator: ":") + "::" + hex[(best.start + best.count)...].joined(separator: ":")
    }

    /// Dotted decimal (four parts of 0–255 without leading zeros) or IPv6 text; nil for anything else.
    public init?(_ text: String) {
        if let v4 = Self.dottedDecimal(Substring(text)) {
            self = v4
        } else if let v6 = Self.ipv6(text) {
            self = v6
        } else {
            return nil
        }
    }

    static func dottedDecimal(_ text: Substring) -> IPAddress? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.utf8.allSatisfy({ (0x30...0x39).contains($0) }), part.count == 1 || part.first != "0",
                let value = UInt8(part)
            else { return nil }
            bytes.append(value)
        }
        return IPAddress(bytes: bytes)
    }

    static func ipv6(_ text: String) -> IPAddress? {
        guard text.contains(":"), text.utf8.count <= 45 else { return nil }
        var head: [UInt16] = []
        var tail: [UInt16] = []
        var sawGap = false
        var pieces = text.split(separator: ":", omittingEmptySubsequences: false)[...]
        // A leading or trailing "::" leaves two empty pieces at that end; a lone ":" there is malformed.
        if pieces.first == "" {
            guard pieces.count > 2, pieces[pieces.startIndex + 1] == "" else { return nil }
            pieces = pieces.dropFirst()
        }
        if pieces.last == "" {
            guard pieces.count > 1, pieces[pieces.endIndex - 2] == "" else { return nil }
            pieces = pieces.dropLast()
        }
        for (position, piece) in zip(pieces.indices, pieces) {
            if piece.isEmpty {
                guard !sawGap else { return nil }
                sawGap = true
                continue
            }
            var groups: [UInt16]
            if piece.contains(".") {
                // An IPv4 tail, last only, as two groups.
                guard position == pieces.endIndex - 1, let v4 = dottedDecimal(piece) else { return nil }
                groups = [UInt16(v4.bytes[0]) << 8 | UInt16(v4.bytes[1]), UInt16(v4.bytes[2]) << 8 | UInt16(v4.bytes[3])]
            } else {
                guard (1...4).contains(piece.count), piece.unicodeScalars.allSatisfy(\.properties.isASCIIHexDigit), let value = UInt16(piece, radix: 16)
                else { return nil }
                groups = [value]
            }
            if sawGap { tail += groups } else { head += groups }
        }
        let count = head.count + tail.count
        guard sawGap ? count <= 7 : count == 8 else { return nil }
        let all = head + Array(repeating: 0, count: 8 - count) + tail
        return IPAddress(checked: all.flatMap { [UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] })
    }

    /// Whether a host name would be read as an IPv4 address by a URL parser (WHATWG URL §3.5, "ends in a number"): its
    /// last label, after one trailing dot, is decimal digits or `0x` and hexadecimal digits.
    public static func endsInANumber(_ host: String) -> Bool {
        var labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if labels.last == "", labels.count > 1 { labels.removeLast() }
        guard let last = labels.last, !last.isEmpty else { return false }
        if last.utf8.allSatisfy({ (0x30...0x39).contains($0) }) { return true }
        let lower = last.lowercased()
        return lower.hasPrefix("0x") && lower.dropFirst(2).unicodeScalars.allSatisfy(\.properties.isASCIIHexDigit)
    }

    /// The IPv4 address of a numeric host in any spelling `inet_aton` and WHATWG URL's IPv4 parser take: one to four
    /// parts, each decimal, octal (a leading 0) or hexadecimal (`0x`), the last filling the bytes left; nil when the
    /// text is not such a number or its value does not fit.
    public static func looseIPv4(_ text: String) -> IPAddress? {
        var parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if parts.last == "", parts.count > 1 { parts.removeLast() }
        guard (1...4).contains(parts.count) else { return nil }
        var values: [UInt64] = []
        for part in parts {
            let lower = part.lowercased()
            let value: UInt64?
            if lower.hasPrefix("0x") {
                let digits = lower.dropFirst(2)
                value = digits.isEmpty ? 0 : (digits.count <= 16 ? UInt64(digits, radix: 16) : nil)
            } else if lower.count > 1, lower.hasPrefix("0") {
                value = lower.count <= 23 ? UInt64(lower.dropFirst(), radix: 8) : nil
            } else {
                value = lower.isEmpty || lower.count > 20 || !lower.utf8.allSatisfy({ (0x30...0x39).contains($0) }) ? nil : UInt64(lower)
            }
            guard let value else { return nil }
            values.append(value)
        }
        guard let last = values.last, values.dropLast().allSatisfy({ $0 <= 255 }) else { return nil }
        let lastBytes = 5 - values.count
        guard last < UInt64(1) << (8 * UInt64(lastBytes)) else { return nil }
        var number: UInt64 = last
        for (index, value) in values.dropLast().enumerated() { number |= value << (8 * UInt64(3 - index)) }
        return .v4(
            UInt8(truncatingIfNeeded: number >> 24), UInt8(truncatingIfNeeded: number >> 16), UInt8(truncatingIfNeeded: number >> 8),
            UInt8(truncatingIfNeeded: number))
    }

    /// The IPv4 address an IPv6 address stands for, where the IPv6 one is only its carrier: IPv4-mapped
    /// (`::ffff:a.b.c.d`), the well-known NAT64 prefix (`64:ff9b::/96`, RFC 6052) and 6to4 (`2002::/16`, RFC 3056).
    public var embeddedIPv4: IPAddress? {
        guard bytes.count == 16 else { return nil }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return IPAddress(bytes: Array(bytes[12..<16])) }
        if bytes[0..<12] == [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return IPAddress(bytes: Array(bytes[12..<16])) }
        if bytes[0] == 0x20, bytes[1] == 0x02 { return IPAddress(bytes: Array(bytes[2..<6])) }
        return nil
    }
}
