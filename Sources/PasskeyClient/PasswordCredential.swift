/// A saved password the person chose in the sheet. Its description never shows the password.
public struct PasswordCredential: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    public var description: String { "PasswordCredential(user: \"\(user)\", password: redacted)" }
    public var debugDescription: String { description }
}
