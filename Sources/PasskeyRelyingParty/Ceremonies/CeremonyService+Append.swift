import Foundation
import PasskeyCore
public import PasskeyStorage
public import PasskeyWire

/// Ceremonies for an existing account: adding a passkey (append tokens, recovery links) and confirming with one.
extension CeremonyService {
    // MARK: Adding a passkey to an existing account

    /// Options to add a passkey to `user`: their credentials in `excludeCredentials`. With `replacing`, one of the user's
    /// credentials is removed in the transaction that stores the new one (reset), never before it verified. With
    /// `conditional`, the options are for conditional create (no prompt; presence and verification not required).
    /// With `excludingExisting` false, no passkey is excluded: a link that replaces them all lets any authenticator,
    /// one holding an old passkey included, make the new one. With `forAccountLink`, only the link's redemption
    /// (``RegistrationEndpoint/accountLink(tokenHash:replacingOtherPasskeys:)``) completes them.
    public func appendOptions(
        for user: UserRecord, replacing: [UInt8]? = nil, conditional: Bool = false, excludingExisting: Bool = true, forAccountLink: Bool = false
    ) async throws(RelyingPartyError)
        -> (options: PublicKeyCredentialCreationOptionsJSON, challengeKey: String)
    {
        guard !user.isDisabled else { throw RelyingPartyError.accountDisabled(user) }
        try await ensureCapacity()
        let existing: [CredentialRecordEntry]
        do { existing = try await repository.credentials(userID: user.id) } catch { throw RelyingPartyError(error) }
        if let replacing, !existing.contains(where: { $0.id == replacing }) {
            throw RelyingPartyError(.passkeyNotFound, "The passkey to replace does not belong to this account.")
        }
        let time = now()
        // The passkey being replaced is not excluded: the authenticator that holds it overwrites it (same RP ID and
        // user handle), which is what a reset wants.
        let excluded = excludingExisting ? existing.filter { $0.id != replacing }.map(Self.coreRecord) : []
        let options = relyingParty.makeRegistrationOptions(
            userHandle: user.userHandle, userName: Self.userEntityName(username: user.username, userHandle: user.userHandle), displayName: user.displayName,
            excludeCredentials: excluded, attestation: configuration.attestation,
            timeoutMilliseconds: Int(configuration.challengeTTL * 1000), random: random)
        let key = newChallengeKey()
        let record = ChallengeRecord(
            key: key, challenge: options.challenge, ceremony: forAccountLink ? .accountLinkRegistration : .registration, userID: user.id,
            username: user.username, displayName: user.displayName, userHandle: user.userHandle, replacesCredentialID: replacing, conditional: conditional,
            forExistingUser: true, createdAt: time,
            expiresAt: time.addingTimeInterval(configuration.challengeTTL))
        do { try await repository.saveChallenge(record) } catch { throw RelyingPartyError(error) }
        return (options, key)
    }

    /// Options to sign in as `user` (their passkeys in `allowCredentials`).
    public func authenticationOptions(for user: UserRecord) async throws(RelyingPartyError)
        -> (options: PublicKeyCredentialRequestOptionsJSON, challengeKey: String)
    {
        let allowed: [CredentialRecord]
        do { allowed = try await repository.credentials(userID: user.id).map(Self.coreRecord) } catch { throw RelyingPartyError(error) }
        // Empty allowCredentials would let the person pick any passkey for the RP, and every pick would then fail
        // (credential_not_allowed): say at once that there is nothing to confirm with.
        guard !allowed.isEmpty else {
            throw RelyingPartyError(.passkeyNotFound, "This account has no passkey to confirm with.")
        }
        let (challenge, key) = try await sealedChallenge(for: .named(userID: user.id))
        let options = relyingParty.makeAuthenticationOptions(
            allowCredentials: allowed, timeoutMilliseconds: Int(configuration.challengeTTL * 1000), challenge: challenge, random: random)
        return (options, key)
    }
}
