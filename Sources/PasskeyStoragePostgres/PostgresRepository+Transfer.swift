import Foundation
public import PasskeyStorage
import PostgresNIO

extension PostgresRepository: TransferRepository {
    /// An export or import may take minutes on a large deployment: it gets this long instead of the query timeout.
    static let transferTimeout: Duration = .seconds(3_600)

    public func exportRecords(includingSecrets: Bool, _ body: @escaping @Sendable (TransferRecord) throws -> Void) async throws {
        let logger = self.logger
        let client = self.client
        /// Tells the caller's own error (a full disk) from the database's.
        struct BodyError: Error { let underlying: any Error }
        @Sendable func each(_ connection: PostgresConnection, _ query: PostgresQuery, _ make: (PostgresRow) throws -> TransferRecord) async throws {
            for try await row in try await connection.query(query, logger: logger) {
                let record = try make(row)
                do { try body(record) } catch { throw BodyError(underlying: error) }
            }
        }
        do {
            try await Deadline.run(Self.transferTimeout, what: "export", watch: deadlines) {
                try await client.withConnection { connection in
                    // One snapshot for every table: servers may go on writing meanwhile.
                    try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
                    do {
                        // Pooled connections carry the query timeout as statement_timeout: a large table's read may take longer.
                        try await connection.query(Self.transferStatementTimeout, logger: logger)
                        try await each(
                            connection,
                            """
                            SELECT \(unescaped: PostgresSchema.userColumns(of: "u")), e.external_id FROM users u
                            LEFT JOIN external_users e ON e.user_id = u.id ORDER BY u.created_at, u.id
                            """
                        ) { row in
                            let reader = PostgresRowReader(row)
                            return .user(
                                try UserRecord(reader), externalID: includingSecrets ? try reader.optional(UserRecord.columnCount, String.self) : nil)
                        }
                        try await each(connection, "SELECT \(unescaped: PostgresSchema.credentialColumns) FROM credentials ORDER BY created_at, id") {
                            .credential(try CredentialRecordEntry(PostgresRowReader($0)))
                        }
                        if includingSecrets {
                            try await each(connection, "SELECT \(unescaped: Self.adminColumns) FROM admins ORDER BY created_at, id") {
                                .admin(try Self.admin(PostgresRowReader($0)))
                            }
                            try await each(
                                connection, "SELECT \(unescaped: PostgresSchema.credentialColumns) FROM admin_credentials ORDER BY created_at, id"
                            ) { .adminCredential(try CredentialRecordEntry(PostgresRowReader($0))) }
                            try await each(connection, "SELECT \(unescaped: Self.apiKeyColumns) FROM api_keys ORDER BY created_at, id") {
                                .apiKey(try Self.apiKey(PostgresRowReader($0)))
                            }
                            try await each(connection, "SELECT \(unescaped: Self.signingKeyColumns) FROM signing_keys ORDER BY created_at, id") {
                                .signingKey(try Self.signingKey(PostgresRowReader($0)))
                            }
                            try await each(connection, "SELECT name, value FROM secrets ORDER BY name") { row in
                                let reader = PostgresRowReader(row)
                                return .secret(name: try reader.value(0, String.self), value: try reader.bytes(1))
                            }
                        }
                        try await connection.query("COMMIT", logger: logger)
                    } catch {
                        _ = try? await connection.query("ROLLBACK", logger: logger)
                        throw error
                    }
                }
            }
        } catch let error as BodyError {
            throw error.underlying
        } catch {
            throw PostgresErrorMapping.map(error, "export")
        }
    }

