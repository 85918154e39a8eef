public import Foundation

/// Settings of the admin dashboard at `/dashboard` (docs/dashboard.md).
public struct DashboardConfiguration: Sendable {
    /// A session ends after this many seconds without a request (default 900). OWASP suggests 2–5 minutes for
    /// high-value applications: lower it with `--admin-idle-minutes`.
    public var sessionIdleTimeout: TimeInterval = 900
    /// A session ends this many seconds after sign-in, however active (default 43 200, 12 hours).
    public var sessionAbsoluteTimeout: TimeInterval = 43_200
    /// Destructive actions need a passkey check at most this many seconds old (default 300).
    public var freshCheckWindow: TimeInterval = 300
    /// How long a setup or invite link works, in seconds (default 86 400).
    public var inviteLifetime: TimeInterval = 86_400
    /// Events older than this many days are deleted (default 30).
    public var eventRetentionDays = 30
    /// Break-glass bearer token (`PASSKEY_ADMIN_TOKEN`) for headless use: `Authorization: Bearer …` acts as an admin
    /// with a fresh check. `nil` (default) turns it off.
    public var adminToken: String?
    /// Print a setup link at start when there is no admin yet (default on).
    public var printSetupLink = true

    public init() {}
}
