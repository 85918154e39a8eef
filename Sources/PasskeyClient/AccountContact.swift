public import PasskeyWire

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
