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
        var draft = InMemoryImport(
            users: usersByID, credentials: credentialsByID, externalIDs: externalIDsByUserID, admins: adminsByID,
            adminCredentials: adminCredentialsByID, apiKeys: apiKeysByID, signingKeys: signingKeysByID, secrets: secrets)
        for record in records { try draft.add(record) }
        // Accounts the file brought without a name get the one their passkeys carry, as the databases give it.
        Self.nameUnnamed(&draft.users, imported: draft.importedUsers)
        guard !dryRun else { return }
        let hadAdmins = !adminsByID.isEmpty
        usersByID = draft.users
        credentialsByID = draft.credentials
        externalIDsByUserID = draft.externalIDs
        adminsByID = draft.admins
        adminCredentialsByID = draft.adminCredentials
        apiKeysByID = draft.apiKeys
        signingKeysByID = draft.signingKeys
        secrets = draft.secrets
        if !hadAdmins, !draft.importedAdmins.isEmpty { adminInvitesByHash = [:] }
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
