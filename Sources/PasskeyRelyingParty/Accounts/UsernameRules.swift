import Foundation
import PasskeyStorage

/// What a username may be: the rules every entry point applies (the ceremony API, account creation's contacts,
/// `passkey-server import`), and the ones lookups keep so that an account made under earlier rules is still found.
///
/// Two names are the same account when their ``UsernameKey`` (RFC 8265 `UsernameCaseMapped`: width mapping, case
/// folding, NFC) is equal; the stores compare by it. A new account's name must besides be one people cannot mistake
/// for another: every code point in PRECIS's `IdentifierClass` (``IdentifierClass``: letters and digits of any script
/// and printable ASCII, never a compatibility character such as `𝐤` or `ⓒ`, a symbol or emoji, punctuation other than
/// ASCII's, or a space), every letter one Unicode recommends for identifiers (``IdentifierStatus``: no `ɡ`, `ǀ` or
/// `ǃ`), no code points without a meaning yet (unassigned, noncharacters) or with a private one
/// (private use), and letters from scripts that belong together (Unicode TR39 "Highly Restrictive",
/// ``UnicodeScripts``). Names made under earlier rules (with a space or an emoji) keep finding their accounts: lookups
/// apply only the key.
///
/// Left to the app, as TR39 leaves it to a confusables list: names wholly in one script that look like names in
/// another (Cyrillic `асе` and Latin `ace`). Their letters are other letters, so keys differ.
public enum UsernameRules {
    public static let maximumLength = 64
    public static var maximumBytes: Int { DisplayText.maximumNameBytes }

    /// Trims and checks a username: 1–64 characters and at most 256 UTF-8 bytes, no control characters. No username,
    /// or an empty one, is nil (an anonymous account, or a sign-in without a username); one of white space only is
    /// refused, not taken as none: a person who typed blanks (or an invisible space pasted in) did not ask for an
    /// anonymous account.
    ///
    /// - Parameter newAccount: the name is for an account being made (registration, account creation, an import from
    ///   another server): the rules for new names apply too (``refusalForNewAccount(_:)``). Lookups and names the app's
    ///   backend sends keep the rule names were made under before, so an existing account's name still finds it.
    /// - Returns: the name in NFC, as it is stored and shown.
    public static func normalized(_ raw: String?, newAccount: Bool = false) throws(RelyingPartyError) -> String? {
        guard let raw, !raw.isEmpty else { return nil }
        // Printable ASCII and the plain space (most names, on every sign-in's options): NFC changes nothing, no character
        // is a control, format or invisible one, and the only White_Space is the space, so trimming spaces is all there
        // is to do, without Foundation's normalization (ICU on Linux, about 20 µs per options request).
        if raw.utf8.allSatisfy({ (0x20...0x7e).contains($0) }) {
            let bytes = Array(raw.utf8)
            guard let first = bytes.firstIndex(where: { $0 != 0x20 }), let last = bytes.lastIndex(where: { $0 != 0x20 }) else {
                throw RelyingPartyError(.usernameInvalid, "The username is blank: it has no visible character.")
            }
            let trimmed = first == 0 && last == bytes.count - 1 ? raw : String(decoding: bytes[first...last], as: UTF8.self)
            return try checked(trimmed, newAccount: newAccount)
        }
        return try normalizedFully(raw, newAccount: newAccount)
    }

    /// ``normalized(_:newAccount:)`` without its ASCII shortcut: for any name.
    static func normalizedFully(_ raw: String, newAccount: Bool) throws(RelyingPartyError) -> String {
        // NFC, so that a name typed as "é" and as "e" + combining accent is stored alike. Trimmed of Unicode White_Space
        // only: Foundation's whitespace set also holds U+200B ZERO WIDTH SPACE, a format character, which must be refused
        // like every other one rather than cut off at the ends and let through (a pasted "\u{200B}ann" had answered
        // username_taken for "ann").
        let trimmed = String(
            String.UnicodeScalarView(
                raw.unicodeScalars.drop { $0.properties.isWhitespace }.reversed().drop { $0.properties.isWhitespace }.reversed())
        ).precomposedStringWithCanonicalMapping
        if trimmed.isEmpty { throw RelyingPartyError(.usernameInvalid, "The username is blank: it has no visible character.") }
        return try checked(trimmed, newAccount: newAccount)
    }

