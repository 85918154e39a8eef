import Foundation
import Logging
import PasskeyServer
import PasskeyStorage
import PasskeyStoragePostgres
import PasskeyStorageSQLite

/// Brings a database's schema up to date without serving: what `passkey-server migrate` runs, for deployments that
/// migrate in a release step before rolling out new instances. Serving migrates too, so the step is optional.
///
/// - Returns: a line saying what was done, for the terminal, and one for each account that a lookup by name cannot find
///   because an older account's name is the same under today's username rules (``UsernameCollisionReport``).
func migrateDatabase(_ url: DatabaseURL, logger: Logger) async throws -> String {
    switch url {
    case .postgres(let configuration):
        let repository = try await PostgresRepository.connect(configuration, migrate: false, logger: logger)
        let report: PostgresMigrationReport
        let collisions: [UsernameCollision]
        do {
            report = try await repository.migrate()
            collisions = try await repository.usernameCollisions()
        } catch {
            await repository.shutdown()
            throw error
        }
        await repository.shutdown()
        let applied = report.applied.isEmpty ? "already up to date" : "applied \(report.applied.map(String.init).joined(separator: ", "))"
        let unknown = report.unknown.isEmpty ? "" : "; the database also has versions \(report.unknown) from a newer server"
        return withCollisions("\(configuration.redactedDescription): \(applied), schema version \(report.current)\(unknown)", collisions)
    case .sqlite(let path):
        let existed = FileManager.default.fileExists(atPath: path)
        // Opening the database applies its migrations.
        let repository = try SQLiteRepository(path: path)
        let collisions = try await repository.usernameCollisions()
        return withCollisions("sqlite:\(path): \(existed ? "up to date" : "created, with the current schema")", collisions)
    case .memory:
        return "memory: nothing to migrate"
    }
}

/// `summary`, then the collisions' lines.
private func withCollisions(_ summary: String, _ collisions: [UsernameCollision]) -> String {
    ([summary] + UsernameCollisionReport.lines(collisions)).joined(separator: "\n")
}
