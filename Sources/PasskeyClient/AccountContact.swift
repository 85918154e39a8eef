/// A kind of contact an account can be named by when the system's sign-up sheet creates it with its first passkey
/// (Apple's `ASContactIdentifierRequest`, iOS 26). An open set, as the server's `contact` option names them.
public struct ContactKind: RawRepresentable, Sendable, Hashable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// An email address.
    public static let email = ContactKind(rawValue: "email")
    /// A phone number.
    public static let phone = ContactKind(rawValue: "phone")
}

/// The contact a person picked in the sign-up sheet: it names the new account on the server (its username).
public struct AccountContact: Sendable, Hashable {
    public var kind: ContactKind
    /// As the system gave it: `ann@example.com`, `+44 20 7946 0000`. The server stores a phone number as `+` and its
    /// digits.
    public var value: String

    public init(_ kind: ContactKind, _ value: String) {
        self.kind = kind
        self.value = value
    }
}
