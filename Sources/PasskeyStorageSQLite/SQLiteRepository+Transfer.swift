import Foundation
public import PasskeyStorage
import GRDB

extension SQLiteRepository {
    public func exportRecords(includingSecrets: Bool, _ body: @escaping @Sendable (TransferRecord) throws -> Void) async throws {
        // A read of a pool runs in a transaction of its own: one snapshot of the file while the writer goes on.
        try await pool.read { db in
            let users = try Row.fetchCursor(
                db,
                sql: """
                    SELECT \(SQLiteSchema.userColumns), external_users.external_id FROM users
                    LEFT JOIN external_users ON external_users.user_id = users.id ORDER BY users.created_at, users.id
                    """)
            while let row = try users.next() {
                try body(.user(try UserRecord(row: row), externalID: includingSecrets ? try row.optionalText(SQLiteSchema.userColumnCount) : nil))
            }
            let credentials = try Row.fetchCursor(db, sql: "SELECT \(SQLiteSchema.credentialColumns) FROM credentials ORDER BY created_at, id")
            while let row = try credentials.next() { try body(.credential(try CredentialRecordEntry(row: row))) }
            guard includingSecrets else { return }
            let admins = try Row.fetchCursor(db, sql: "SELECT \(Self.adminColumns) FROM admins ORDER BY created_at, id")
            while let row = try admins.next() { try body(.admin(try Self.admin(row))) }
            let adminCredentials = try Row.fetchCursor(
                db, sql: "SELECT \(SQLiteSchema.credentialColumns) FROM admin_credentials ORDER BY created_at, id")
            while let row = try adminCredentials.next() { try body(.adminCredential(try CredentialRecordEntry(row: row))) }
            let apiKeys = try Row.fetchCursor(db, sql: "SELECT \(Self.apiKeyColumns) FROM api_keys ORDER BY created_at, id")
            while let row = try apiKeys.next() { try body(.apiKey(try Self.apiKey(row))) }
            let signingKeys = try Row.fetchCursor(db, sql: "SELECT \(Self.signingKeyColumns) FROM signing_keys ORDER BY created_at, id")
            while let row = try signingKeys.next() { try body(.signingKey(try Self.signingKey(row))) }
            let secrets = try Row.fetchCursor(db, sql: "SELECT name, value FROM secrets ORDER BY name")
            while let row = try secrets.next() { try body(.secret(name: try row.text(0), value: try row.blob(1))) }
        }
    }

    public func importRecords(_ records: [TransferRecord], dryRun: Bool) async throws(StorageError) {
        // One savepoint of the writer: a conflict (or a dry run's end) rolls back every record of the import and
        // nothing else.
        do {
            try await writer.write { db, _ in
            let hadAdmins = try Bool.fetchOne(db, sql: "SELECT 1 FROM admins LIMIT 1") == true
            var imported = ImportedOwners(hadSigningKeys: try Bool.fetchOne(db, sql: "SELECT 1 FROM signing_keys LIMIT 1") == true)
            for record in records { try Self.importRecord(record, db, &imported) }
            // Accounts the file brought without a name get the one their passkeys carry, as at every open.
            try SQLiteSchema.nameUnnamedAccounts(db)
            // The first admins: pending setup links go, as when the first admin sets up (AdminRepository.addAdmin).
            if !hadAdmins, !imported.admins.isEmpty { try db.execute(sql: "DELETE FROM admin_invites") }
            if dryRun { throw DryRunRollback() }
            }
        } catch is DryRunRollback {
            return
        } catch {
            throw Self.map(error)
        }
    }

    /// What an import has written so far: the owners its passkeys may belong to.
    struct ImportedOwners {
        let hadSigningKeys: Bool
        var users: Set<String> = []
        var admins: Set<String> = []
    }

    static func importRecord(_ record: TransferRecord, _ db: Database, _ imported: inout ImportedOwners) throws {
        func exists(_ sql: String, _ arguments: StatementArguments) throws -> Bool {
            try Bool.fetchOne(db.cachedStatement(sql: sql), arguments: arguments) == true
        }
        switch record {
        case .user(let user, let externalID):
            if try exists("SELECT 1 FROM users WHERE id = ?", [user.id]) {
                throw StorageError(.recordExists, "an account with the user id \(user.id) exists")
            }
            if try exists("SELECT 1 FROM users WHERE user_handle = ?", [Data(user.userHandle)]) {
                throw StorageError(.recordExists, "the user handle of account \(user.id) belongs to another account")
            }
            if let name = user.username,
                let other = try String.fetchOne(
                    db.cachedStatement(sql: "SELECT id FROM users WHERE \(SQLiteSchema.usernameMatch)"), arguments: [UsernameKey.of(name), name])
            {
                throw StorageError(.usernameTaken, "the username of account \(user.id) belongs to account \(other)")
            }
            try user.insert(db)
            if let externalID {
                if try exists("SELECT 1 FROM external_users WHERE external_id = ?", [externalID]) {
                    throw StorageError(.recordExists, "the app user id of account \(user.id) is linked to another account")
                }
                try db.cachedStatement(sql: "INSERT INTO external_users (external_id, user_id) VALUES (?, ?)").execute(arguments: [externalID, user.id])
            }
            imported.users.insert(user.id)
        case .credential(let credential):
            try importCredential(credential, db, ofAdmin: false, owners: imported.users)
        case .admin(let admin):
            if try exists("SELECT 1 FROM admins WHERE id = ? OR user_handle = ?", [admin.id, Data(admin.userHandle)]) {
                throw StorageError(.recordExists, "an admin with the id or user handle of admin \(admin.id) exists")
            }
            try insert(admin, db)
            imported.admins.insert(admin.id)
        case .adminCredential(let credential):
            try importCredential(credential, db, ofAdmin: true, owners: imported.admins)
        case .apiKey(let key):
            if try exists("SELECT 1 FROM api_keys WHERE id = ? OR secret_hash = ?", [key.id, Data(key.secretHash)]) {
                throw StorageError(.recordExists, "an API key with the id or secret of \(key.id) exists")
            }
            try insert(key, db)
        case .signingKey(let key):
            if imported.hadSigningKeys { throw StorageError(.recordExists, TransferRecord.ownSigningKeys) }
            if try exists("SELECT 1 FROM signing_keys WHERE id = ?", [key.id]) {
                throw StorageError(.recordExists, "a signing key with the id \(key.id) exists")
            }
            try insert(key, db)
        case .secret(let name, let value):
            if let stored = try Data.fetchOne(db.cachedStatement(sql: "SELECT value FROM secrets WHERE name = ?"), arguments: [name]) {
                guard [UInt8](stored) == value else { throw StorageError(.recordExists, TransferRecord.otherSecret(name)) }
            } else {
                try db.cachedStatement(sql: "INSERT INTO secrets (name, value) VALUES (?, ?)").execute(arguments: [name, Data(value)])
            }
        }
    }

    /// A passkey of an account (`credentials`) or of an admin (`admin_credentials`), whose owner the import wrote.
    static func importCredential(_ credential: CredentialRecordEntry, _ db: Database, ofAdmin: Bool, owners: Set<String>) throws {
        let table = ofAdmin ? "admin_credentials" : "credentials"
        let registered = try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM \(table) WHERE id = ?"), arguments: [Data(credential.id)]) == true
        try TransferRecord.checkPasskey(credential, ofAdmin: ofAdmin, registered: registered, importedOwners: owners)
        try credential.insert(db, table: table)
    }
}
