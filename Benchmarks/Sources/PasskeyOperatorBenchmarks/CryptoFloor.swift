import Crypto
import Foundation
import PasskeyCore
import PasskeyTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The cryptography a ceremony cannot avoid, measured in this process as CPU time per operation (the unit of the
/// server's figures): a sign-in verifies one P-256 signature, signs one ES256 token (`signedPasskeyData`), draws 32
/// random bytes (the challenge) and hashes twice (client data, RP ID). A registration with `none` attestation makes a
/// P-256 public key from its COSE form instead of verifying, and draws 64 more random bytes (a user handle).
struct CryptoFloor {
    var verify = 0.0
    var sign = 0.0
    var random = 0.0
    var hash = 0.0
    var keyFromBytes = 0.0

    var signIn: Double { verify + sign + random + 2 * hash }
    var registration: Double { keyFromBytes + sign + 2 * random + 2 * hash }

    static func threadCPU() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Seconds of thread CPU per call of `body`, over about `seconds`.
    static func perOperation(seconds: Double, _ body: () throws -> Void) rethrows -> Double {
        let start = threadCPU()
        var count = 0
        while threadCPU() - start < seconds {
            for _ in 0..<50 { try body() }
            count += 50
        }
        return (threadCPU() - start) / Double(count)
    }

    /// Each part measured three times; the medians.
    static func measure(seconds: Double = 0.4) throws -> CryptoFloor {
        let key = P256.Signing.PrivateKey()
        let message = [UInt8](repeating: 0x5a, count: 37 + 32)
        let signature = try key.signature(for: message)
        let publicKey = key.publicKey
        let x963 = publicKey.x963Representation
        let token = [UInt8](repeating: 0x41, count: 350)
        let clientData = [UInt8](repeating: 0x7b, count: 140)
        func median(_ body: () throws -> Double) rethrows -> Double {
            let values = try (0..<3).map { _ in try body() }.sorted()
            return values[1]
        }
        var floor = CryptoFloor()
        floor.verify = try median {
            try perOperation(seconds: seconds) {
                let parsed = try P256.Signing.ECDSASignature(derRepresentation: signature.derRepresentation)
                guard publicKey.isValidSignature(parsed, for: message) else { throw BenchFailure("the floor's signature did not verify") }
            }
        }
        floor.sign = try median { try perOperation(seconds: seconds) { _ = try key.signature(for: token) } }
        floor.random = median { perOperation(seconds: seconds) { _ = RandomSource.system.bytes(32) } }
        floor.hash = median { perOperation(seconds: seconds) { _ = SHA256.hash(data: clientData) } }
        floor.keyFromBytes = try median { try perOperation(seconds: seconds) { _ = try P256.Signing.PublicKey(x963Representation: x963) } }
        return floor
    }
}
