/// What a Sign in with Apple request asks to be told (Apple's `ASAuthorization.Scope`; the raw values are Apple's). An
/// open set.
public struct AppleIDScope: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let fullName = AppleIDScope(rawValue: "full_name")
    public static let email = AppleIDScope(rawValue: "email")
}
