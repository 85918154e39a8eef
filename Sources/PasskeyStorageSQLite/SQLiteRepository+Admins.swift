public import Foundation
public import PasskeyStorage
import GRDB

extension SQLiteRepository {
    static let adminColumns = "id, user_handle, name, created_at"
    static let adminSessionColumns = "hash, admin_id, created_at, last_seen_at, verified_at"

    static func admin(_ row: Row) throws -> AdminRecord {
        AdminRecord(
            id: try row.decode(String.self, atIndex: 0), userHandle: [UInt8](try row.decode(Data.self, atIndex: 1)),
            name: try row.decode(String.self, atIndex: 2), createdAt: SQLiteSchema.date(try row.decode(Int64.self, atIndex: 3)))
    }

    public func admins() async throws(StorageError) -> [AdminRecord] {
        try await read { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT \(Self.adminColumns) FROM admins ORDER BY created_at, id")).map(Self.admin)
        }
    }

    public func admin(id: String) async throws(StorageError) -> AdminRecord? {
        try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.adminColumns) FROM admins WHERE id = ?"), arguments: [id]).map(Self.admin)
        }
    }

    public func admin(userHandle: [UInt8]) async throws(StorageError) -> AdminRecord? {
        try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.adminColumns) FROM admins WHERE user_handle = ?"), arguments: [Data(userHandle)])
                .map(Self.admin)
        }
    }

    public func addAdmin(_ admin: AdminRecord, credential: CredentialRecordEntry, consumingInvite inviteHash: [UInt8], now: Date)
        async throws(StorageError)
    {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM admin_invites WHERE hash = ? AND expires_at > ?")
                .execute(arguments: [Data(inviteHash), SQLiteSchema.milliseconds(now)])
            guard db.changesCount == 1 else { throw StorageError(.notFound, "the admin invite is used or expired") }
            if try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM admin_credentials WHERE id = ?"), arguments: [Data(credential.id)]) == true {
                throw StorageError(.credentialExists, "admin credential ID already registered")
            }
            // The first admin: the other setup links go (see AdminRepository.addAdmin).
            if try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM admins LIMIT 1")) != true {
                try db.cachedStatement(sql: "DELETE FROM admin_invites").execute()
            }
            try Self.insert(admin, db)
            try credential.insert(db, table: "admin_credentials")
        }
    }

    static func insert(_ admin: AdminRecord, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO admins (\(adminColumns)) VALUES (?, ?, ?, ?)").execute(arguments: [
            admin.id, Data(admin.userHandle), admin.name, SQLiteSchema.milliseconds(admin.createdAt),
        ])
    }

    public func adminCredential(id: [UInt8]) async throws(StorageError) -> CredentialRecordEntry? {
        try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(SQLiteSchema.credentialColumns) FROM admin_credentials WHERE id = ?"), arguments: [Data(id)])
                .map(CredentialRecordEntry.init(row:))
        }
    }

    public func adminCredentials(adminID: String) async throws(StorageError) -> [CredentialRecordEntry] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT \(SQLiteSchema.credentialColumns) FROM admin_credentials WHERE user_id = ? ORDER BY created_at, id"),
                arguments: [adminID]
            ).map(CredentialRecordEntry.init(row:))
        }
    }

    public func recordAdminSignIn(credentialID: [UInt8], signCount: UInt32, backupState: Bool, at time: Date) async throws(StorageError) {
        let changed = try await write { db in
            try db.cachedStatement(sql: "UPDATE admin_credentials SET sign_count = ?, backup_state = ?, last_used_at = ? WHERE id = ?")
                .execute(arguments: [Int64(signCount), backupState, SQLiteSchema.milliseconds(time), Data(credentialID)])
            return db.changesCount
        }
        guard changed == 1 else { throw StorageError(.notFound, "no such admin credential") }
    }

    public func saveAdminInvite(_ invite: AdminInviteRecord) async throws(StorageError) {
        try await write { db in
            try db.cachedStatement(sql: "INSERT INTO admin_invites (hash, created_at, expires_at) VALUES (?, ?, ?)").execute(arguments: [
                Data(invite.hash), SQLiteSchema.milliseconds(invite.createdAt), SQLiteSchema.milliseconds(invite.expiresAt),
            ])
        }
    }

    /// One statement on the single writer, which also adds admins: no first setup can commit in between.
    public func saveSetupInvite(_ invite: AdminInviteRecord) async throws(StorageError) -> Bool {
        try await write { db in
            try db.cachedStatement(
                sql: "INSERT INTO admin_invites (hash, created_at, expires_at) SELECT ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM admins)"
            ).execute(arguments: [Data(invite.hash), SQLiteSchema.milliseconds(invite.createdAt), SQLiteSchema.milliseconds(invite.expiresAt)])
            return db.changesCount == 1
        }
    }

    public func adminInvite(hash: [UInt8], now: Date) async throws(StorageError) -> AdminInviteRecord? {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT hash, created_at, expires_at FROM admin_invites WHERE hash = ? AND expires_at > ?"),
                arguments: [Data(hash), SQLiteSchema.milliseconds(now)]
            ).map { row in
                AdminInviteRecord(
                    hash: [UInt8](try row.decode(Data.self, atIndex: 0)), createdAt: SQLiteSchema.date(try row.decode(Int64.self, atIndex: 1)),
                    expiresAt: SQLiteSchema.date(try row.decode(Int64.self, atIndex: 2)))
            }
        }
    }

    public func saveAdminSession(_ session: AdminSessionRecord) async throws(StorageError) {
        try await write { db in
            try db.cachedStatement(sql: "INSERT INTO admin_sessions (\(Self.adminSessionColumns)) VALUES (?, ?, ?, ?, ?)").execute(arguments: [
                Data(session.hash), session.adminID, SQLiteSchema.milliseconds(session.createdAt), SQLiteSchema.milliseconds(session.lastSeenAt),
                SQLiteSchema.milliseconds(session.verifiedAt),
            ])
        }
    }

    public func adminSession(hash: [UInt8]) async throws(StorageError) -> AdminSessionRecord? {
        try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.adminSessionColumns) FROM admin_sessions WHERE hash = ?"), arguments: [Data(hash)])
                .map { row in
                    AdminSessionRecord(
                        hash: [UInt8](try row.decode(Data.self, atIndex: 0)), adminID: try row.decode(String.self, atIndex: 1),
                        createdAt: SQLiteSchema.date(try row.decode(Int64.self, atIndex: 2)),
                        lastSeenAt: SQLiteSchema.date(try row.decode(Int64.self, atIndex: 3)),
                        verifiedAt: SQLiteSchema.date(try row.decode(Int64.self, atIndex: 4)))
                }
        }
    }

    public func touchAdminSession(hash: [UInt8], at time: Date, verified: Bool) async throws(StorageError) {
        try await write { db in
            let time = SQLiteSchema.milliseconds(time)
            if verified {
                try db.cachedStatement(sql: "UPDATE admin_sessions SET last_seen_at = ?, verified_at = ? WHERE hash = ?")
                    .execute(arguments: [time, time, Data(hash)])
            } else {
                try db.cachedStatement(sql: "UPDATE admin_sessions SET last_seen_at = ? WHERE hash = ?").execute(arguments: [time, Data(hash)])
            }
        }
    }

    public func deleteAdminSession(hash: [UInt8]) async throws(StorageError) {
        try await write { db in try db.cachedStatement(sql: "DELETE FROM admin_sessions WHERE hash = ?").execute(arguments: [Data(hash)]) }
    }

    public func purgeAdminSessions(createdBefore: Date, idleBefore: Date, now: Date) async throws(StorageError) -> Int {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM admin_sessions WHERE created_at < ? OR last_seen_at < ?")
                .execute(arguments: [SQLiteSchema.milliseconds(createdBefore), SQLiteSchema.milliseconds(idleBefore)])
            var purged = db.changesCount
            try db.cachedStatement(sql: "DELETE FROM admin_invites WHERE expires_at <= ?").execute(arguments: [SQLiteSchema.milliseconds(now)])
            purged += db.changesCount
            return purged
        }
    }
}
