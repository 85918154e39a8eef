public import Logging
public import PasskeyStorage
import PasskeyWire

/// Says which accounts a lookup by name cannot find because an older account's name is the same under today's
/// ``UsernameKey`` (``UserRepository/usernameCollisions()``): at every start in the log, and after
/// `passkey-server migrate` on the terminal. Nothing is merged; the operator renames or deletes one of the two.
public enum UsernameCollisionReport {
    /// One line per collision, at most `limit`, and a last line for the rest.
    public static func lines(_ collisions: [UsernameCollision], limit: Int = 20) -> [String] {
        var lines = collisions.prefix(limit).map { collision in
            let name = DisplayEscaping.escape(collision.account.username ?? "")
            let holder = collision.holder.map { "account \($0.id) (\"\(DisplayEscaping.escape($0.username ?? ""))\")" } ?? "an account deleted since"
            return "account \(collision.account.id) (\"\(name)\") is not found by its username: \(holder) has the same name under the username rules; its passkeys still sign in without a username"
        }
        if collisions.count > limit { lines.append("and \(collisions.count - limit) more accounts like these") }
        return lines
    }

    /// Logs the collisions as warnings; a store that cannot list them is logged and otherwise ignored (serving goes on).
    public static func log(_ repository: some UserRepository, logger: Logger) async {
        do {
            for line in lines(try await repository.usernameCollisions()) { logger.warning("\(line)") }
        } catch {
            logger.warning("could not list username collisions", metadata: ["error": "\(error.code)"])
        }
    }
}
