import Foundation
import PasskeyWire
import Testing

@Suite("base64url without padding")
struct Base64URLTests {
    @Test("RFC 4648 §10 vectors, URL-safe, unpadded", arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ])
    func vectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test("every length from 0 to 99, from an array, a slice, Data and a sequence that is not contiguous: Foundation's base64 made URL-safe")
    func againstFoundation() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<100 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == expected, "\(length)")
            #expect(Base64URL.encode(([0] + bytes + [0])[1..<(length + 1)]) == expected, "slice \(length)")
            #expect(Base64URL.encode(Data(bytes)) == expected, "Data \(length)")
            #expect(Base64URL.encode(bytes.reversed().reversed()) == expected, "reversed twice \(length)")
            #expect(Base64URL.decode(expected) == bytes)
        }
    }

    @Test("the URL-safe alphabet is used both ways")
    func urlSafe() {
        #expect(Base64URL.encode([0xfb, 0xff, 0xbf]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xfb, 0xff, 0xbf])
    }

    @Test("standard base64 characters, bad lengths and non-zero trailing bits are refused", arguments: [
        "+/+/", "Zm9v+", "Z", "Zm9vY", "Zh", "Zm9=", "Zm9v====", "Zm 9v", "Zg=a", "é",
    ])
    func refused(input: String) {
        #expect(Base64URL.decode(input) == nil)
    }

    @Test("correct padding is tolerated on input", arguments: [("Zg==", "f"), ("Zm8=", "fo")])
    func padding(input: String, plain: String) {
        #expect(Base64URL.decode(input) == Array(plain.utf8))
    }

    @Test("round trip for every length up to 300")
    func roundTrip() {
        for length in 0...300 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }

    @Test("standard base64 for PEM and SafetyNet nonces")
    func standard() {
        #expect(Base64URL.encodeStandard([0xfb, 0xff]) == "+/8=")
        #expect(Base64URL.decodeStandard("+/8=\n") == [0xfb, 0xff])
        #expect(Base64URL.decodeStandard("-_8") == nil)
    }
}
