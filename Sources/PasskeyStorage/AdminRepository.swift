public import Foundation

/// Dashboard administrators, their passkeys, invites and sessions.
public protocol AdminRepository: Sendable {
    /// Every admin, oldest first.
    func admins() async throws(StorageError) -> [AdminRecord]
    func admin(id: String) async throws(StorageError) -> AdminRecord?
    func admin(userHandle: [UInt8]) async throws(StorageError) -> AdminRecord?

    /// Stores a new admin and their first passkey in one transaction that consumes the invite with `inviteHash`. When
    /// no admin existed before, the same transaction deletes every other invite: before the first admin, invites are the
    /// setup links printed at each start (console output that logs keep), and none of them should make a second admin
    /// later. Once there is an admin, more are invited with `passkey-server admin invite`.
    /// - Throws: `not_found` when the invite is gone or expired at `now` (nothing is written), `credential_exists`
    ///   when the credential ID is registered as an admin passkey already.
    func addAdmin(_ admin: AdminRecord, credential: CredentialRecordEntry, consumingInvite inviteHash: [UInt8], now: Date)
        async throws(StorageError)

    func adminCredential(id: [UInt8]) async throws(StorageError) -> CredentialRecordEntry?
    func adminCredentials(adminID: String) async throws(StorageError) -> [CredentialRecordEntry]
    /// Records a verified admin sign-in: the new counter, backup state and last use.
    func recordAdminSignIn(credentialID: [UInt8], signCount: UInt32, backupState: Bool, at time: Date) async throws(StorageError)

    func saveAdminInvite(_ invite: AdminInviteRecord) async throws(StorageError)
    /// Stores a setup link's invite only while no admin exists, in one step with ``addAdmin(_:credential:consumingInvite:now:)``:
    /// either it is stored before a first admin is added (and that addition revokes it), or it finds the admin and is
    /// not stored. Returns whether it was stored. An instance starting while another one's first setup commits would
    /// otherwise print a link that outlives the revocation.
    func saveSetupInvite(_ invite: AdminInviteRecord) async throws(StorageError) -> Bool
    /// The unexpired invite with this hash, without consuming it.
    func adminInvite(hash: [UInt8], now: Date) async throws(StorageError) -> AdminInviteRecord?

    func saveAdminSession(_ session: AdminSessionRecord) async throws(StorageError)
    func adminSession(hash: [UInt8]) async throws(StorageError) -> AdminSessionRecord?
    /// Moves the session's last request (and, when given, its last passkey check).
    func touchAdminSession(hash: [UInt8], at time: Date, verified: Bool) async throws(StorageError)
    func deleteAdminSession(hash: [UInt8]) async throws(StorageError)
    /// Deletes sessions created before `createdBefore` or idle since before `idleBefore`, and expired invites.
    @discardableResult
    func purgeAdminSessions(createdBefore: Date, idleBefore: Date, now: Date) async throws(StorageError) -> Int
}
