/// What a connect token lets the app do for one user. Append, delete and login tokens are single-use.
public struct ConnectTokenType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Add a passkey (or replace one: reset).
    public static let passkeyAppend = ConnectTokenType(rawValue: "passkey-append")
    /// List and rename passkeys.
    public static let passkeyList = ConnectTokenType(rawValue: "passkey-list")
    /// Delete one passkey.
    public static let passkeyDelete = ConnectTokenType(rawValue: "passkey-delete")
    /// Start a sign-in for this user (allowCredentials of their passkeys), for step-up in a signed-in app.
    public static let passkeyLogin = ConnectTokenType(rawValue: "passkey-login")

    public static let all: [ConnectTokenType] = [.passkeyAppend, .passkeyList, .passkeyDelete, .passkeyLogin]

    /// A recovery or onboarding link: its holder adds a passkey to the account (``AccountAdministration/makeLink(for:replacingPasskeys:lifetime:apiKey:by:)``).
    public static let accountLink = ConnectTokenType(rawValue: "account-link")
    /// The same, replacing every other passkey of the account when the new one is stored (a lost device).
    public static let accountLinkReset = ConnectTokenType(rawValue: "account-link-reset")
    /// Both kinds of account link.
    public static let accountLinks: [ConnectTokenType] = [.accountLink, .accountLinkReset]

    var isSingleUse: Bool { self != .passkeyList }
}
