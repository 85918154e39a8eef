import PasskeyCore
import Testing

@Suite("The system random source")
struct RandomSourceTests {
    @Test("any count, across getentropy's 256-byte limit: exactly that many bytes, different every time, every byte value reached")
    func counts() {
        for count in [0, 1, 7, 8, 9, 16, 255, 256, 257, 513, 4_096] {
            let first = RandomSource.system.bytes(count)
            let second = RandomSource.system.bytes(count)
            #expect(first.count == count && second.count == count)
            if count >= 16 { #expect(first != second, "\(count)") }
        }
        // 64 KiB: each of the 256 values turns up (missing one has a probability of about 256 · e^-256).
        let many = RandomSource.system.bytes(65_536)
        #expect(Set(many).count == 256)
        // The tail past the last whole 256-byte chunk is filled too, not left zero.
        #expect(RandomSource.system.bytes(300).suffix(44).contains { $0 != 0 })
    }
}
