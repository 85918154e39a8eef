import Foundation
import PasskeyWire

/// The name a person gives one of their passkeys ("Work laptop"), from the management API or the dashboard.
///
/// Unlike display names in registration options, which WebAuthn lets a server shorten (L3 §5.4.3), a name typed in
/// a rename is taken whole or refused: stored shortened or with characters dropped, the person would see a name they
/// did not type.
public enum PasskeyName {
    public static let maximumLength = 64
    public static var maximumBytes: Int { DisplayText.maximumNameBytes }

    /// The name without surrounding white space, or `name_invalid`: empty or invisible, over 64 characters (or 256 UTF-8 bytes), or
    /// with characters that change how the text around them shows (see ``DisplayText``).
    public static func validated(_ raw: String) throws(RelyingPartyError) -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        // A name of invisible characters only (U+FEFF, U+2060, the Hangul fillers, the blank Braille pattern…) would
        // show as an empty row in a list of passkeys.
        let visible = name.unicodeScalars.contains { !DisplayText.isBlank($0) }
        guard visible, name.count <= maximumLength, name.utf8.count <= maximumBytes, DisplayText.isSafe(name) else {
            throw RelyingPartyError(
                .nameInvalid, "A passkey name has 1 to \(maximumLength) characters, no control characters, line breaks or direction overrides.")
        }
        return name
    }
}

/// Text that people and logs see as one line: the dashboard's lists, the event log.
public enum DisplayText {
    /// Bytes a name people see may take (usernames, display names, passkey names), besides its characters: one
    /// character may carry any number of combining marks, so a limit in characters alone would let a name of 64
    /// characters take kilobytes in storage, in every options answer and in every token.
    public static let maximumNameBytes = 256

    /// No control characters (NUL, line feed…), no line or paragraph separators, and no bidirectional controls, which
    /// would hide or reorder what follows them. Other format characters stay allowed: zero-width joiners build emoji
    /// sequences and Persian or Indic words.
    public static func isSafe(_ text: String) -> Bool { !text.unicodeScalars.contains(where: DisplayEscaping.isUnsafe) }

    /// A scalar that shows nothing: white space, format characters, default-ignorable code points (U+FEFF, U+2060, the
    /// Hangul fillers…) and the blank Braille pattern. Text made only of these looks empty.
    public static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        return properties.isWhitespace || properties.generalCategory == .format || properties.isDefaultIgnorableCodePoint
            || scalar == "\u{2800}"
    }
}
