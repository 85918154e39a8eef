import PasskeyCore
public import PasskeyStorage

extension CeremonyService {
    /// The passkey account of an app's own user, made and linked on first use: how an app that keeps its users table
    /// (and its login) adds passkeys. The account's user handle is random and its own; `appUserID` is the app's key for
    /// its user, taken exactly as given, and comes back as ``CompletedSignIn/externalUserID`` when one of the account's
    /// passkeys signs in.
    ///
    /// Pass the account to ``appendOptions(for:replacing:conditional:)`` to add a passkey (complete it with
    /// ``verifyRegistration(_:challengeKey:username:displayName:at:)`` at ``RegistrationEndpoint/append``).
    ///
    /// - Parameters:
    ///   - name: the name passkey pickers show for the account (an email address, say); nil for none. Under the rules
    ///     for new names when the account is made now, and unique: another account's name is `username_taken`.
    ///   - displayName: the person's name, shortened to what options carry; the name when nil.
    public func account(forAppUser appUserID: String, name: String?, displayName: String?) async throws(RelyingPartyError) -> UserRecord {
        // A name of the server's shape (``GeneratedUsername``) is taken as none, as connect tokens take it.
        let username = try UsernameRules.normalized(name).flatMap { GeneratedUsername.isReserved($0) ? nil : $0 }
        // A name for an account made now meets a new account's rules; an account already linked keeps its own name.
        if let username {
            do { try UsernameRules.requireNewAccountName(username) } catch {
                let existing: UserRecord?
                do { existing = try await repository.user(externalID: appUserID) } catch let storage { throw RelyingPartyError(storage) }
                if existing == nil { throw error }
            }
        }
        // Without a name the account gets the server's (``GeneratedUsername``), which its passkeys carry.
        let handle = RelyingParty.makeUserHandle(random: random)
        let candidate = UserRecord(
            userHandle: handle, username: username ?? GeneratedUsername.make(userHandle: handle),
            displayName: DisplayName.sanitized(displayName, fallback: username ?? "Passkey user"), isAnonymous: false, createdAt: now())
        do { return try await repository.linkedUser(externalID: appUserID, orCreate: candidate) } catch { throw RelyingPartyError(error) }
    }
}
