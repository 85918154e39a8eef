/// Where the software authenticator's randomness comes from: credential IDs and private keys.
///
/// Injectable so tests can control it; production uses the system generator. (ECDSA signing nonces come from
/// swift-crypto and are not affected.)
public struct RandomBytes: Sendable {
    private let generate: @Sendable (Int) -> [UInt8]

    /// `generate(n)` must return exactly `n` bytes.
    public init(_ generate: @escaping @Sendable (Int) -> [UInt8]) { self.generate = generate }

    public func callAsFunction(_ count: Int) -> [UInt8] { generate(count) }

    /// The operating system's cryptographically secure generator.
    public static let system = RandomBytes { count in
        var generator = SystemRandomNumberGenerator()
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            var word = generator.next()
            for _ in 0..<min(8, count - out.count) {
                out.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return out
    }
}
