@testable import PasskeyRelyingParty
import Testing

/// The generated IdentifierClass table (RFC 8264 §8 over UCD 15.0) and the contextual rules of RFC 5892 Appendix A.
@Suite("PRECIS IdentifierClass")
struct IdentifierClassTests {
    @Test("the table covers every code point once, in order, with known rules only")
    func coverage() {
        var next: UInt64 = 0
        for entry in IdentifierClass.ranges {
            #expect(entry >> 32 == next, "a gap or overlap at U+\(String(next, radix: 16))")
            next = ((entry >> 8) & 0xFF_FFFF) + 1
            #expect(UInt8(truncatingIfNeeded: entry) <= IdentifierClass.Rule.exception.rawValue)
        }
        #expect(next == 0x110000)
    }

    @Test("each rule of RFC 8264 §8 decides the code points it should", arguments: [
        ("a", IdentifierClass.Rule.valid), ("~", .valid), ("é", .valid), ("ß", .valid), ("ς", .valid), ("Ж", .valid), ("山", .valid),
        ("\u{0301}", .valid), ("\u{200D}", .joinControl), ("\u{00B7}", .contextual), ("\u{30FB}", .contextual), ("\u{0663}", .contextual),
        ("\u{0378}", .unassigned), ("\u{1100}", .oldHangulJamo), ("\u{FE0F}", .ignorable), ("\u{FFFE}", .ignorable), ("\u{7F}", .control),
        ("\u{1D424}", .compatibility), ("\u{FF41}", .compatibility), ("\u{00A0}", .compatibility), ("\u{01C5}", .compatibility),
        ("\u{2160}", .compatibility), ("\u{16EE}", .otherLetterDigit), ("\u{0488}", .otherLetterDigit), (" ", .space),
        ("\u{1680}", .space), ("😀", .symbol), ("€", .symbol), ("\u{2010}", .punctuation), ("«", .punctuation), ("\u{E000}", .other),
        ("\u{2028}", .other), ("\u{0640}", .exception), ("\u{3031}", .exception),
    ] as [(Unicode.Scalar, IdentifierClass.Rule)])
    func rules(scalar: Unicode.Scalar, rule: IdentifierClass.Rule) {
        #expect(IdentifierClass.rule(of: scalar) == rule, "U+\(String(scalar.value, radix: 16))")
    }

    @Test("contextual code points are allowed in their context and refused out of it", arguments: [
        ("col·lega", true), ("·l", false), ("l·", false), ("a·b", false), ("\u{0375}α", true), ("\u{0375}a", false),
        ("א\u{05F3}", true), ("\u{05F3}א", false), ("ヤマダ・タロウ", true), ("ann・lee", false), ("\u{0661}\u{0662}", true),
        ("\u{06F1}\u{06F2}", true), ("\u{0661}\u{06F2}", false),
    ])
    func contexts(name: String, allowed: Bool) {
        #expect((IdentifierClass.refusal(name) == nil) == allowed, "\(name): \(String(describing: IdentifierClass.refusal(name)))")
    }
}
