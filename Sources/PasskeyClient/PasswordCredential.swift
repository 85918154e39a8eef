/// A saved password the person chose in the sheet. Its descriptions and mirror (`dump`, the debugger) never show the
/// password; they show the user name, as the SDK's other descriptions show account names.
public struct PasswordCredential: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    public var description: String { "PasswordCredential(user: \"\(user)\", password: redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["user": user, "password": "redacted"]) }
}
