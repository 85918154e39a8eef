/// A strict, bounded CBOR decoder for WebAuthn structures.
///
/// - Definite lengths only (CTAP2 canonical form forbids indefinite lengths).
/// - Every declared length is checked against the bytes that remain *before* anything is allocated,
///   and every array or map count against the remaining bytes (each item takes at least one byte).
/// - Nesting is limited (`maximumDepth`), so hostile input cannot exhaust the stack.
/// - Duplicate map keys and text that is not UTF-8 are rejected; `decode` rejects trailing bytes.
/// - Key order and minimal-length integer encoding are *not* enforced: real authenticators send
///   non-canonical key order (for example the Security Key by Yubico "SKY3" attestation objects).
public struct CBORDecoder: Sendable {
    /// Limits applied while decoding.
    public struct Limits: Sendable, Hashable {
        /// Maximum nesting depth of arrays, maps and tags. Compound attestation needs at least 5.
        public var maximumDepth: Int
        /// Maximum number of data items in one input.
        public var maximumItems: Int

        public init(maximumDepth: Int = 16, maximumItems: Int = 65_536) {
            self.maximumDepth = maximumDepth
            self.maximumItems = maximumItems
        }

        public static let `default` = Limits()
    }

    public var limits: Limits

    public init(limits: Limits = .default) { self.limits = limits }

    /// Decodes exactly one item that spans the whole input.
    public func decode(_ bytes: [UInt8]) throws(CBORError) -> CBORValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(CBORError) -> CBORValue in
            var reader = Reader(buffer: buffer, limits: limits)
            let value = try reader.readItem(depth: 0)
            guard reader.position == buffer.count else {
                throw CBORError(.trailingBytes, "\(buffer.count - reader.position) bytes follow the item", offset: reader.position)
            }
            return value
        }
    }

    /// Decodes one item at the start of `bytes` and returns it with the number of bytes it used.
    /// Used where a CBOR item is followed by other data (authenticator data: the credential
    /// public key is followed by the extensions map).
    public func decodePrefix(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> (value: CBORValue, length: Int) {
        try bytes.withUnsafeBufferPointer { (buffer) throws(CBORError) -> (value: CBORValue, length: Int) in
            var reader = Reader(buffer: buffer, limits: limits)
            let value = try reader.readItem(depth: 0)
            return (value, reader.position)
        }
    }
}

private struct Reader {
    let buffer: UnsafeBufferPointer<UInt8>
    let limits: CBORDecoder.Limits
    var position = 0
    var items = 0

    init(buffer: UnsafeBufferPointer<UInt8>, limits: CBORDecoder.Limits) {
        self.buffer = buffer
        self.limits = limits
    }

    var remaining: Int { buffer.count - position }

    mutating func readByte() throws(CBORError) -> UInt8 {
        guard position < buffer.count else { throw CBORError(.truncated, "input ended, 1 more byte needed", offset: position) }
        let byte = buffer[position]
        position += 1
        return byte
    }

    mutating func readUInt(byteCount: Int) throws(CBORError) -> UInt64 {
        guard remaining >= byteCount else {
            throw CBORError(.truncated, "input ended, \(byteCount) bytes needed, \(remaining) remain", offset: position)
        }
        var value: UInt64 = 0
        for i in 0..<byteCount { value = (value << 8) | UInt64(buffer[position + i]) }
        position += byteCount
        return value
    }

    /// Reads the argument that follows an initial byte (RFC 8949 §3).
    mutating func readArgument(_ info: UInt8, start: Int) throws(CBORError) -> UInt64 {
        switch info {
        case 0..<24: return UInt64(info)
        case 24: return try readUInt(byteCount: 1)
        case 25: return try readUInt(byteCount: 2)
        case 26: return try readUInt(byteCount: 4)
        case 27: return try readUInt(byteCount: 8)
        case 31: throw CBORError(.indefiniteLength, "indefinite-length item", offset: start)
        default: throw CBORError(.malformed, "reserved additional information \(info)", offset: start)
        }
    }

    /// Checks a declared length or count against what remains, before anything is allocated.
    func checkCount(_ count: UInt64, minimumBytesEach: Int, start: Int, what: String) throws(CBORError) -> Int {
        guard count <= UInt64(remaining / minimumBytesEach) else {
            throw CBORError(.lengthExceeded, "\(what) declares \(count) but only \(remaining) bytes remain", offset: start)
        }
        return Int(count)
    }

