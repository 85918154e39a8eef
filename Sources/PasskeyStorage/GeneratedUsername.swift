import Foundation
import PasskeyWire

/// The name the server gives an account made without one (an anonymous registration, an app's user linked without a
/// name): `anonymous-` and base64url of the start of its user handle. It is the `user.name` its passkeys carry, so
/// the person sees it in their passkey manager, and it is stored as the account's username so that it finds the
/// account like any other name, and answers always carry a username (clients written against the seed guides decode
/// it as a string).
///
/// Names of the shape the server gives are the server's: a new account may not take one (``isReserved(_:)``), so nobody
/// can claim a name the server may give, or pass for an account without a name. Other names with the prefix
/// (`anonymous-coward`, `Anonymous-42`) are anyone's.
public enum GeneratedUsername {
    public static let prefix = "anonymous-"

    /// The name of an account made from now on: 12 bytes of the handle, 16 characters, so that two accounts' names do not
    /// collide even compared without case (about 84 bits).
    public static func make(userHandle: [UInt8]) -> String {
        prefix + Base64URL.encode(Array(userHandle.prefix(12)))
    }

    /// The name accounts made before got, and their passkeys carry: 6 bytes of the handle, 8 characters.
    public static func legacy(userHandle: [UInt8]) -> String {
        prefix + Base64URL.encode(Array(userHandle.prefix(6)))
    }

    /// Whether the name has the shape of one of the server's (compared as usernames are, without case): the prefix and
    /// 8 or more base64url characters.
    public static func isReserved(_ name: String) -> Bool {
        let key = UsernameKey.of(name)
        guard key.hasPrefix(prefix) else { return false }
        let rest = key.utf8.dropFirst(prefix.utf8.count)
        return rest.count >= 8
            && rest.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    /// Whether `name` is the one the server gives (or gave) the account with this user handle.
    public static func isGenerated(_ name: String, userHandle: [UInt8]) -> Bool {
        name == make(userHandle: userHandle) || name == legacy(userHandle: userHandle)
    }
}
