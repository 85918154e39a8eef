import Foundation
import Logging
import PasskeyServer
import PasskeyStorage
import PasskeyStoragePostgres
import PasskeyStorageSQLite

/// The database drivers are chosen here, in the executable, and nowhere else: the server library and the
/// relying-party library work over the storage protocols.

/// The server over the database `configuration.database` names, with what each driver adds: on PostgreSQL the live log
/// hears every instance's events (LISTEN/NOTIFY); the connections close after the server stops.
///
/// Concrete repository types on each branch: opening an existential here crashes the Swift 6.3 optimizer (coroutine
/// splitting) in release builds.
func serve(
    _ configuration: ServerConfiguration, logger: Logger, onServerRunning: (@Sendable (Int) async -> Void)? = nil
) async throws -> PasskeyApplication {
    try configuration.validate()
    switch try DatabaseURL(configuration.database) {
    case .memory:
        return try await buildApplication(configuration, repository: InMemoryRepository(), logger: logger, onServerRunning: onServerRunning)
    case .postgres(let postgres):
        let repository = try await PostgresRepository.connect(postgres, logger: logger)
        logger.notice("data", metadata: ["postgres": "\(postgres.redactedDescription)"])
        let broadcaster = EventBroadcaster()
        return try await buildApplication(
            configuration, repository: repository, logger: logger, onServerRunning: onServerRunning, broadcaster: broadcaster,
            eventSink: PostgresEventSink(repository: repository, local: broadcaster),
            services: [
                PostgresEventListener(repository: repository, broadcaster: broadcaster, logger: logger),
                StorageShutdown { await repository.shutdown() },
            ])
    case .sqlite(let path):
        let repository = try SQLiteRepository(path: path)
        logger.notice("data", metadata: ["sqlite": "\(URL(fileURLWithPath: path).standardizedFileURL.path)"])
        return try await buildApplication(
            configuration, repository: repository, logger: logger, onServerRunning: onServerRunning,
            services: [StorageShutdown { await repository.shutdown() }])
    }
}

/// Opens (and migrates) the storage a `--database` value names, for subcommands that run one operation and exit.
///
/// - Parameter migrate: false for a caller that must change nothing (a dry run): an older schema is then an error
///   (`storage_unavailable`) instead of being migrated.
func openRepository(_ url: DatabaseURL, migrate: Bool = true) async throws -> any PasskeyRepository {
    switch url {
    case .memory:
        return InMemoryRepository()
    case .postgres(let configuration):
        let repository = try await PostgresRepository.connect(configuration, migrate: migrate)
        if !migrate, try await !repository.hasCurrentSchema() {
            await repository.shutdown()
            throw StorageError(.unavailable, "the database has an older schema than this server's (or none): run passkey-server migrate first")
        }
        return repository
    case .sqlite(let path):
        return try SQLiteRepository(path: path, migrate: migrate)
    }
}