    mutating func readItem(depth: Int) throws(CBORError) -> CBORValue {
        let start = position
        items += 1
        guard items <= limits.maximumItems else {
            throw CBORError(.lengthExceeded, "more than \(limits.maximumItems) items", offset: start)
        }
        let initial = try readByte()
        let major = initial >> 5
        let info = initial & 0x1f
        switch major {
        case 0:
            return .unsigned(try readArgument(info, start: start))
        case 1:
            return .negative(try readArgument(info, start: start))
        case 2:
            // Read the argument first: the check must see the position after it.
            let declared = try readArgument(info, start: start)
            let length = try checkCount(declared, minimumBytesEach: 1, start: start, what: "byte string")
            let bytes = Array(UnsafeBufferPointer(rebasing: buffer[position..<(position + length)]))
            position += length
            return .bytes(bytes)
        case 3:
            // Read the argument first: the check must see the position after it.
            let declared = try readArgument(info, start: start)
            let length = try checkCount(declared, minimumBytesEach: 1, start: start, what: "text string")
            let slice = UnsafeBufferPointer(rebasing: buffer[position..<(position + length)])
            // Decoding repairs invalid sequences, so the bytes survive unchanged exactly when they were valid UTF-8
            // (`String(validating:as:)` needs iOS 18 / macOS 15; this package supports iOS 16).
            let text = String(decoding: slice, as: UTF8.self)
            guard text.utf8.elementsEqual(slice) else {
                throw CBORError(.invalidUTF8, "text string is not valid UTF-8", offset: start)
            }
            position += length
            return .text(text)
        case 4:
            // Read the argument first: the check must see the position after it.
            let declared = try readArgument(info, start: start)
            let count = try checkCount(declared, minimumBytesEach: 1, start: start, what: "array")
            guard depth < limits.maximumDepth else {
                throw CBORError(.depthExceeded, "nesting deeper than \(limits.maximumDepth)", offset: start)
            }
            var array: [CBORValue] = []
            array.reserveCapacity(count)
            for _ in 0..<count { array.append(try readItem(depth: depth + 1)) }
            return .array(array)
        case 5:
            // Read the argument first: the check must see the position after it.
            let declared = try readArgument(info, start: start)
            let count = try checkCount(declared, minimumBytesEach: 2, start: start, what: "map")
            guard depth < limits.maximumDepth else {
                throw CBORError(.depthExceeded, "nesting deeper than \(limits.maximumDepth)", offset: start)
            }
            var entries: [CBORMap.Entry] = []
            entries.reserveCapacity(count)
            // WebAuthn maps are small: a linear scan beats hashing them. Large maps use a set.
            let smallMap = count <= 16
            var seen = Set<CBORValue>()
            for _ in 0..<count {
                let keyStart = position
                let key = try readItem(depth: depth + 1)
                let duplicate = smallMap ? entries.contains { $0.key == key } : !seen.insert(key).inserted
                guard !duplicate else {
                    throw CBORError(.duplicateKey, "map key \(key) appears twice", offset: keyStart)
                }
                let value = try readItem(depth: depth + 1)
                entries.append(CBORMap.Entry(key: key, value: value))
            }
            return .map(CBORMap(uncheckedEntries: entries))
        case 6:
            let tag = try readArgument(info, start: start)
            guard depth < limits.maximumDepth else {
                throw CBORError(.depthExceeded, "nesting deeper than \(limits.maximumDepth)", offset: start)
            }
            return .tagged(tag, try readItem(depth: depth + 1))
        default:
            return try readSimple(info, start: start)
        }
    }

    mutating func readSimple(_ info: UInt8, start: Int) throws(CBORError) -> CBORValue {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 0..<20: return .simple(info)
        case 24:
            let value = try readByte()
            guard value >= 32 else { throw CBORError(.malformed, "two-byte simple value \(value) below 32", offset: start) }
            return .simple(value)
        case 25:
            return .float(Double(halfBitsToFloat(UInt16(try readUInt(byteCount: 2)))))
        case 26:
            return .float(Double(Float(bitPattern: UInt32(try readUInt(byteCount: 4)))))
        case 27:
            return .float(Double(bitPattern: try readUInt(byteCount: 8)))
        case 31:
            throw CBORError(.indefiniteLength, "unexpected break code", offset: start)
        default:
            throw CBORError(.malformed, "reserved simple value encoding \(info)", offset: start)
        }
    }

    func halfBitsToFloat(_ bits: UInt16) -> Float {
        let sign: Float = (bits & 0x8000) != 0 ? -1 : 1
        let exponent = Int((bits >> 10) & 0x1f)
        let fraction = Float(bits & 0x3ff)
        switch exponent {
        case 0: return sign * fraction * Float(sign: .plus, exponent: -24, significand: 1)
        case 31: return fraction == 0 ? sign * .infinity : .nan
        default: return sign * (1 + fraction / 1024) * Float(sign: .plus, exponent: exponent - 15, significand: 1)
        }
    }
}
