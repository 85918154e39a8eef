/// A block of addresses in CIDR notation (`10.0.0.0/8`, `fd00::/8`), as an operator names the networks webhook
/// receivers may be on.
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    public let address: IPAddress
    public let prefixLength: Int

    /// `address/length`; a bare address is the block of that one address. The address's bits past the prefix must be
    /// zero (`10.0.0.1/8` is a mistake, not a network).
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = IPAddress(String(parts[0])) else { return nil }
        let bits = address.bytes.count * 8
        let length: Int
        if parts.count == 2 {
            guard (1...3).contains(parts[1].count), parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int(parts[1]), value <= bits
            else { return nil }
            length = value
        } else {
            length = bits
        }
        self.init(address: address, prefixLength: length)
        guard Self.masked(address, length) == address else { return nil }
    }

    init(address: IPAddress, prefixLength: Int) {
        self.address = address
        self.prefixLength = prefixLength
    }


    public var description: String { "\(address)/\(prefixLength)" }

    public func contains(_ other: IPAddress) -> Bool {
        other.bytes.count == address.bytes.count && Self.masked(other, prefixLength) == address
    }

    static func masked(_ address: IPAddress, _ length: Int) -> IPAddress {
        var bytes = address.bytes
        for index in bytes.indices {
            let keep = max(0, min(8, length - index * 8))
            bytes[index] &= keep == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - keep))
        }
        return IPAddress(bytes: bytes) ?? address
    }
}

extension IPAddress {
    /// `.v4(10, 0, 0, 0) / 8`: a block from constant parts.
    static func / (address: IPAddress, length: Int) -> IPNetwork { IPNetwork(address: address, prefixLength: length) }
}
