public import PasskeyStorage

/// The account's name as authenticators store it with its passkeys (`user.name`, WebAuthn L3 §5.4.3), and as every
/// answer names the account: the username, which an account made without one is given (``GeneratedUsername``). An
/// account stored without one (made before, whose generated name another account held when it was given) answers with
/// the name its passkeys carry.
public enum UserEntityName {
    public static func make(username: String?, userHandle: [UInt8]) -> String {
        username ?? GeneratedUsername.legacy(userHandle: userHandle)
    }
}

extension UserRecord {
    /// ``UserEntityName/make(username:userHandle:)``: the name answers give the account, never none.
    public var entityName: String { UserEntityName.make(username: username, userHandle: userHandle) }
}
