public import PasskeyStorage

/// The account's name as authenticators store it with its passkeys (`user.name`, WebAuthn L3 §5.4.3), and as every
/// answer names the account: the username, which an account made without one is given (``GeneratedUsername``). An
/// account still stored without one (an old instance made it since the last start, or another instance stored its
/// name meanwhile) answers with the name its passkeys carry, ``GeneratedUsername/legacy(userHandle:)``: the same
/// name the start that names it will most likely store, so its passkeys are not renamed back and forth.
public enum UserEntityName {
    public static func make(username: String?, userHandle: [UInt8]) -> String {
        username ?? GeneratedUsername.legacy(userHandle: userHandle)
    }
}

extension UserRecord {
    /// ``UserEntityName/make(username:userHandle:)``: the name answers give the account, never none.
    public var entityName: String { UserEntityName.make(username: username, userHandle: userHandle) }
}
