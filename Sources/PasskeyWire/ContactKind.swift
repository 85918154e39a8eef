/// A kind of contact an account can be named by when the system's sign-up sheet creates it with its first passkey
/// (Apple's `ASContactIdentifierRequest`, iOS 26): the server's `contact` option names them, the SDK asks the sheet for
/// them, storage keeps them with a pending registration. An open set.
public struct ContactKind: RawRepresentable, Sendable, Hashable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// An email address.
    public static let email = ContactKind(rawValue: "email")
    /// A phone number, in international form (`+` and the digits).
    public static let phone = ContactKind(rawValue: "phone")

    /// The kind a contact's text is: an email address has an `@`; anything else is taken for a phone number (and is
    /// then checked as one).
    public static func of(_ contact: String) -> ContactKind { contact.contains("@") ? .email : .phone }

    /// "an email address", "a phone number": for messages.
    public var described: String {
        switch self {
        case .email: "an email address"
        case .phone: "a phone number"
        default: "a \(rawValue)"
        }
    }
}
