import PasskeyCBOR
import Testing

func hex(_ s: String) -> [UInt8] {
    var out: [UInt8] = []
    var chars = s.filter { !$0.isWhitespace }.makeIterator()
    while let a = chars.next(), let b = chars.next() {
        out.append(UInt8(a.hexDigitValue ?? 0) << 4 | UInt8(b.hexDigitValue ?? 0))
    }
    return out
}

@Suite("CBOR decoder: RFC 8949 Appendix A vectors and hostile input")
struct CBORDecoderTests {
    let decoder = CBORDecoder()

    @Test("RFC 8949 Appendix A: integers, strings, arrays, maps, simple values", arguments: [
        ("00", CBORValue.unsigned(0)),
        ("17", .unsigned(23)),
        ("1818", .unsigned(24)),
        ("1903e8", .unsigned(1000)),
        ("1b000000e8d4a51000", .unsigned(1_000_000_000_000)),
        ("1bffffffffffffffff", .unsigned(UInt64.max)),
        ("20", .int(-1)),
        ("3863", .int(-100)),
        ("3bffffffffffffffff", .negative(UInt64.max)),
        ("40", .bytes([])),
        ("4401020304", .bytes([1, 2, 3, 4])),
        ("60", .text("")),
        ("6449455446", .text("IETF")),
        ("62225c", .text("\"\\")),
        ("62c3bc", .text("ü")),
        ("64f0908591", .text("𐅑")),
        ("80", .array([])),
        ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
        ("8301820203820405", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
        ("a0", .map([:])),
        ("a201020304", .map([.unsigned(1): .unsigned(2), .unsigned(3): .unsigned(4)])),
        ("a26161016162820203", .map([.text("a"): .unsigned(1), .text("b"): .array([.unsigned(2), .unsigned(3)])])),
        ("f4", .bool(false)),
        ("f5", .bool(true)),
        ("f6", .null),
        ("f7", .undefined),
        ("f0", .simple(16)),
        ("f8ff", .simple(255)),
        ("c074323031332d30332d32315432303a30343a30305a", .tagged(0, .text("2013-03-21T20:04:00Z"))),
        ("f93c00", .float(1.0)),
        ("f97bff", .float(65504.0)),
        ("fa47c35000", .float(100000.0)),
        ("fb3ff199999999999a", .float(1.1)),
    ])
    func appendixA(input: String, expected: CBORValue) throws {
        #expect(try decoder.decode(hex(input)) == expected)
    }

    @Test("encoder round-trips and emits CTAP2 canonical key order")
    func encoderRoundTrip() throws {
        let value: CBORValue = .map([.text("fmt"): .text("none"), .int(-2): .bytes([1]), .int(3): .int(-7), .text("a"): .null])
        let encoded = CBOREncoder().encode(value)
        let decoded = try decoder.decode(encoded)
        #expect(decoded.mapValue?.entries.map(\.key) == [.int(3), .int(-2), .text("a"), .text("fmt")])
        #expect(CBOREncoder().encode(decoded) == encoded)
        #expect(CBOREncoder().encode(.unsigned(1_000_000)) == hex("1a000f4240"))
    }

    @Test("truncated input is refused", arguments: ["18", "1903", "42 01", "63 61 62", "82 01", "a1 01", "c0", "f9 00", "fb 00 00"])
    func truncated(input: String) {
        // A declared length or count that the remaining bytes cannot hold is caught before reading on.
        do {
            let value = try decoder.decode(hex(input))
            Issue.record("decoded \(value) from a truncated input")
        } catch {
            #expect(error.code == .truncated || error.code == .lengthExceeded)
        }
    }

    @Test("bytes after the item are refused")
    func trailingBytes() {
        #expect(throws: CBORError(.trailingBytes, "", offset: 0)) { try decoder.decode(hex("a0 00")) }
        #expect(throws: Never.self) {
            let (value, length) = try decoder.decodePrefix(ArraySlice(hex("a0 00")))
            #expect(value == .map([:]) && length == 1)
        }
    }

    @Test("indefinite lengths are refused", arguments: ["5f 41 01 ff", "7f 61 61 ff", "9f 01 ff", "bf 01 02 ff", "ff"])
    func indefinite(input: String) {
        #expect(throws: CBORError(.indefiniteLength, "", offset: 0)) { try decoder.decode(hex(input)) }
    }

