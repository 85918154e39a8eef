/// Which alternative to a passkey a combined sheet ended with, for analytics
/// (``PasskeyClientEvent/authenticationEndedWithAlternative(kind:)``). An open set of stable strings.
public struct SignInAlternativeKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// A saved password.
    public static let password = SignInAlternativeKind(rawValue: "password")
    /// Sign in with Apple.
    public static let appleID = SignInAlternativeKind(rawValue: "apple_id")
}
