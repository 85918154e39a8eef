/// An authenticator's AAGUID: 16 bytes naming its model (WebAuthn L3 §6.5.1). All zero when the authenticator
/// does not say (for example with `none` attestation, or U2F devices).
public struct AAGUID: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// `nil` unless exactly 16 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses the canonical form `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (either case).
    public init?(_ string: String) {
        let hex = string.filter { $0 != "-" }
        guard hex.count == 32, string.count == 36 else { return nil }
        var out: [UInt8] = []
        var chars = hex.makeIterator()
        while let hi = chars.next(), let lo = chars.next() {
            guard let h = hi.hexDigitValue, let l = lo.hexDigitValue else { return nil }
            out.append(UInt8(h << 4 | l))
        }
        self.bytes = out
    }

    public static let zero = AAGUID(uncheckedBytes: [UInt8](repeating: 0, count: 16))

    init(uncheckedBytes: [UInt8]) { bytes = uncheckedBytes }

    public var isZero: Bool { bytes.allSatisfy { $0 == 0 } }

    /// Lower-case canonical form, as in FIDO metadata and the passkey provider lists.
    public var description: String {
        let hex = bytes.hexString
        let c = Array(hex)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-"
            + String(c[20..<32])
    }
}
