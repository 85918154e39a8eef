public import Foundation
import Crypto

/// Which users and devices are offered passkeys, and when the app should fall back to its old login.
///
/// The decision endpoints apply these rules in order; the first that matches decides (docs/connect.md lists them):
///
/// Append (`ask` | `auto` | `skip`):
/// 1. rollout off → `skip` (`rollout_disabled`);
/// 2. platform not in ``platforms`` (when set) → `skip` (`platform_not_allowed`);
/// 3. OS older than ``minimumOSVersions`` for the platform → `skip` (`os_too_old`);
/// 4. the user's stable bucket (0–99, from the user id) not below ``percentage`` → `skip` (`not_in_rollout`);
/// 5. no user-verifying platform authenticator → `skip` (`no_platform_authenticator`);
/// 6. the user already has a passkey usable on this platform → `skip` (`passkey_exists`);
/// 7. the user declined less than ``declineCooldownDays`` ago → `skip` (`declined_recently`);
/// 8. ``autoAppend`` and the device can create passkeys without a prompt (conditional create) → `auto`;
/// 9. otherwise `ask`.
///
/// Login (`one-tap` | `text-field` | `fallback`):
/// 1. rollout off, platform not allowed or OS too old → `fallback`;
/// 2. ``failureLimit`` or more recent passkey failures on this device → `fallback` (`too_many_failures`);
/// 3. a last-used identifier whose account has passkeys (and is in the rollout) → `one-tap`;
/// 4. no platform authenticator and no conditional mediation → `fallback` (`no_platform_authenticator`);
/// 5. otherwise `text-field`, with a challenge for AutoFill when conditional mediation is available.
public struct RolloutPolicy: Sendable, Hashable {
    /// Passkeys offered at all. Default on.
    public var enabled = true
    /// Share of users offered passkeys, 0–100, by a stable hash of the user id (a user stays in or out). Default 100.
    public var percentage = 100
    /// Platforms offered passkeys (`iOS`, `macOS`, `Android`, `Windows`, `Linux`, …); empty: all. Case-insensitive.
    public var platforms: [String] = []
    /// Lowest OS version per platform (`["iOS": "16.0"]`); platforms not listed have no minimum.
    public var minimumOSVersions: [String: String] = [:]
    /// After the user declines an append, do not ask again for this many days. Default 14.
    public var declineCooldownDays = 14
    /// After this many consecutive passkey failures on a device, fall back to the old login. Default 3.
    public var failureLimit = 3
    /// Append without asking where the OS supports it (conditional create). Default off.
    public var autoAppend = false

    public init() {}

    /// 0–99 for a user, stable across instances and restarts.
    public static func bucket(userID: String) -> Int {
        let digest = Array(SHA256.hash(data: Array(("passkey-rollout:" + userID).utf8)))
        let value = (UInt32(digest[0]) << 24) | (UInt32(digest[1]) << 16) | (UInt32(digest[2]) << 8) | UInt32(digest[3])
        return Int(value % 100)
    }

    /// Why the device or the configuration rules passkeys out, if it does (rules shared by both decisions).
    func deviceRefusal(_ client: ClientReport) -> String? {
        guard enabled else { return "rollout_disabled" }
        if !platforms.isEmpty {
            guard let platform = client.platform, platforms.contains(where: { $0.lowercased() == platform.lowercased() }) else {
                return "platform_not_allowed"
            }
        }
        if let platform = client.platform,
            let minimum = minimumOSVersions.first(where: { $0.key.lowercased() == platform.lowercased() })?.value
        {
            guard let version = client.osVersion, Self.compareVersions(version, minimum) >= 0 else { return "os_too_old" }
        }
        return nil
    }

    /// Decides whether to offer adding a passkey.
    public func appendDecision(
        client: ClientReport, userID: String, hasUsablePasskey: Bool, lastDeclinedAt: Date?, now: Date
    ) -> Decision {
        if let reason = deviceRefusal(client) { return Decision(step: "skip", reason: reason) }
        guard Self.bucket(userID: userID) < percentage else { return Decision(step: "skip", reason: "not_in_rollout") }
        guard client.platformAuthenticator else { return Decision(step: "skip", reason: "no_platform_authenticator") }
        if hasUsablePasskey { return Decision(step: "skip", reason: "passkey_exists") }
        if let declined = lastDeclinedAt, now.timeIntervalSince(declined) < Double(declineCooldownDays) * 86_400 {
            return Decision(step: "skip", reason: "declined_recently")
        }
        if autoAppend && client.conditionalCreate { return Decision(step: "auto", reason: "conditional_create") }
        return Decision(step: "ask", reason: "eligible")
    }

    /// Decides how to sign in. `knownUser` is the account of the last-used identifier with its passkey count.
    public func loginDecision(client: ClientReport, recentFailures: Int, knownUser: (userID: String, passkeys: Int)?) -> Decision {
        if let reason = deviceRefusal(client) { return Decision(step: "fallback", reason: reason) }
        if recentFailures >= failureLimit { return Decision(step: "fallback", reason: "too_many_failures") }
        if let knownUser, knownUser.passkeys > 0, Self.bucket(userID: knownUser.userID) < percentage {
            return Decision(step: "one-tap", reason: "last_login")
        }
        guard client.platformAuthenticator || client.conditionalMediation else {
            return Decision(step: "fallback", reason: "no_platform_authenticator")
        }
        return Decision(step: "text-field", reason: client.conditionalMediation ? "conditional_ui" : "identifier")
    }

    /// Compares dotted versions numerically (`16.10` > `16.9`); missing parts count as 0.
    static func compareVersions(_ a: String, _ b: String) -> Int {
        let left = a.split(separator: ".").map { Int($0) ?? 0 }
        let right = b.split(separator: ".").map { Int($0) ?? 0 }
        for index in 0..<max(left.count, right.count) {
            let l = index < left.count ? left[index] : 0
            let r = index < right.count ? right[index] : 0
            if l != r { return l < r ? -1 : 1 }
        }
        return 0
    }

    /// A decision and the rule that made it (for the app's logs and dashboards).
    public struct Decision: Sendable, Hashable {
        /// `ask`, `auto`, `skip`; or `one-tap`, `text-field`, `fallback`.
        public var step: String
        /// A stable code naming the rule.
        public var reason: String
    }
}

/// What the SDK reports about the device before a decision.
public struct ClientReport: Sendable, Hashable {
    /// `iOS`, `macOS`, `Android`, `Windows`, `Linux`, `web`…
    public var platform: String?
    public var osVersion: String?
    /// A user-verifying platform authenticator is available.
    public var platformAuthenticator: Bool
    /// AutoFill (conditional mediation) sign-in is available.
    public var conditionalMediation: Bool
    /// Passkeys can be created without a prompt (conditional create, iOS 18+).
    public var conditionalCreate: Bool

    public init(
        platform: String? = nil, osVersion: String? = nil, platformAuthenticator: Bool = false, conditionalMediation: Bool = false,
        conditionalCreate: Bool = false
    ) {
        self.platform = platform
        self.osVersion = osVersion
        self.platformAuthenticator = platformAuthenticator
        self.conditionalMediation = conditionalMediation
        self.conditionalCreate = conditionalCreate
    }
}
