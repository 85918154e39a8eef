public import Foundation
public import PasskeyCore
public import PasskeyStorage

/// Every change to an account, its passkeys and its links, whoever asks: the dashboard, the app's backend (API key),
/// the app for its signed-in person (connect token) and `passkey-server users …`. Each change is checked the same way,
/// writes the same webhook messages (storage writes them in the change's transaction) and the same audit entry
/// (`admin.<action>`), which differs only in who made it (``AuditActor``).
///
/// Finding the account (by id, by the app's id, by name) and deciding who may change it stay with the caller: those
/// differ by path on purpose (a dashboard session, an API key, a connect token, a shell).
public struct AccountAdministration<Repository: PasskeyRepository>: Sendable {
    public let repository: Repository
    let audit: any AuditLog
    /// Recorded in each entry, as the ceremonies' events record it; nil where it is not known (a subcommand).
    let rpID: String?
    let now: @Sendable () -> Date
    let random: RandomSource

    public init(
        repository: Repository, audit: any AuditLog, rpID: String? = nil, now: @escaping @Sendable () -> Date = Date.init,
        random: RandomSource = .system
    ) {
        self.repository = repository
        self.audit = audit
        self.rpID = rpID
        self.now = now
        self.random = random
    }

    // MARK: Passkeys

    /// Renames one of `user`'s passkeys; returns it as stored. A name is 1 to 64 characters that show on one line
    /// (``PasskeyName``).
    public func renamePasskey(_ id: [UInt8], of user: UserRecord, to rawName: String, by actor: AuditActor) async throws(RelyingPartyError)
        -> CredentialRecordEntry
    {
        let name = try PasskeyName.validated(rawName)
        let renamed: CredentialRecordEntry
        do { renamed = try await repository.renameCredential(id: id, userID: user.id, name: name) } catch {
            throw Self.mapped(error, notFound: Self.passkeyNotFound)
        }
        await audit.record(actor.entry("rename_passkey", detail: "passkey renamed", user: user, credentialID: id, rpID: rpID, time: now()))
        return renamed
    }

    /// Deletes one of `user`'s passkeys (`passkey.deleted`). The person's device keeps it until the app signals the
    /// change (``CredentialSignals``).
    public func deletePasskey(_ id: [UInt8], of user: UserRecord, by actor: AuditActor) async throws(RelyingPartyError) {
        do { try await repository.deleteCredential(id: id, userID: user.id) } catch {
            throw Self.mapped(error, notFound: Self.passkeyNotFound)
        }
        await audit.record(actor.entry("delete_passkey", detail: "passkey deleted", user: user, credentialID: id, rpID: rpID, time: now()))
    }

    // MARK: Accounts

    /// Disables the account (from now) or enables it again (`user.disabled`, `user.enabled`). A disabled account keeps
    /// its passkeys, but nothing signs in to it or changes it through the app until it is enabled
    /// (``RelyingPartyError/accountDisabled(_:)``); disabling deletes its connect tokens and links, spends its pending
    /// ceremonies, and makes its earlier sign-in tokens stop verifying, also once it is enabled again.
    public func setDisabled(_ disabled: Bool, _ user: UserRecord, by actor: AuditActor) async throws(RelyingPartyError) -> UserRecord {
        let changed: UserRecord
        do { changed = try await repository.setUserDisabled(id: user.id, disabledAt: disabled ? now() : nil) } catch {
            // Deleted since it was looked up.
            throw Self.mapped(error, notFound: Self.userNotFound)
        }
        await audit.record(
            actor.entry(disabled ? "disable_user" : "enable_user", detail: disabled ? "user disabled" : "user enabled", user: changed, rpID: rpID, time: now()))
        return changed
    }

    /// Deletes the account with its passkeys, tokens and links (`user.deleted`).
    public func deleteUser(_ user: UserRecord, by actor: AuditActor) async throws(RelyingPartyError) {
        do { try await repository.deleteUser(id: user.id) } catch { throw Self.mapped(error, notFound: Self.userNotFound) }
        await audit.record(actor.entry("delete_user", detail: "user deleted", user: user, rpID: rpID, time: now()))
    }

    // MARK: Links

    /// A recovery or onboarding link for `user` (``AccountLink``), stored by its hash; the token in it is shown once.
    /// `apiKey`: the backend key that asked, so that revoking the key deletes its unused links.
    public func makeLink(
        for user: UserRecord, replacingPasskeys: Bool, lifetime: TimeInterval, apiKey: APIKeyRecord? = nil, by actor: AuditActor
    ) async throws(RelyingPartyError) -> AccountLink {
        let time = now()
        let made = try AccountLink.make(
            for: user, replacingPasskeys: replacingPasskeys, lifetime: lifetime, apiKeyID: apiKey?.id, now: time, random: random)
        do { try await repository.saveConnectToken(made.record) } catch { throw RelyingPartyError(error) }
        let what = replacingPasskeys ? "recovery link made (replaces the account's passkeys)" : "link made"
        await audit.record(actor.entry("link_user", detail: what + ", valid " + Self.hours(lifetime), user: user, rpID: rpID, time: time))
        return made.link
    }

    /// Deletes the account's unused links; returns how many there were.
    public func revokeLinks(of user: UserRecord, by actor: AuditActor) async throws(RelyingPartyError) -> Int {
        let count: Int
        do { count = try await repository.deleteConnectTokens(userID: user.id, types: ConnectTokenType.accountLinks.map(\.rawValue)) } catch {
            throw RelyingPartyError(error)
        }
        await audit.record(actor.entry("unlink_user", detail: "\(count) link\(count == 1 ? "" : "s") revoked", user: user, rpID: rpID, time: now()))
        return count
    }

    // MARK: Errors

    static var userNotFound: RelyingPartyError { RelyingPartyError(.userNotFound, "No such user.") }
    static var passkeyNotFound: RelyingPartyError { RelyingPartyError(.passkeyNotFound, "This account has no such passkey.") }

    static func mapped(_ error: StorageError, notFound: RelyingPartyError) -> RelyingPartyError {
        error.code == .notFound ? notFound : RelyingPartyError(error)
    }

    /// A lifetime as the log says it: "24 h", "0.5 h".
    static func hours(_ seconds: TimeInterval) -> String {
        let hours = seconds / 3600
        let rounded = (hours * 100).rounded() / 100
        return (rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)) + " h"
    }
}
