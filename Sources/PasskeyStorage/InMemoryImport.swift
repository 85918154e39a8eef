/// The in-memory repository's records as an import changes them. The import works on these copies, so a conflict
/// anywhere in the file changes nothing; the repository takes them over only when every record fits.
struct InMemoryImport {
    var users: [String: UserRecord]
    var credentials: [[UInt8]: CredentialRecordEntry]
    var externalIDs: [String: String]
    var admins: [String: AdminRecord]
    var adminCredentials: [[UInt8]: CredentialRecordEntry]
    var apiKeys: [String: APIKeyRecord]
    var signingKeys: [String: SigningKeyRecord]
    var secrets: [String: [UInt8]]
    private(set) var importedUsers: Set<String> = []
    private(set) var importedAdmins: Set<String> = []
    /// A server keeps the signing keys it has; a file's keys are taken only by one that has none yet.
    private let hadSigningKeys: Bool

    init(
        users: [String: UserRecord], credentials: [[UInt8]: CredentialRecordEntry], externalIDs: [String: String],
        admins: [String: AdminRecord], adminCredentials: [[UInt8]: CredentialRecordEntry], apiKeys: [String: APIKeyRecord],
        signingKeys: [String: SigningKeyRecord], secrets: [String: [UInt8]]
    ) {
        self.users = users
        self.credentials = credentials
        self.externalIDs = externalIDs
        self.admins = admins
        self.adminCredentials = adminCredentials
        self.apiKeys = apiKeys
        self.signingKeys = signingKeys
        self.secrets = secrets
        hadSigningKeys = !signingKeys.isEmpty
    }

    /// Adds one record, or refuses it as the databases' constraints would.
    mutating func add(_ record: TransferRecord) throws(StorageError) {
        switch record {
        case .user(let user, let externalID):
            try addUser(user, externalID: externalID)
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

    private mutating func addUser(_ user: UserRecord, externalID: String?) throws(StorageError) {
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
    }
}
