import Foundation

/// How every store compares usernames: the comparison key of RFC 8265's `UsernameCaseMapped` profile (PRECIS), so
/// `Zoë`, `ZOË`, `zoe` + combining diaeresis and the fullwidth `ＺＯË` name one account; `Ivan` and `Иван` do not.
///
/// The profile's mapping rules in its order (RFC 8265 §3.3.2): width mapping (``WidthMapping``), no additional mapping,
/// case mapping, then normalisation to NFC. The case mapping is Unicode case folding, reached as the name in NFC,
/// upper-cased and then lower-cased, composed again, until that changes nothing: the round trip folds what lower-casing
/// alone leaves apart (`ß`, `ẞ` and `SS`, final and medial sigma, `ǅ`), so two names share a key exactly when their
/// case foldings are equal. (The key itself is lower case, where folding would give Cherokee in upper case.) Stores keep
/// the key next to the name as typed (`username_key`, unique), look accounts up by it, and show the name as typed.
///
/// What names a new account may have at all (PRECIS's `IdentifierClass` and Unicode TR39's script rules) is the
/// server's concern (its username rules); the key only decides which names are the same one, and it applies to names
/// made under any earlier rule.
///
/// The case tables are those of the Swift toolchain the server was built with. A later toolchain with a newer Unicode
/// version can map a few letters that had no case partner before; a name made only of letters that already had one (every
/// script in use today) keeps its key.
public enum UsernameKey {
    /// The key two usernames share when they name the same account.
    public static func of(_ username: String) -> String {
        // ASCII (most names, and every event's name is keyed on the sign-in path): composition changes nothing and the
        // round trip through upper case is plain lower-casing, without Foundation's two NFC passes.
        if username.utf8.allSatisfy({ $0 < 0x80 }) { return username.lowercased() }
        // RFC 8265 §3.3.2 rule 1, before the case mapping: fullwidth letters have case partners of their own (`Ａ`,
        // `ａ`), so folding first would keep them apart from ASCII.
        var key = WidthMapping.apply(username).precomposedStringWithCanonicalMapping
        // Round trips until nothing changes: one is not always enough. Capital sharp s (`ẞ`) is already upper case and
        // lower-cases to `ß`, which only the next round turns into `ss`, where `ß` itself lands after one. Case folding
        // maps both to `ss`. In the Unicode versions of today's toolchains, two rounds always reach the end; the bound
        // only keeps a future table from looping.
        for _ in 0..<4 {
            let next = key.uppercased().lowercased().precomposedStringWithCanonicalMapping
            if next == key { break }
            key = next
        }
        return key
    }

    /// Whether two usernames name the same account.
    public static func same(_ first: String?, _ second: String?) -> Bool {
        guard let first, let second else { return first == nil && second == nil }
        return of(first) == of(second)
    }
}
