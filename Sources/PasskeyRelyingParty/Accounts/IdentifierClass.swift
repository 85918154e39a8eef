import Foundation

/// PRECIS's `IdentifierClass` (RFC 8264 §4.2), the string class RFC 8265's `UsernameCaseMapped` profile stands on:
/// which code points a new username may hold at all. Letters and digits of every script are in; what only looks like
/// them is out: compatibility characters (`𝐤`, `ⓒ`, `ⅰ`, `ℓ`, `ᵏ`, which are other spellings of `k`, `c`, `i`, `l`),
/// symbols and emoji, punctuation other than ASCII's (`‐` is not `-`), spaces, and letters shown as nothing.
///
/// Each code point's derived property comes from a table generated from the Unicode Character Database
/// (`scripts/generate-unicode-tables.py`, the rules of RFC 8264 §8 in their order) and keeps the rule that decided it,
/// so a refusal says why. The contextual rules of RFC 5892 Appendix A for `CONTEXTO` code points are checked here, on
/// the whole name; the joiners (`CONTEXTJ`, U+200C and U+200D) are refused outright, as every invisible character is.
public enum IdentifierClass {
    /// The rule of RFC 8264 §8 that decided a code point's property; the table's numbers.
    public struct Rule: RawRepresentable, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Letters, digits and marks (`LetterDigits`), printable ASCII, and the exceptions RFC 5892 allows (`ß`, `ς`).
        public static let valid = Rule(rawValue: 0)
        /// Zero-width joiner and non-joiner (`CONTEXTJ`).
        public static let joinControl = Rule(rawValue: 1)
        /// Allowed only in context (`CONTEXTO`): the middle dot between two `l`s, Greek keraia, Hebrew geresh and
        /// gershayim, the katakana middle dot, the two sets of Arabic-Indic digits (RFC 5892 Appendix A).
        public static let contextual = Rule(rawValue: 2)
        public static let unassigned = Rule(rawValue: 3)
        public static let oldHangulJamo = Rule(rawValue: 4)
        /// Default-ignorable code points and noncharacters.
        public static let ignorable = Rule(rawValue: 5)
        public static let control = Rule(rawValue: 6)
        /// `HasCompat`: the code point's compatibility decomposition is another string (RFC 8264 §9.17).
        public static let compatibility = Rule(rawValue: 7)
        /// `OtherLetterDigits`: title-case letters, letter numbers (Roman numerals), other numbers, enclosing marks.
        public static let otherLetterDigit = Rule(rawValue: 8)
        public static let space = Rule(rawValue: 9)
        public static let symbol = Rule(rawValue: 10)
        public static let punctuation = Rule(rawValue: 11)
        /// Everything else: surrogates, private use, separators, format characters that are not default-ignorable.
        public static let other = Rule(rawValue: 12)
        /// Disallowed by name in RFC 5892 §2.6 (Arabic tatweel, vertical kana repeat marks).
        public static let exception = Rule(rawValue: 13)
    }

    /// The rule that decided the code point's property.
    public static func rule(of scalar: Unicode.Scalar) -> Rule {
        // The table covers every code point; a gap would be a generator's fault, and refusing is the safe answer.
        CodePointRanges.value(of: scalar, in: ranges).map(Rule.init(rawValue:)) ?? .unassigned
    }

    /// Why a name (width-mapped, NFC) is not in the class, naming the first code point at fault; nil when it is.
    public static func refusal(_ name: String) -> String? {
        let scalars = Array(name.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            let rule = rule(of: scalar)
            switch rule {
            case .valid: continue
            case .contextual:
                if let refusal = contextRefusal(scalar, at: index, in: scalars) { return refusal }
            default:
                return describe(rule, scalar)
            }
        }
        return nil
    }

    /// RFC 5892 Appendix A's rules for the `CONTEXTO` code points.
    static func contextRefusal(_ scalar: Unicode.Scalar, at index: Int, in scalars: [Unicode.Scalar]) -> String? {
        let before = index > 0 ? scalars[index - 1] : nil
        let after = index + 1 < scalars.count ? scalars[index + 1] : nil
        let hebrew = UnicodeScripts.Script(named: "Hebrew")
        let greek = UnicodeScripts.Script(named: "Greek")
        switch scalar.value {
        case 0x00B7:  // Appendix A.3: between two l's (Catalan "l·l").
            return before == "l" && after == "l" ? nil : "A username may have U+00B7 MIDDLE DOT only between two l's, as Catalan writes l·l."
        case 0x0375:  // A.4: the Greek lower numeral sign is followed by a Greek letter.
            return after.flatMap(UnicodeScripts.script(of:)) == greek && greek != nil
                ? nil : "A username may have U+0375 GREEK LOWER NUMERAL SIGN only before a Greek letter."
        case 0x05F3, 0x05F4:  // A.5, A.6: geresh and gershayim follow a Hebrew letter.
            return before.flatMap(UnicodeScripts.script(of:)) == hebrew && hebrew != nil
                ? nil : "A username may have U+\(hex(scalar)) only after a Hebrew letter."
        case 0x30FB:  // A.7: the katakana middle dot, in a name with Hiragana, Katakana or Han.
            let japanese = ["Hiragana", "Katakana", "Han"].compactMap(UnicodeScripts.Script.init(named:))
            return scalars.contains { $0 != scalar && UnicodeScripts.script(of: $0).map(japanese.contains) == true }
                ? nil : "A username may have U+30FB KATAKANA MIDDLE DOT only among Hiragana, Katakana or Han."
        case 0x0660...0x0669:  // A.8: Arabic-Indic digits are not mixed with extended Arabic-Indic ones.
            return scalars.contains { (0x06F0...0x06F9).contains($0.value) }
                ? "A username may not mix Arabic-Indic digits (U+0660…U+0669) with extended ones (U+06F0…U+06F9)." : nil
        case 0x06F0...0x06F9:  // A.9.
            return scalars.contains { (0x0660...0x0669).contains($0.value) }
                ? "A username may not mix Arabic-Indic digits (U+0660…U+0669) with extended ones (U+06F0…U+06F9)." : nil
        default:
            return "A username may not contain U+\(hex(scalar))."
        }
    }

    static func describe(_ decided: Rule, _ scalar: Unicode.Scalar) -> String {
        let code = "U+" + hex(scalar)
        switch decided {
        case .compatibility:
            // What it is another spelling of, for the message: NFKC of the one code point.
            let plain = String(Character(scalar)).precomposedStringWithCompatibilityMapping
            let shown = plain.unicodeScalars.allSatisfy({ rule(of: $0) == .valid }) ? " (a spelling of “\(plain)”)" : ""
            return "A username may not contain compatibility characters, which look like other ones: \(code)\(shown)."
        case .space: return "A username may not contain spaces (\(code))."
        case .symbol: return "A username may not contain symbols or emoji (\(code))."
        case .punctuation: return "A username may not contain punctuation other than ASCII's (\(code))."
        case .otherLetterDigit: return "A username may not contain title-case letters, Roman numerals, fractions or enclosing marks (\(code))."
        case .unassigned: return "A username may not contain unassigned code points or noncharacters (\(code))."
        case .joinControl, .ignorable, .control: return "A username may not contain invisible or control characters (\(code))."
        case .oldHangulJamo: return "A username may not contain conjoining Hangul jamo (\(code)); write the syllables."
        default: return "A username may not contain \(code)."
        }
    }

    static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