    @Test("duplicate map keys are refused")
    func duplicateKeys() {
        #expect(throws: CBORError(.duplicateKey, "", offset: 0)) { try decoder.decode(hex("a2 01 02 01 03")) }
        #expect(throws: CBORError(.duplicateKey, "", offset: 0)) { try decoder.decode(hex("a2 61 61 01 61 61 02")) }
    }

    @Test("deep nesting stops at the depth limit without exhausting the stack")
    func deepNesting() {
        let deep = [UInt8](repeating: 0x81, count: 100_000) + [0x00]
        #expect(throws: CBORError(.depthExceeded, "", offset: 0)) { try decoder.decode(deep) }
        let maps = [UInt8](repeating: 0xa1, count: 50) // {0: {0: ...
        var nested: [UInt8] = []
        for byte in maps { nested += [byte, 0x00] }
        nested.append(0x00)
        #expect(throws: CBORError(.depthExceeded, "", offset: 0)) { try decoder.decode(nested) }
        #expect(throws: Never.self) { try CBORDecoder(limits: .init(maximumDepth: 4)).decode(hex("81 81 81 81 00")) }
        #expect(throws: CBORError(.depthExceeded, "", offset: 0)) { try CBORDecoder(limits: .init(maximumDepth: 4)).decode(hex("81 81 81 81 81 00")) }
    }

    @Test("tags count towards the depth limit: a chain of tags cannot exhaust the stack")
    func deepTags() throws {
        // Tag 10 (0xca) wrapping itself 100 000 times, then 0.
        let tags = [UInt8](repeating: 0xca, count: 100_000) + [0x00]
        #expect(throws: CBORError(.depthExceeded, "", offset: 0)) { try decoder.decode(tags) }
        let limited = CBORDecoder(limits: .init(maximumDepth: 4))
        #expect(try limited.decode(hex("ca ca ca ca 00")) == .tagged(10, .tagged(10, .tagged(10, .tagged(10, .unsigned(0))))))
        #expect(throws: CBORError(.depthExceeded, "", offset: 0)) { try limited.decode(hex("ca ca ca ca ca 00")) }
        // Tags and arrays share the one budget.
        #expect(throws: CBORError(.depthExceeded, "", offset: 0)) { try limited.decode(hex("ca 81 ca 81 ca 00")) }
    }

    @Test("huge declared lengths are refused before allocating", arguments: [
        "5b ffffffffffffffff", "5b 00000000ffffffff 00", "7a ffffffff 61", "9b ffffffffffffffff 00", "bb 7fffffffffffffff 00 00",
        "9a 00100000 00",
    ])
    func hugeLengths(input: String) {
        #expect(throws: CBORError(.lengthExceeded, "", offset: 0)) { try decoder.decode(hex(input)) }
    }

    @Test("the item count is bounded")
    func itemCount() {
        let many = [0x99, 0x03, 0xe8] + [UInt8](repeating: 0, count: 1000)
        #expect(throws: CBORError(.lengthExceeded, "", offset: 0)) { try CBORDecoder(limits: .init(maximumItems: 100)).decode(many) }
        #expect(throws: Never.self) { try decoder.decode(many) }
    }

    @Test("text must be UTF-8")
    func invalidUTF8() {
        #expect(throws: CBORError(.invalidUTF8, "", offset: 0)) { try decoder.decode(hex("62 c3 28")) }
    }

    @Test("reserved encodings are refused", arguments: ["1c", "3d", "5e", "f8 10", "fc", "fe"])
    func reserved(input: String) {
        #expect(throws: CBORError(.malformed, "", offset: 0)) { try decoder.decode(hex(input)) }
    }

    @Test("every truncation of a valid item is refused, never trapped")
    func everyPrefix() throws {
        let full = CBOREncoder().encode(.map([.text("fmt"): .text("packed"), .text("attStmt"): .map([.text("alg"): .int(-7), .text("sig"): .bytes([UInt8](repeating: 9, count: 70))]), .text("authData"): .bytes([UInt8](repeating: 1, count: 37))]))
        for length in 0..<full.count {
            #expect(throws: CBORError.self) { try decoder.decode(Array(full[0..<length])) }
        }
        #expect(throws: Never.self) { try decoder.decode(full) }
    }
}
