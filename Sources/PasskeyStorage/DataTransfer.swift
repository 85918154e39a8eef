import Foundation
import PasskeyWire

/// One lasting record of a deployment: what `passkey-server export` writes and `import` reads, so that a deployment
/// can move from SQLite to PostgreSQL (or in from another passkey server) with every passkey still signing in.
///
/// Only lasting state is carried. Ceremonies in progress, connect tokens, used-token ids, admin sessions and invites
/// live minutes to hours and are left behind, as is the dashboard's event log.
public enum TransferRecord: Sendable, Hashable {
    /// An account, with the app's own user id it is linked to (connect), if any.
    case user(UserRecord, externalID: String?)
    /// A passkey of an account: its `userID` names a ``user(_:externalID:)`` record.
    case credential(CredentialRecordEntry)
    case admin(AdminRecord)
    /// A dashboard admin's passkey: its `userID` names an ``admin(_:)`` record.
    case adminCredential(CredentialRecordEntry)
    /// A backend API key: only its hash, as stored.
    case apiKey(APIKeyRecord)
    /// A key that signs `signedPasskeyData`, private key included: a secret.
    case signingKey(SigningKeyRecord)
    /// A server secret (the key that derives fake credential IDs for unknown usernames): a secret.
    case secret(name: String, value: [UInt8])

    /// Whether the record holds secret material (a private key or a server secret).
    public var isSecret: Bool {
        switch self {
        case .signingKey, .secret: true
        default: false
        }
    }

    /// Whether the record grants power over the server: who may sign in to the dashboard (admins and their passkeys),
    /// call the backend API (API keys), sign tokens backends trust (signing keys), predict its answers (secrets), or
    /// sign in as a user of the app (an account linked to the app's user id, which backends start sessions from).
    /// Exported only when asked for, and imported only from a file that says it carries them, when the operator asks
    /// for them too: a file from elsewhere must not plant any of these.
    public var grantsPower: Bool {
        switch self {
        case .user(_, let externalID): externalID != nil
        case .credential: false
        case .admin, .adminCredential, .apiKey, .signingKey, .secret: true
        }
    }

    /// The order records are written in, and must be imported in: an account before its passkeys, an admin before theirs.
    public var rank: Int {
        switch self {
        case .user: 0
        case .credential: 1
        case .admin: 2
        case .adminCredential: 3
        case .apiKey: 4
        case .signingKey: 5
        case .secret: 6
        }
    }
}

/// Copies a deployment's lasting records out and in.
public protocol TransferRepository: Sendable {
    /// Calls `body` with every lasting record, in ``TransferRecord/rank`` order, all read in one snapshot: the copy is
    /// consistent even while servers keep serving. Records are handed over one at a time, so a large deployment is
    /// never held in memory. The records that grant power over the server (``TransferRecord/grantsPower``: admins and
    /// their passkeys, API keys, signing keys, secrets) and accounts' links to app user ids only when `includingSecrets`. A `body` that throws ends the
    /// export with that error.
    func exportRecords(includingSecrets: Bool, _ body: @escaping @Sendable (TransferRecord) throws -> Void) async throws
    /// Writes `records` in one transaction: every one of them, or on the first conflict none. Records must come in
    /// ``TransferRecord/rank`` order (a passkey after its account).
    ///
    /// Nothing stored is ever changed or replaced, and nothing is added to a stored account: a passkey's account (an
    /// admin passkey's admin) must come in the same import, so that a file cannot give itself a way into an existing
    /// account. Signing keys are imported only into a database that has none (no server has signed with it yet):
    /// otherwise two keys would both be current. A secret of the same name and value as the stored one is skipped;
    /// with another value it is a conflict. The first admin imported into a database without admins revokes its
    /// pending admin invites, as the first admin's setup does (``AdminRepository/addAdmin(_:credential:consumingInvite:now:)``).
    /// - Throws: `record_exists` when an account, admin, API key, app user id, signing key or secret (with another
    ///   value) is stored under the same key, or signing keys come into a database that has its own;
    ///   `credential_exists` for a passkey ID registered already; `username_taken` for an account name another account
    ///   has (compared as sign-in compares them); `not_found` for a passkey whose account (or admin) is not in the
    ///   import. The reason names the record.
    ///
    /// With `dryRun`, everything is checked and written as for real, then rolled back: conflicts with what is stored
    /// are found, and nothing stays.
    func importRecords(_ records: [TransferRecord], dryRun: Bool) async throws(StorageError)
}

extension TransferRepository {
    public func importRecords(_ records: [TransferRecord]) async throws(StorageError) { try await importRecords(records, dryRun: false) }
}

/// Thrown inside a dry run's transaction, after its checks passed, to roll it back.
package struct DryRunRollback: Error {
    package init() {}
}

extension TransferRecord {
    /// The checks every store makes of an imported passkey (an admin's when `ofAdmin`): its ID is not `registered`
    /// already, and its owner is among `importedOwners`, the accounts (admins) the same import wrote.
    public static func checkPasskey(
        _ credential: CredentialRecordEntry, ofAdmin: Bool, registered: Bool, importedOwners: Set<String>
    ) throws(StorageError) {
        let what = ofAdmin ? "admin passkey" : "passkey"
        guard !registered else { throw StorageError(.credentialExists, "the \(what) \(Base64URL.encode(credential.id)) is registered already") }
        guard importedOwners.contains(credential.userID) else {
            throw StorageError(
                .notFound, "the \(what) \(Base64URL.encode(credential.id)) belongs to \(ofAdmin ? "admin" : "account") \(credential.userID), which is not in the import")
        }
    }

    /// Why an import's signing keys were refused.
    public static let ownSigningKeys =
        "the database has signing keys of its own (a server has run on it): import into a database no server has started on, or leave the signing keys out (export without --include-secrets)"
    /// Why an import's secret was refused.
    public static func otherSecret(_ name: String) -> String {
        "the secret \(name) exists with another value (a server has run on this database): import into a database no server has started on, or leave the secrets out (export without --include-secrets)"
    }
}
