/// Text from outside (a request, a credential, a fetched file, a server's answer) made safe to show on one line: in a
/// log, or on a terminal.
///
/// Shown as is, a line feed in such a value forges a whole line ("✓ all good"), an escape sequence clears or recolours
/// a terminal, a bidirectional override reorders what follows it, and a 40 000-character value floods the screen. The
/// server's log lines and the `passkey` CLI's text output both go through ``escape(_:limit:)``; JSON output needs
/// none of it (JSON escapes controls itself).
public enum DisplayEscaping {
    /// A scalar that breaks a line or changes how the text around it shows: controls (C0, DEL, C1, which include ESC),
    /// the line and paragraph separators, and the bidirectional controls (ALM, LRM, RLM, LRE…RLO, LRI…PDI). Other
    /// format characters are kept: zero-width joiners build emoji sequences and Persian or Indic words.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        default: bidirectionalControls.contains(scalar.value)
        }
    }

    /// ALM, LRM, RLM, the embeddings and overrides (LRE…RLO), and the isolates (LRI…PDI).
    public static let bidirectionalControls: Set<UInt32> = [
        0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
    ]

    /// How long a value shown on a line of text output may be, in scalars, unless the caller says otherwise.
    public static let lineLimit = 300

    /// `text` cut to `limit` scalars with a note of how many were left out: for output that escapes by itself (JSON)
    /// but must stay bounded.
    public static func clip(_ text: String, limit: Int = lineLimit) -> String {
        let limit = max(0, limit)
        guard text.utf8.count > limit else { return text }
        let scalars = text.unicodeScalars
        guard scalars.count > limit else { return text }
        return String(String.UnicodeScalarView(scalars.prefix(limit))) + "…(\(scalars.count - limit) more)"
    }

    /// `text` with each unsafe scalar written as a `\u{…}` escape, cut to `limit` scalars with a note of how many were
    /// left out.
    public static func escape(_ text: String, limit: Int = lineLimit) -> String {
        let limit = max(0, limit)
        // Most values (ids, codes, paths) are short ASCII-like text: taken as is when no byte can start an unsafe
        // scalar (C0 and DEL; 0xC2 leads C1, 0xD8 the Arabic letter mark, 0xE2 the separators and the other
        // bidirectional controls).
        if text.utf8.count <= limit,
            !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xD8 || $0 == 0xE2 })
        {
            return text
        }
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                result += "…(\(text.unicodeScalars.count - count) more)"
                break
            }
            count += 1
            if isUnsafe(scalar) {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
