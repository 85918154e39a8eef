import PasskeyStorage
import Foundation
import Logging
import PostgresNIO

/// What a migration run did.
public struct PostgresMigrationReport: Sendable, Hashable {
    /// Versions applied by this run, in order.
    public var applied: [Int]
    /// The newest version now in the database.
    public var current: Int
    /// Versions recorded in the database that this build does not know (a newer server migrated it).
    public var unknown: [Int]
}

/// Applies ``PostgresSchema/migrations`` that the database has not seen yet.
///
/// Safe when several instances start at once: everything runs in one transaction that first takes a transaction-level
/// advisory lock (`pg_advisory_xact_lock`), so one instance migrates while the others wait, then find nothing left to do.
/// The transaction-level lock is released by COMMIT or ROLLBACK, also when the connection breaks, so a crash mid-migration
/// can never leave the lock held by a pooled connection; and DDL is transactional in PostgreSQL, so a failed migration
/// leaves no half-made tables.
enum PostgresMigrator {
    /// The advisory lock key: "passkey" as ASCII in the low bytes, a constant shared by every version of the server.
    static let lockKey: Int64 = 0x7061_7373_6b65_79

    static func migrate(_ connection: PostgresConnection, schema: String?, logger: Logger) async throws -> PostgresMigrationReport {
        let report = try await migrateInTransaction(connection, schema: schema, logger: logger)
        // Accounts that instances of an earlier version created during a rolling upgrade get their username keys: row by
        // row, outside the migration's transaction, so an account registered meanwhile under the same key only leaves
        // that row without one (it is then found as before keys).
        if report.current >= PostgresSchema.usernameKeyVersion {
            try await PostgresSchema.fillUsernameKeys(connection, logger: logger)
        }
        // And the accounts they made without a name get the one their passkeys carry.
        if report.current >= PostgresSchema.unnamedAccountsVersion {
            try await PostgresSchema.nameUnnamedAccounts(connection, logger: logger)
        }
        return report
    }

    /// The versions `schema_migrations` records.
    static func appliedVersions(_ connection: PostgresConnection, logger: Logger) async throws -> Set<Int> {
        var seen = Set<Int>()
        for try await version in try await connection.query("SELECT version FROM schema_migrations", logger: logger).decode(Int.self) {
            seen.insert(version)
        }
        return seen
    }

    private static func migrateInTransaction(_ connection: PostgresConnection, schema: String?, logger: Logger) async throws
        -> PostgresMigrationReport
    {
        try await connection.withTransaction(logger: logger) { connection in
            // Waiting for another instance's migration may take longer than a query may.
            try await connection.query("SET LOCAL statement_timeout = 0", logger: logger)
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            if let schema {
                // Plain identifier, checked when the URL was read.
                try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)"), logger: logger)
            }
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL
                )
                """, logger: logger)
            let seen = try await appliedVersions(connection, logger: logger)
            var applied: [Int] = []
            for migration in PostgresSchema.migrations where !seen.contains(migration.version) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await migration.then?(connection, logger)
                let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
                try await connection.query(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (\(migration.version), \(migration.name), \(now))",
                    logger: logger)
                applied.append(migration.version)
                logger.info("applied migration", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
            }
            let known = Set(PostgresSchema.migrations.map(\.version))
            let all = seen.union(applied)
            return PostgresMigrationReport(
                applied: applied, current: all.max() ?? 0, unknown: all.subtracting(known).sorted())
        }
    }
}
