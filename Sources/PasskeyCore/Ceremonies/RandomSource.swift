/// Where random bytes come from: the system CSPRNG in production, something fixed in tests.
public struct RandomSource: Sendable {
    public let bytes: @Sendable (Int) -> [UInt8]

    public init(bytes: @escaping @Sendable (Int) -> [UInt8]) { self.bytes = bytes }

    /// The operating system's cryptographically secure generator (`getrandom` on Linux, `SecRandom` on Apple platforms).
    public static let system = RandomSource { count in
        var generator = SystemRandomNumberGenerator()
        var out = [UInt8](repeating: 0, count: count)
        var index = 0
        while index < count {
            var word = generator.next()
            for _ in 0..<min(8, count - index) {
                out[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        return out
    }

    /// Repeats `byte` (tests only).
    public static func constant(_ byte: UInt8) -> RandomSource { RandomSource { [UInt8](repeating: byte, count: $0) } }
}
