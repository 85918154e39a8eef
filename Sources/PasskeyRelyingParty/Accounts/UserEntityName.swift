public import PasskeyWire

/// The account's name as authenticators store it with its passkeys (`user.name`, WebAuthn L3 §5.4.3): the username,
/// or for an anonymous account a name made from its user handle, so passkey pickers can tell two such accounts apart.
public enum UserEntityName {
    public static func make(username: String?, userHandle: [UInt8]) -> String {
        username ?? "anonymous-" + Base64URL.encode(Array(userHandle.prefix(6)))
    }
}