    public func importRecords(_ records: [TransferRecord], dryRun: Bool) async throws(StorageError) {
        let logger = self.logger
        let client = self.client
        do {
            try await Deadline.run(Self.transferTimeout, what: "import", watch: deadlines) {
                try await client.withConnection { connection in
                    try await connection.withTransaction(logger: logger) { connection in
                        try await connection.query(Self.transferStatementTimeout, logger: logger)
                        let hadAdmins = try await !connection.rows("SELECT 1 FROM admins LIMIT 1", logger).isEmpty
                        var imported = ImportedOwners(hadSigningKeys: try await !connection.rows("SELECT 1 FROM signing_keys LIMIT 1", logger).isEmpty)
                        var batch: [TransferRecord] = []
                        for record in records {
                            switch record {
                            case .user, .credential:
                                batch.append(record)
                                if batch.count == Self.importBatchSize {
                                    try await Self.importBatch(batch, connection, &imported, logger: logger)
                                    batch.removeAll(keepingCapacity: true)
                                }
                            default:
                                try await Self.importBatch(batch, connection, &imported, logger: logger)
                                batch.removeAll(keepingCapacity: true)
                                try await Self.importRecord(record, connection, &imported, logger: logger)
                            }
                        }
                        try await Self.importBatch(batch, connection, &imported, logger: logger)
                        // The first admins: pending setup links go, as when the first admin sets up (AdminRepository.addAdmin).
                        if !hadAdmins, !imported.admins.isEmpty { try await connection.query("DELETE FROM admin_invites", logger: logger) }
                        if dryRun { throw DryRunRollback() }
                    }
                    // Accounts the file brought without a name get the one their passkeys carry, as at every start. The
                    // import is committed: a failure here leaves them to the next start.
                    do {
                        try await PostgresSchema.nameUnnamedAccounts(connection, logger: logger)
                    } catch {
                        logger.warning("imported accounts without a name are named at the next start", metadata: ["error": "\(PostgresErrorMapping.describe(error))"])
                    }
                    // Statistics for the tables' new size before the first sign-ins are planned: until autovacuum
                    // gets to them (up to a minute later), tables never analysed are planned as nearly empty. A
                    // sample of each table, not a scan. The import is committed: a failure here only delays that.
                    do {
                        try await connection.query("ANALYZE users, credentials, external_users", logger: logger)
                    } catch {
                        logger.warning("the imported tables were not analysed; autovacuum will", metadata: ["error": "\(PostgresErrorMapping.describe(error))"])
                    }
                }
            }
        } catch let error as PostgresTransactionError where error.closureError is DryRunRollback {
            // The checks passed; whether or not the ROLLBACK itself got through, nothing was committed.
            return
        } catch {
            // Another writer stored a record with one of the import's keys after the import checked for it: the
            // transaction rolled back, and the outcome is known.
            if PostgresErrorMapping.sqlState(of: error) == "23505" {
                throw StorageError(.recordExists, "another writer stored a record with one of the import's keys meanwhile: run the import again to see which")
            }
            throw PostgresErrorMapping.map(error, "import")
        }
    }

    /// Lifts the pool's statement timeout for the rest of the transaction (the call's own deadline still applies).
    static let transferStatementTimeout: PostgresQuery = "SET LOCAL statement_timeout = 0"

    /// What an import has written so far: the owners its passkeys may belong to.
    struct ImportedOwners {
        let hadSigningKeys: Bool
        var users: Set<String> = []
        var admins: Set<String> = []
    }

    /// Accounts and passkeys go in batches of this many records: each batch's checks are a few queries and its rows one
    /// `INSERT` per table, where a round trip per check and per row made a million accounts take over 20 minutes.
    static let importBatchSize = 500

