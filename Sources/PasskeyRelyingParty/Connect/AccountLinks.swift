public import Foundation
public import PasskeyStorage
public import PasskeyWire
public import PasskeyCore

/// A recovery or onboarding link as minted: the secret is shown once (only its hash is stored).
public struct AccountLink: Sendable {
    /// The token (`pal_…`): the link carries it, and redeeming sends it as `Authorization: Bearer`.
    public let token: String
    public let user: UserRecord
    public let expiresAt: Date
    /// Redeeming it deletes the account's other passkeys in the transaction that stores the new one.
    public let replacesPasskeys: Bool

    /// A new link for `user` and the record to store (its hash, never the token). Checks the lifetime and the account;
    /// ``AccountAdministration/makeLink(for:replacingPasskeys:lifetime:apiKey:by:)`` stores it.
    public static func make(
        for user: UserRecord, replacingPasskeys: Bool, lifetime: TimeInterval, apiKeyID: String? = nil, now: Date, random: RandomSource
    ) throws(RelyingPartyError) -> (link: AccountLink, record: ConnectTokenRecord) {
        guard lifetime.isFinite, lifetimes.contains(lifetime) else {
            throw RelyingPartyError(.fieldInvalid, "A link lives 300 seconds (5 minutes) to 2592000 seconds (30 days).")
        }
        guard !user.isDisabled else { throw RelyingPartyError.accountDisabled(user) }
        let token = BearerSecrets.make(prefix: BearerSecrets.accountLinkPrefix, random: random)
        let type: ConnectTokenType = replacingPasskeys ? .accountLinkReset : .accountLink
        let record = ConnectTokenRecord(
            hash: BearerSecrets.hash(token), type: type.rawValue, userID: user.id, singleUse: true, createdAt: now,
            expiresAt: now.addingTimeInterval(lifetime), apiKeyID: apiKeyID)
        return (AccountLink(token: token, user: user, expiresAt: record.expiresAt, replacesPasskeys: replacingPasskeys), record)
    }

    /// Links live between five minutes and thirty days.
    public static var lifetimes: ClosedRange<TimeInterval> { 300...(30 * 86_400) }

    /// The page at `base` (a server's public URL) that redeems it: `<base>/#link=<token>`, a fragment, so the token
    /// reaches no server's or proxy's access log.
    public func url(base: String) -> String { base + "/#link=" + token }
}

extension ConnectTokenRecord {
    /// An account link whose redemption deletes the account's other passkeys.
    var replacesPasskeys: Bool { type == ConnectTokenType.accountLinkReset.rawValue }
}

/// Recovery and onboarding links: a one-time, expiring token that lets its holder add a passkey to one existing
/// account, for a person who lost their only passkey or for an account the app's backend made before its person had
/// any. Minted by the app's backend (API key), an operator (`passkey-server users link`) or a dashboard admin.
///
/// Only the token's SHA-256 is stored; it is single use (consumed in the transaction that stores the passkey, so a
/// ceremony the person cancels does not spend it), expires (default a day), and is revoked with the account's other
/// links or when the account is disabled or deleted. Every way a link cannot be used answers the same
/// `account_link_invalid`, so only a valid link's holder learns anything about its account.
extension ConnectService {
    /// The link in `Authorization: Bearer pal_…` and its account, without using it up. Anything unusable, the account
    /// disabled or gone included, is ``RelyingPartyError/accountLinkInvalid``.
    public func accountLink(_ authorization: String?) async throws(RelyingPartyError) -> (record: ConnectTokenRecord, user: UserRecord) {
        guard let secret = BearerSecrets.bearer(authorization), secret.hasPrefix(BearerSecrets.accountLinkPrefix) else {
            throw RelyingPartyError.accountLinkInvalid
        }
        do {
            guard let record = try await repository.connectToken(hash: BearerSecrets.hash(secret), now: now()),
                ConnectTokenType.accountLinks.contains(ConnectTokenType(rawValue: record.type)),
                let user = try await repository.user(id: record.userID), !user.isDisabled
            else { throw RelyingPartyError.accountLinkInvalid }
            return (record, user)
        } catch { throw RelyingPartyError(mapping: error) }
    }

    /// Creation options for the link's account. The link stays usable until a passkey made with them is stored.
    public func accountLinkOptions(_ authorization: String?) async throws(RelyingPartyError)
        -> (options: PublicKeyCredentialCreationOptionsJSON, challengeKey: String, user: UserRecord, replacesPasskeys: Bool)
    {
        let (record, user) = try await accountLink(authorization)
        let (options, key) = try await ceremonies.appendOptions(for: user, excludingExisting: !record.replacesPasskeys, forAccountLink: true)
        return (options, key, user, record.replacesPasskeys)
    }

    /// Verifies the passkey made with ``accountLinkOptions(_:)`` and stores it in the transaction that uses up the link
    /// (and, for a link that replaces them, deletes the account's other passkeys).
    public func redeemAccountLink(_ authorization: String?, credential: RegistrationResponseJSON, challengeKey: String) async throws(RelyingPartyError)
        -> CompletedRegistration
    {
        let (record, _) = try await accountLink(authorization)
        return try await ceremonies.verifyRegistration(
            credential, challengeKey: challengeKey, username: nil,
            at: .accountLink(tokenHash: record.hash, replacingOtherPasskeys: record.replacesPasskeys))
    }
}
