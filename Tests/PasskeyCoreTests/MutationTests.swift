import Foundation
import PasskeyCore
import PasskeyDiagnostics
import PasskeyWire
import Testing

/// A small deterministic generator, so a failing mutation can be replayed from its seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

/// Changes bytes in one way chosen at random: flip a bit, set a byte, truncate, insert, duplicate a run.
func mutate(_ bytes: [UInt8], using rng: inout SplitMix64) -> [UInt8] {
    var out = bytes
    guard !out.isEmpty else { return [UInt8.random(in: 0...255, using: &rng)] }
    let index = Int.random(in: 0..<out.count, using: &rng)
    switch Int.random(in: 0..<6, using: &rng) {
    case 0: out[index] ^= UInt8(1) << UInt8.random(in: 0...7, using: &rng)
    case 1: out[index] = UInt8.random(in: 0...255, using: &rng)
    case 2: out.removeSubrange(index...)
    case 3: out.insert(UInt8.random(in: 0...255, using: &rng), at: index)
    case 4:
        let end = min(out.count, index + Int.random(in: 1...16, using: &rng))
        out.insert(contentsOf: out[index..<end], at: index)
    default: out[index] = [0x00, 0x18, 0x19, 0x1a, 0x1b, 0x5b, 0x7b, 0x9b, 0xbb, 0xff, 0x7f, 0x9f][Int.random(in: 0..<12, using: &rng)]
    }
    return out
}

@Suite("Randomized mutations of real responses")
struct MutationTests {
    static let mutationsPerField = 30

    func fields(_ ceremony: String) -> [String] {
        ceremony == "registration" ? ["attestationObject", "clientDataJSON"] : ["authenticatorData", "clientDataJSON", "signature"]
    }

    /// Every mutated response ends in a verdict (a report with or without a typed failure), never a trap; a mutated
    /// sign-in never verifies, because every byte of authenticatorData and clientDataJSON is signed.
    @Test("mutated fixtures end in a value or a typed error", arguments: ["registration", "authentication"])
    func mutations(ceremony: String) throws {
        var cases = 0
        var rng = SplitMix64(state: ceremony == "registration" ? 0x5eed_0001 : 0x5eed_0002)
        for name in Fixtures.names(ceremony) {
            let fixture = try Fixtures.load(ceremony, name)
            let verifier = FixtureVerifier(allowLegacyAlgorithms: Fixtures.legacy.contains(name))
            let baseline = try verifier.verify(fixture)
            guard case .object(var credential) = fixture.credential, case .object(var response)? = credential["response"] else {
                Issue.record("\(name): credential has no response object")
                continue
            }
            for field in fields(ceremony) {
                guard let original = response[field]?.stringValue.flatMap(Base64URL.decode) else { continue }
                for _ in 0..<Self.mutationsPerField {
                    let mutated = mutate(original, using: &rng)
                    guard mutated != original else { continue }
                    response[field] = .string(Base64URL.encode(mutated))
                    credential["response"] = .object(response)
                    var copy = fixture
                    copy.credential = .object(credential)
                    let report = try verifier.verify(copy)
                    cases += 1
                    if ceremony == "authentication", baseline.isValid {
                        #expect(!report.isValid, "\(name): a mutated \(field) verified")
                    }
                    if let failure = report.failure {
                        #expect(!failure.code.rawValue.isEmpty && !failure.reason.isEmpty)
                    }
                }
                response[field] = .string(Base64URL.encode(original))
            }
        }
        #expect(cases >= (ceremony == "registration" ? 2000 : 1000))
    }

    @Test("garbage of every small length never traps the parsers")
    func garbage() {
        var rng = SplitMix64(state: 42)
        var accepted = 0
        for length in 0..<2048 {
            let bytes = (0..<(length % 300)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if (try? AttestationObject(bytes: bytes)) != nil { accepted += 1 }
            _ = try? AuthenticatorData(bytes: bytes)
            _ = try? COSEKey(bytes: bytes)
            _ = try? CollectedClientData(bytes: bytes)
            _ = try? JSONValue.parse(bytes)
        }
        // Structured garbage: valid prefixes followed by noise.
        let prefixes: [[UInt8]] = [[0xa3, 0x63, 0x66, 0x6d, 0x74], [0xa5, 0x01, 0x02, 0x03, 0x26], [0x7b, 0x22]]
        for prefix in prefixes {
            for _ in 0..<500 {
                let bytes = prefix + (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                if (try? AttestationObject(bytes: bytes)) != nil { accepted += 1 }
                _ = try? COSEKey(bytes: bytes)
                _ = try? CollectedClientData(bytes: bytes)
            }
        }
        // Nothing trapped, and noise is never mistaken for an attestation object.
        #expect(accepted == 0)
    }
}
