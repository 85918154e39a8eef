public import PasskeyStorage

/// The account's name as authenticators store it with its passkeys (`user.name`, WebAuthn L3 §5.4.3), and as every
/// answer names the account: the username, which an account made without one is given (``GeneratedUsername``). An
/// account still stored without one (an old instance made it since the last start, or the names its handle gives were
/// other accounts') answers with one made of its whole user handle: no two accounts answer with one name, and the
/// signals of its next sign-in rename its passkeys to it.
public enum UserEntityName {
    public static func make(username: String?, userHandle: [UInt8]) -> String {
        username ?? GeneratedUsername.unique(userHandle: userHandle)
    }
}

extension UserRecord {
    /// ``UserEntityName/make(username:userHandle:)``: the name answers give the account, never none.
    public var entityName: String { UserEntityName.make(username: username, userHandle: userHandle) }
}
