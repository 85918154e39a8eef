// Stand-in for the one CryptoKit type the PRF outputs use. Declarations only.

/// CryptoKit's `SymmetricKey`: only what the adapter reads.
public struct SymmetricKey: Sendable {
    public var bitCount: Int { fatalError() }
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { fatalError() }
}
