#if canImport(Glibc)
import Glibc
#endif

/// Where random bytes come from: the system CSPRNG in production, something fixed in tests.
public struct RandomSource: Sendable {
    public let bytes: @Sendable (Int) -> [UInt8]

    public init(bytes: @escaping @Sendable (Int) -> [UInt8]) { self.bytes = bytes }

    /// The operating system's cryptographically secure generator (`getrandom` on Linux, `arc4random` on Apple
    /// platforms). On Linux the buffer is filled with one `getentropy` call per 256 bytes (a `getrandom` system call),
    /// not one per 8 bytes as `SystemRandomNumberGenerator` makes.
    public static let system = RandomSource { count in
        var out = [UInt8](repeating: 0, count: count)
        #if canImport(Glibc)
        let filled = out.withUnsafeMutableBytes { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            var filled = 0
            while filled < count {
                let chunk = min(256, count - filled)
                guard getentropy(base + filled, chunk) == 0 else { break }
                filled += chunk
            }
            return filled
        }
        #else
        let filled = 0
        #endif
        // Elsewhere, or if getentropy failed: the standard library's generator (it traps rather than give weak bytes).
        var generator = SystemRandomNumberGenerator()
        var index = filled
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