    /// Imports consecutive account and passkey records with the checks, the order and the errors of one record at a
    /// time: each is checked against the database (which holds the earlier batches) and against the batch's records
    /// before it, then the batch is written.
    static func importBatch(
        _ records: [TransferRecord], _ connection: PostgresConnection, _ imported: inout ImportedOwners, logger: Logger
    ) async throws {
        guard !records.isEmpty else { return }
        var users: [UserRecord] = []
        var links: [(externalID: String, userID: String)] = []
        var credentials: [CredentialRecordEntry] = []
        for record in records {
            switch record {
            case .user(let user, let externalID):
                users.append(user)
                if let externalID { links.append((externalID, user.id)) }
            case .credential(let credential): credentials.append(credential)
            default: continue
            }
        }
        func column(_ query: PostgresQuery) async throws -> [PostgresRow] { try await connection.rows(query, logger) }
        // What the database already holds of the batch's keys.
        var userIDs = Set(try await column("SELECT id FROM users WHERE id = ANY(\(users.map(\.id)))").map { try PostgresRowReader($0).value(0, String.self) })
        var handles = Set(try await column("SELECT user_handle FROM users WHERE user_handle = ANY(\(users.map { ByteBuffer($0.userHandle) }))").map { try PostgresRowReader($0).bytes(0) })
        let named = users.compactMap { user in user.username.map { (name: $0, key: UsernameKey.of($0)) } }
        // The same match as PostgresSchema.userNamed, for every name of the batch in one statement.
        let nameOwners = try await column(#"""
            SELECT n.position, u.id FROM unnest(\#(named.map(\.name))::text[], \#(named.map(\.key))::text[]) WITH ORDINALITY AS n(name, key, position)
            CROSS JOIN LATERAL (
                SELECT id FROM users
                WHERE username_key = n.key OR (username_key IS NULL AND lower(username COLLATE "C") = lower(n.name COLLATE "C"))
                ORDER BY username_key IS NULL LIMIT 1
            ) u
            """#)
        var ownerOfKey: [String: String] = [:]
        for row in nameOwners {
            let reader = PostgresRowReader(row)
            let position = Int(try reader.value(0, Int64.self)) - 1
            if named.indices.contains(position) { ownerOfKey[named[position].key] = try reader.value(1, String.self) }
        }
        var externalIDs = Set(try await column("SELECT external_id FROM external_users WHERE external_id = ANY(\(links.map(\.externalID)))").map { try PostgresRowReader($0).value(0, String.self) })
        var registered = Set(try await column("SELECT id FROM credentials WHERE id = ANY(\(credentials.map { ByteBuffer($0.id) }))").map { try PostgresRowReader($0).bytes(0) })
        // The checks, in the file's order.
        for record in records {
            switch record {
            case .user(let user, let externalID):
                guard userIDs.insert(user.id).inserted else {
                    throw StorageError(.recordExists, "an account with the user id \(user.id) exists")
                }
                guard handles.insert(user.userHandle).inserted else {
                    throw StorageError(.recordExists, "the user handle of account \(user.id) belongs to another account")
                }
                if let name = user.username {
                    let key = UsernameKey.of(name)
                    if let other = ownerOfKey[key] {
                        throw StorageError(.usernameTaken, "the username of account \(user.id) belongs to account \(other)")
                    }
                    ownerOfKey[key] = user.id
                }
                if let externalID, !externalIDs.insert(externalID).inserted {
                    throw StorageError(.recordExists, "the app user id of account \(user.id) is linked to another account")
                }
                imported.users.insert(user.id)
            case .credential(let credential):
                try TransferRecord.checkPasskey(credential, ofAdmin: false, registered: registered.contains(credential.id), importedOwners: imported.users)
                registered.insert(credential.id)
            default: continue
            }
        }
        if !users.isEmpty { try await connection.query(insertUsers(users, ifNew: false), logger: logger) }
        if !links.isEmpty {
            try await connection.query(
                "INSERT INTO external_users (external_id, user_id) SELECT * FROM unnest(\(links.map(\.externalID))::text[], \(links.map(\.userID))::text[])",
                logger: logger)
        }
        if !credentials.isEmpty { try await connection.query(insertCredentials(credentials, table: "credentials"), logger: logger) }
    }

    /// The records an import writes one at a time: admins, their passkeys, API keys, signing keys and secrets.
    static func importRecord(
        _ record: TransferRecord, _ connection: PostgresConnection, _ imported: inout ImportedOwners, logger: Logger
    ) async throws {
        func exists(_ query: PostgresQuery) async throws -> Bool { try await !connection.rows(query, logger).isEmpty }
        switch record {
        case .user, .credential:
            try await importBatch([record], connection, &imported, logger: logger)
        case .admin(let admin):
            if try await exists("SELECT 1 FROM admins WHERE id = \(admin.id) OR user_handle = \(ByteBuffer(admin.userHandle))") {
                throw StorageError(.recordExists, "an admin with the id or user handle of admin \(admin.id) exists")
            }
            try await connection.query(insertAdmin(admin), logger: logger)
            imported.admins.insert(admin.id)
        case .adminCredential(let credential):
            try await importCredential(credential, connection, ofAdmin: true, owners: imported.admins, logger: logger)
        case .apiKey(let key):
            if try await exists("SELECT 1 FROM api_keys WHERE id = \(key.id) OR secret_hash = \(ByteBuffer(key.secretHash))") {
                throw StorageError(.recordExists, "an API key with the id or secret of \(key.id) exists")
            }
            try await connection.query(insertAPIKey(key), logger: logger)
        case .signingKey(let key):
            if imported.hadSigningKeys { throw StorageError(.recordExists, TransferRecord.ownSigningKeys) }
            if try await exists("SELECT 1 FROM signing_keys WHERE id = \(key.id)") {
                throw StorageError(.recordExists, "a signing key with the id \(key.id) exists")
            }
            try await connection.query(insertKey(key), logger: logger)
        case .secret(let name, let value):
            if let stored = try await connection.rows("SELECT value FROM secrets WHERE name = \(name)", logger).first {
                guard try PostgresRowReader(stored).bytes(0) == value else {
                    throw StorageError(.recordExists, TransferRecord.otherSecret(name))
                }
            } else {
                try await connection.query("INSERT INTO secrets (name, value) VALUES (\(name), \(ByteBuffer(value)))", logger: logger)
            }
        }
    }

    /// A passkey of an account (`credentials`) or of an admin (`admin_credentials`), whose owner the import wrote.
    static func importCredential(
        _ credential: CredentialRecordEntry, _ connection: PostgresConnection, ofAdmin: Bool, owners: Set<String>, logger: Logger
    ) async throws {
        let table = ofAdmin ? "admin_credentials" : "credentials"
        let registered = try await !connection.rows("SELECT 1 FROM \(unescaped: table) WHERE id = \(ByteBuffer(credential.id))", logger).isEmpty
        try TransferRecord.checkPasskey(credential, ofAdmin: ofAdmin, registered: registered, importedOwners: owners)
        try await connection.query(insertCredentials([credential], table: table), logger: logger)
    }
}
