import Foundation

extension InMemoryRepository {
    public func exportRecords(includingSecrets: Bool, _ body: @escaping @Sendable (TransferRecord) throws -> Void) throws {
        // The actor runs nothing else meanwhile: the copy is a snapshot.
        for user in usersByID.values.sorted(by: { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }) {
            try body(.user(user, externalID: includingSecrets ? externalIDsByUserID[user.id] : nil))
        }
        for credential in Self.ordered(credentialsByID.values) { try body(.credential(credential)) }
        guard includingSecrets else { return }
        for admin in adminsByID.values.sorted(by: { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }) { try body(.admin(admin)) }
        for credential in Self.ordered(adminCredentialsByID.values) { try body(.adminCredential(credential)) }
        for key in apiKeysByID.values.sorted(by: { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }) { try body(.apiKey(key)) }
        for key in signingKeysByID.values.sorted(by: { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }) { try body(.signingKey(key)) }
        for (name, value) in secrets.sorted(by: { $0.key < $1.key }) { try body(.secret(name: name, value: value)) }
    }

    static func ordered(_ credentials: some Sequence<CredentialRecordEntry>) -> [CredentialRecordEntry] {
        credentials.sorted { $0.createdAt != $1.createdAt ? $0.createdAt < $1.createdAt : $0.id.lexicographicallyPrecedes($1.id) }
    }

    public func importRecords(_ records: [TransferRecord], dryRun: Bool) throws(StorageError) {
        // Checked and applied on copies: on a conflict nothing changes.
        var users = usersByID
        var credentials = credentialsByID
        var externalIDs = externalIDsByUserID
        var admins = adminsByID
        var adminCredentials = adminCredentialsByID
        var apiKeys = apiKeysByID
        var signingKeys = signingKeysByID
        var secrets = self.secrets
        var importedUsers: Set<String> = []
        var importedAdmins: Set<String> = []
        let hadSigningKeys = !signingKeysByID.isEmpty
        let hadAdmins = !adminsByID.isEmpty
        for record in records {
            switch record {
            case .user(let user, let externalID):
                guard users[user.id] == nil else { throw StorageError(.recordExists, "an account with the user id \(user.id) exists") }
                guard !users.values.contains(where: { $0.userHandle == user.userHandle }) else {
                    throw StorageError(.recordExists, "the user handle of account \(user.id) belongs to another account")
                }
                if let name = user.username, let other = users.values.first(where: { $0.username.map(UsernameKey.of) == UsernameKey.of(name) }) {
                    throw StorageError(.usernameTaken, "the username of account \(user.id) belongs to account \(other.id)")
                }
                if let externalID {
                    guard !externalIDs.values.contains(where: { $0.utf8.elementsEqual(externalID.utf8) }) else {
                        throw StorageError(.recordExists, "the app user id of account \(user.id) is linked to another account")
                    }
                    externalIDs[user.id] = externalID
                }
                users[user.id] = user
                importedUsers.insert(user.id)
            case .credential(let credential):
                try TransferRecord.checkPasskey(credential, ofAdmin: false, registered: credentials[credential.id] != nil, importedOwners: importedUsers)
                credentials[credential.id] = credential
                users[credential.userID]?.noteUse(at: credential.lastUsedAt)
            case .admin(let admin):
                guard admins[admin.id] == nil, !admins.values.contains(where: { $0.userHandle == admin.userHandle }) else {
                    throw StorageError(.recordExists, "an admin with the id or user handle of admin \(admin.id) exists")
                }
                admins[admin.id] = admin
                importedAdmins.insert(admin.id)
            case .adminCredential(let credential):
                try TransferRecord.checkPasskey(
                    credential, ofAdmin: true, registered: adminCredentials[credential.id] != nil, importedOwners: importedAdmins)
                adminCredentials[credential.id] = credential
            case .apiKey(let key):
                guard apiKeys[key.id] == nil, !apiKeys.values.contains(where: { $0.secretHash == key.secretHash }) else {
                    throw StorageError(.recordExists, "an API key with the id or secret of \(key.id) exists")
                }
                apiKeys[key.id] = key
            case .signingKey(let key):
                guard !hadSigningKeys else { throw StorageError(.recordExists, TransferRecord.ownSigningKeys) }
                guard signingKeys[key.id] == nil else { throw StorageError(.recordExists, "a signing key with the id \(key.id) exists") }
                signingKeys[key.id] = key
            case .secret(let name, let value):
                if let stored = secrets[name] {
                    guard stored == value else { throw StorageError(.recordExists, TransferRecord.otherSecret(name)) }
                } else {
                    secrets[name] = value
                }
            }
        }
        // Accounts the file brought without a name get the one their passkeys carry, as the databases give it.
        Self.nameUnnamed(&users, imported: importedUsers)
        guard !dryRun else { return }
        usersByID = users
        credentialsByID = credentials
        externalIDsByUserID = externalIDs
        adminsByID = admins
        adminCredentialsByID = adminCredentials
        apiKeysByID = apiKeys
        signingKeysByID = signingKeys
        self.secrets = secrets
        if !hadAdmins, !importedAdmins.isEmpty { adminInvitesByHash = [:] }
        // As the databases' triggers report imported rows.
        for record in records {
            switch record {
            case .user(let user, _): reportWebhook(.userCreated, user: usersByID[user.id] ?? user)
            case .credential(let credential):
                reportWebhook(.passkeyCreated, user: usersByID[credential.userID], credential: credential, detail: credential.aaguid)
            default: break
            }
        }
    }

    /// Names the imported accounts stored without one, oldest first: the name their passkeys carry, or the longer one
    /// their handle gives when another account holds it (as the databases' `nameUnnamedAccounts`).
    static func nameUnnamed(_ users: inout [String: UserRecord], imported: Set<String>) {
        var taken = Set(users.values.compactMap { $0.username.map(UsernameKey.of) })
        let unnamed = imported.compactMap { users[$0] }.filter { $0.username == nil }
            .sorted { $0.createdAt != $1.createdAt ? $0.createdAt < $1.createdAt : $0.id < $1.id }
        for user in unnamed {
            for name in [GeneratedUsername.legacy(userHandle: user.userHandle), GeneratedUsername.make(userHandle: user.userHandle)] {
                guard !taken.contains(UsernameKey.of(name)) else { continue }
                taken.insert(UsernameKey.of(name))
                users[user.id]?.username = name
                break
            }
        }
    }
}
