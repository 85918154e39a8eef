/// How every store compares usernames: ASCII letters without regard to case, every other character exactly, scalar by
/// scalar. This is what SQLite's `COLLATE NOCASE` and PostgreSQL's `lower(username COLLATE "C")` index do, so the
/// in-memory store used by tests answers as the databases do. (Swift's `==` would also equate canonically equivalent
/// strings; the server normalizes usernames to NFC before they reach storage, so that difference never shows.)
public enum UsernameKey {
    /// The bytes two usernames share when they name the same account.
    public static func of(_ username: String) -> [UInt8] {
        username.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }

    /// Whether two usernames name the same account.
    public static func same(_ first: String?, _ second: String?) -> Bool {
        guard let first, let second else { return first == nil && second == nil }
        return of(first) == of(second)
    }
}
