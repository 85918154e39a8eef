public import Foundation
public import PasskeyStorage
import PostgresNIO

/// Dashboard admins, their passkeys, invites and sessions: shared by every instance, so a session opened on one is
/// valid on another.
extension PostgresRepository: AdminRepository {
    static let adminColumns = "id, user_handle, name, created_at"
    static let adminSessionColumns = "hash, admin_id, created_at, last_seen_at, verified_at"

    static func admin(_ row: PostgresRowReader) throws(StorageError) -> AdminRecord {
        AdminRecord(
            id: try row.value(0, String.self), userHandle: try row.bytes(1), name: try row.value(2, String.self), createdAt: try row.date(3))
    }

    func fetchAdmins(_ what: String, _ query: PostgresQuery) async throws(StorageError) -> [AdminRecord] {
        let logger = self.logger
        let rows = try await withConnection(what) { connection in try await connection.rows(query, logger) }
        var admins: [AdminRecord] = []
        for row in rows { admins.append(try Self.admin(PostgresRowReader(row))) }
        return admins
    }

    public func admins() async throws(StorageError) -> [AdminRecord] {
        try await fetchAdmins("admins", #"SELECT \#(unescaped: Self.adminColumns) FROM admins ORDER BY created_at, id COLLATE "C""#)
    }

    public func admin(id: String) async throws(StorageError) -> AdminRecord? {
        try await fetchAdmins("admin", "SELECT \(unescaped: Self.adminColumns) FROM admins WHERE id = \(id)").first
    }

    public func admin(userHandle: [UInt8]) async throws(StorageError) -> AdminRecord? {
        try await fetchAdmins("admin by handle", "SELECT \(unescaped: Self.adminColumns) FROM admins WHERE user_handle = \(ByteBuffer(userHandle))").first
    }

    public func addAdmin(_ admin: AdminRecord, credential: CredentialRecordEntry, consumingInvite inviteHash: [UInt8], now: Date)
        async throws(StorageError)
    {
        let logger = self.logger
        try await transaction("add admin") { connection in
            // One admin is added at a time: two first setups at once would each lock its own invite, then wait for the
            // other's in the revocation below (a deadlock). In turn, the second finds its link revoked (`not_found`).
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.addAdminLockKey))", logger: logger)
            let consumed = try await connection.rows(
                "DELETE FROM admin_invites WHERE hash = \(ByteBuffer(inviteHash)) AND expires_at > \(PostgresTime.milliseconds(now)) RETURNING 1",
                logger)
            guard !consumed.isEmpty else { throw StorageError(.notFound, "the admin invite is used or expired") }
            if try await !connection.rows("SELECT 1 FROM admin_credentials WHERE id = \(ByteBuffer(credential.id))", logger).isEmpty {
                throw StorageError(.credentialExists, "admin credential ID already registered")
            }
            // The first admin: the other setup links go (see AdminRepository.addAdmin).
            if try await connection.rows("SELECT 1 FROM admins LIMIT 1", logger).isEmpty {
                try await connection.query("DELETE FROM admin_invites", logger: logger)
            }
            try await connection.query(Self.insertAdmin(admin), logger: logger)
            try await connection.query(Self.insertCredentials([credential], table: "admin_credentials"), logger: logger)
        }
    }

    static func insertAdmin(_ admin: AdminRecord) -> PostgresQuery {
        """
        INSERT INTO admins (id, user_handle, name, created_at)
        VALUES (\(admin.id), \(ByteBuffer(admin.userHandle)), \(admin.name), \(PostgresTime.milliseconds(admin.createdAt)))
        """
    }

    /// The advisory lock key of ``addAdmin(_:credential:consumingInvite:now:)``: "passkey3" as ASCII.
    static let addAdminLockKey = Int64(0x7061_7373_6b65_7933)

    func fetchAdminCredentials(_ what: String, _ query: PostgresQuery) async throws(StorageError) -> [CredentialRecordEntry] {
        let logger = self.logger
        let rows = try await withConnection(what) { connection in try await connection.rows(query, logger) }
        var credentials: [CredentialRecordEntry] = []
        for row in rows { credentials.append(try CredentialRecordEntry(PostgresRowReader(row))) }
        return credentials
    }

    public func adminCredential(id: [UInt8]) async throws(StorageError) -> CredentialRecordEntry? {
        try await fetchAdminCredentials(
            "admin credential", "SELECT \(unescaped: PostgresSchema.credentialColumns) FROM admin_credentials WHERE id = \(ByteBuffer(id))"
        ).first
    }

    public func adminCredentials(adminID: String) async throws(StorageError) -> [CredentialRecordEntry] {
        try await fetchAdminCredentials(
            "admin credentials",
            "SELECT \(unescaped: PostgresSchema.credentialColumns) FROM admin_credentials WHERE user_id = \(adminID) ORDER BY created_at, id")
    }

    public func recordAdminSignIn(credentialID: [UInt8], signCount: UInt32, backupState: Bool, at time: Date) async throws(StorageError) {
        let logger = self.logger
        let changed = try await withConnection("record admin sign-in") { connection in
            try await connection.rows(
                """
                UPDATE admin_credentials SET sign_count = \(Int64(signCount)), backup_state = \(backupState),
                    last_used_at = \(PostgresTime.milliseconds(time))
                WHERE id = \(ByteBuffer(credentialID)) RETURNING 1
                """, logger
            ).count
        }
        guard changed == 1 else { throw StorageError(.notFound, "no such admin credential") }
    }

    public func saveAdminInvite(_ invite: AdminInviteRecord) async throws(StorageError) {
        let logger = self.logger
        try await withConnection("save admin invite") { connection in
            try await connection.query(
                """
                INSERT INTO admin_invites (hash, created_at, expires_at)
                VALUES (\(ByteBuffer(invite.hash)), \(PostgresTime.milliseconds(invite.createdAt)), \(PostgresTime.milliseconds(invite.expiresAt)))
                """, logger: logger)
        }
    }

    /// Under ``addAdminLockKey``, so a first setup that is committing finishes first; the insert's snapshot, taken after
    /// the lock, then sees its admin.
    public func saveSetupInvite(_ invite: AdminInviteRecord) async throws(StorageError) -> Bool {
        let logger = self.logger
        return try await transaction("save setup invite") { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.addAdminLockKey))", logger: logger)
            return try await !connection.rows(
                """
                INSERT INTO admin_invites (hash, created_at, expires_at)
                SELECT \(ByteBuffer(invite.hash)), \(PostgresTime.milliseconds(invite.createdAt)), \(PostgresTime.milliseconds(invite.expiresAt))
                WHERE NOT EXISTS (SELECT 1 FROM admins)
                RETURNING 1
                """, logger
            ).isEmpty
        }
    }

    public func adminInvite(hash: [UInt8], now: Date) async throws(StorageError) -> AdminInviteRecord? {
        let logger = self.logger
        let rows = try await withConnection("admin invite") { connection in
            try await connection.rows(
                """
                SELECT hash, created_at, expires_at FROM admin_invites
                WHERE hash = \(ByteBuffer(hash)) AND expires_at > \(PostgresTime.milliseconds(now))
                """, logger)
        }
        guard let row = rows.first else { return nil }
        let reader = PostgresRowReader(row)
        return AdminInviteRecord(hash: try reader.bytes(0), createdAt: try reader.date(1), expiresAt: try reader.date(2))
    }

    public func saveAdminSession(_ session: AdminSessionRecord) async throws(StorageError) {
        let logger = self.logger
        try await withConnection("save admin session") { connection in
            try await connection.query(
                """
                INSERT INTO admin_sessions (hash, admin_id, created_at, last_seen_at, verified_at)
                VALUES (\(ByteBuffer(session.hash)), \(session.adminID), \(PostgresTime.milliseconds(session.createdAt)),
                    \(PostgresTime.milliseconds(session.lastSeenAt)), \(PostgresTime.milliseconds(session.verifiedAt)))
                """, logger: logger)
        }
    }

    public func adminSession(hash: [UInt8]) async throws(StorageError) -> AdminSessionRecord? {
        let logger = self.logger
        let rows = try await withConnection("admin session") { connection in
            try await connection.rows("SELECT \(unescaped: Self.adminSessionColumns) FROM admin_sessions WHERE hash = \(ByteBuffer(hash))", logger)
        }
        guard let row = rows.first else { return nil }
        let reader = PostgresRowReader(row)
        return AdminSessionRecord(
            hash: try reader.bytes(0), adminID: try reader.value(1, String.self), createdAt: try reader.date(2),
            lastSeenAt: try reader.date(3), verifiedAt: try reader.date(4))
    }

    public func touchAdminSession(hash: [UInt8], at time: Date, verified: Bool) async throws(StorageError) {
        let logger = self.logger
        let milliseconds = PostgresTime.milliseconds(time)
        try await withConnection("touch admin session") { connection in
            try await connection.query(
                """
                UPDATE admin_sessions SET last_seen_at = \(milliseconds),
                    verified_at = CASE WHEN \(verified) THEN \(milliseconds) ELSE verified_at END
                WHERE hash = \(ByteBuffer(hash))
                """, logger: logger)
        }
    }

    public func deleteAdminSession(hash: [UInt8]) async throws(StorageError) {
        let logger = self.logger
        try await withConnection("delete admin session") { connection in
            try await connection.query("DELETE FROM admin_sessions WHERE hash = \(ByteBuffer(hash))", logger: logger)
        }
    }

    public func purgeAdminSessions(createdBefore: Date, idleBefore: Date, now: Date) async throws(StorageError) -> Int {
        let logger = self.logger
        return try await withConnection("purge admin sessions") { connection in
            let sessions = try await connection.rows(
                """
                DELETE FROM admin_sessions
                WHERE created_at < \(PostgresTime.milliseconds(createdBefore)) OR last_seen_at < \(PostgresTime.milliseconds(idleBefore))
                RETURNING 1
                """, logger
            ).count
            let invites = try await connection.rows(
                "DELETE FROM admin_invites WHERE expires_at <= \(PostgresTime.milliseconds(now)) RETURNING 1", logger
            ).count
            return sessions + invites
        }
    }
}