    /// The checks of a trimmed, composed name: its length, no control, format or (for a new account) invisible
    /// character, and a new account's rules.
    static func checked(_ trimmed: String, newAccount: Bool) throws(RelyingPartyError) -> String {
        guard trimmed.count <= maximumLength, trimmed.utf8.count <= maximumBytes,
            !trimmed.unicodeScalars.contains(where: { scalar in
                let category = scalar.properties.generalCategory
                return category == .control || category == .format || scalar == "\u{FFFD}"
            })
        else {
            throw RelyingPartyError(
                .usernameInvalid,
                "A username has 1 to \(maximumLength) characters (at most \(maximumBytes) UTF-8 bytes), valid UTF-8, and no control or invisible characters.")
        }
        if newAccount { try requireNewAccountName(trimmed) }
        return trimmed
    }

    /// Refuses a name, already through ``normalized(_:newAccount:)``, that a new account may not have: an invisible
    /// character, or what ``refusalForNewAccount(_:)`` names. For a name that was mapped after normalising (a phone
    /// number written with spaces, kept as + and its digits).
    public static func requireNewAccountName(_ name: String) throws(RelyingPartyError) {
        if let invisible = name.unicodeScalars.first(where: isInvisible) {
            throw RelyingPartyError(
                .usernameInvalid, "A username may not contain invisible characters (U+\(IdentifierClass.hex(invisible))): it would look like another name.")
        }
        if let refusal = refusalForNewAccount(name) { throw RelyingPartyError(.usernameInvalid, refusal) }
    }

    /// Why a new account may not have this name (already trimmed and free of invisible characters), or nil.
    public static func refusalForNewAccount(_ name: String) -> String? {
        for scalar in name.unicodeScalars {
            let properties = scalar.properties
            // Unassigned code points and noncharacters (U+FFFE, U+FDD0…) have no meaning yet, and a later Unicode
            // version may give one a case partner, changing the key; private-use ones mean whatever a font makes of them.
            if properties.generalCategory == .unassigned || properties.isNoncharacterCodePoint {
                return "A username may not contain unassigned code points or noncharacters (U+\(hex(scalar)))."
            }
            if properties.generalCategory == .privateUse {
                return "A username may not contain private-use characters (U+\(hex(scalar)))."
            }
        }
        // RFC 8265 §3.3.1: the class is checked on the name as the profile maps it (width, case, NFC): what the key
        // holds. `PAL·LA` is in it, as `pal·la`. The refusal names the code point as typed when the typed form is out too.
        let mapped = WidthMapping.apply(name)
        let key = UsernameKey.of(name)
        // The server's names for accounts made without one: nobody may claim one it may give.
        if GeneratedUsername.isReserved(key) {
            return "Names of the form \(GeneratedUsername.prefix)… with 8 or more letters, digits, - or _ are the server's, for accounts made without a name."
        }
        if let refusal = IdentifierClass.refusal(key) { return IdentifierClass.refusal(mapped) ?? refusal }
        // UTS #39's recommended identifier characters: the letters IdentifierClass takes that people misread.
        if let refusal = IdentifierStatus.refusal(key) { return refusal }
        // The scripts of the name as its key has it: fullwidth Latin is Latin, as the key compares it.
        guard let scripts = UnicodeScripts.scripts(of: mapped) else {
            return "A username may not contain characters newer than Unicode \(UnicodeScripts.version)."
        }
        guard UnicodeScripts.isHighlyRestrictive(scripts) else {
            let names = scripts.map(\.name).sorted().joined(separator: ", ")
            return "A username's letters must come from one script, or from scripts one language writes together (Latin with Han and kana, Bopomofo or Hangul); this one mixes \(names)."
        }
        return nil
    }

    /// Characters a new account's username may not hold besides controls and format characters (direction marks,
    /// zero-width joiners): those shown as nothing, which would let one name pass for another ("ann" followed by a
    /// Hangul filler looks like "ann") or make a blank one. Default-ignorable code points (fillers, variation selectors,
    /// the combining grapheme joiner), line and paragraph separators, spaces other than U+0020 (no-break, ideographic,
    /// thin) and the blank Braille pattern. U+FFFD, which stands where the request had bytes that are not UTF-8, is
    /// refused in every name.
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        return properties.isDefaultIgnorableCodePoint || properties.generalCategory == .lineSeparator
            || properties.generalCategory == .paragraphSeparator || (properties.isWhitespace && scalar != " ") || scalar == "\u{2800}"
    }

    private static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
