import Foundation

/// How every store compares usernames: without regard to case, in every script, and without regard to how an accented
/// letter is encoded. `Zoë`, `ZOË` and `zoe` + combining diaeresis name one account; `Ivan` and `Иван` do not.
///
/// The key is the name in Unicode canonical composition (NFC), upper-cased and then lower-cased, composed again, until
/// that changes nothing. The round trip through upper case folds what lower-casing alone leaves apart (`ß`, `ẞ` and
/// `SS`, final and medial sigma), as Unicode case folding does. Stores keep the key next to the name as typed
/// (`username_key`, unique), look accounts up by it, and show the name as typed.
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
        // Round trips until nothing changes: one is not always enough. Capital sharp s (`ẞ`) is already upper case and
        // lower-cases to `ß`, which only the next round turns into `ss`, where `ß` itself lands after one. Case folding
        // maps both to `ss`. In the Unicode versions of today's toolchains, two rounds always reach the end; the bound
        // only keeps a future table from looping.
        var key = username.precomposedStringWithCanonicalMapping
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
