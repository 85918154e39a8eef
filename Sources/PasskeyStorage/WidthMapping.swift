/// RFC 8265 §3.3.2 rule 1 (the width mapping of PRECIS's username profiles): fullwidth and halfwidth characters are
/// mapped to their decomposition mapping, so `ｃａｒｏｌ` (fullwidth, as an East Asian keyboard types it) is `carol`.
///
/// Only the `<wide>` and `<narrow>` decompositions, one level (U+FFE3 FULLWIDTH MACRON is U+00AF MACRON, not the space
/// and combining macron of NFKD). Those are U+3000 IDEOGRAPHIC SPACE and the Halfwidth and Fullwidth Forms block,
/// U+FF01–U+FFEE; the pairs are generated (``pairs``, by `scripts/generate-unicode-tables.py`).
public enum WidthMapping {
    /// `text` with every fullwidth and halfwidth character mapped; other characters unchanged.
    public static func apply(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: mapsSomething) else { return text }
        var mapped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { mapped.append(self.mapped(scalar)) }
        return String(mapped)
    }

    /// The scalar's width mapping, or the scalar itself.
    public static func mapped(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        guard mapsSomething(scalar) else { return scalar }
        var low = 0
        var high = pairs.count
        while low < high {
            let middle = (low + high) / 2
            let (code, target) = pairs[middle]
            if code == scalar.value { return Unicode.Scalar(target) ?? scalar }
            if code < scalar.value { low = middle + 1 } else { high = middle }
        }
        return scalar
    }

    /// Whether the scalar is in the only ranges that hold width-mapped characters.
    static func mapsSomething(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x3000 || (0xFF00...0xFFEF).contains(scalar.value)
    }
}
