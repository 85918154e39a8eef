import Foundation
public import Logging
public import PasskeyStorage
import PostgresNIO

/// PostgreSQL storage, for several `passkey-server` instances behind one load balancer: every ceremony can start on one
/// instance and finish on another, because nothing a ceremony needs lives in one process.
///
/// Connections come from a pool (`PostgresClient`) that opens them on demand, up to ``PostgresConfiguration/poolSize``,
/// and reconnects by itself when the database comes back. Every call is bounded by
/// ``PostgresConfiguration/queryTimeout`` (connection lease included): when the database cannot be reached the caller
/// gets `storage_unavailable` within that time, never a hang or a crash.
///
/// The repository protocols are implemented one per file (`PostgresRepository+Users.swift`, …); a new store is one more
/// file plus a migration in ``PostgresSchema``.
public final class PostgresRepository: Sendable {
    public let configuration: PostgresConfiguration
    let client: PostgresClient
    let logger: Logger
    /// Runs the pool's background work (connecting, keep-alives) until ``shutdown()``.
    private let runner: Task<Void, Never>
    /// Ceremony events waiting to be written together.
    let eventQueue = PostgresEventQueue()
    /// The deadlines of calls in flight.
    let deadlines = DeadlineWatch()

    /// Opens one connection to check the database can be reached (see ``PostgresConnectionCheck``; skipped when
    /// `checkConnection` is false), starts the connection pool and, unless `migrate` is false, brings the schema up to
    /// date (see ``migrate()``).
    /// - Throws: `storage_unavailable` when the database cannot be reached, with the reason in words, or the migration
    ///   fails; the pool is then shut down.
    public static func connect(
        _ configuration: PostgresConfiguration, migrate: Bool = true, checkConnection: Bool = true,
        logger: Logger = Logger(label: "passkey-storage-postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws(StorageError) -> PostgresRepository {
        if checkConnection { try await PostgresConnectionCheck.run(configuration, logger: logger) }
        let repository = PostgresRepository(configuration: configuration, logger: logger)
        if migrate {
            do { _ = try await repository.migrate() } catch {
                await repository.shutdown()
                throw error
            }
        }
        return repository
    }

    init(configuration: PostgresConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        var clientConfiguration: PostgresClient.Configuration
        if let socket = configuration.unixSocketPath {
            clientConfiguration = PostgresClient.Configuration(
                unixSocketPath: socket, username: configuration.username, password: configuration.password, database: configuration.database)
        } else {
            let tls: PostgresClient.Configuration.TLS = switch configuration.tlsSettings {
            case nil: .disable
            case let (settings, required)?: required ? .require(settings) : .prefer(settings)
            }
            clientConfiguration = PostgresClient.Configuration(
                host: configuration.host, port: configuration.port, username: configuration.username, password: configuration.password,
                database: configuration.database, tls: tls)
        }
        clientConfiguration.options.connectTimeout = configuration.connectTimeout
        clientConfiguration.options.maximumConnections = configuration.poolSize
        // Each time a connection goes back to the pool, PostgresNIO schedules its idle timeout and keep-alive as sleeping
        // tasks; leased again, they are cancelled, but on Linux a cancelled sleep keeps its task and dispatch timer until
        // its deadline. Under load that held about 130 MB (defaults: 60 s and 30 s) for an instance with a pool of 20.
        // An idle connection is closed after 10 s instead, and without keep-alive queries (they would only start after
        // 30 s idle, which no connection now reaches): at most 99 MB, after a phase with 256 connections, against 175–216 MB,
        // and less CPU per sign-in (docs/benchmarks.md).
        clientConfiguration.options.connectionIdleTimeout = .seconds(10)
        clientConfiguration.options.keepAliveBehavior = nil
        // The server abandons a statement the caller has stopped waiting for.
        let statementTimeout = configuration.queryTimeout.components.seconds * 1000 + configuration.queryTimeout.components.attoseconds / 1_000_000_000_000_000
        var parameters = [("application_name", configuration.applicationName), ("statement_timeout", "\(statementTimeout)")]
        if let schema = configuration.schema { parameters.append(("search_path", schema)) }
        clientConfiguration.options.additionalStartupParameters = parameters
        let client = PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)
        self.client = client
        runner = Task { await client.run() }
    }

    /// Applies the migrations this database has not seen, under an advisory lock (safe when instances start together).
    ///
    /// A quick `SELECT 1` first, bounded by the query timeout, so an unreachable database fails fast; the migration
    /// itself may wait minutes for another instance's migration to release the lock.
    @discardableResult
    public func migrate() async throws(StorageError) -> PostgresMigrationReport {
        let logger = self.logger
        try await withConnection("reach the database") { connection in try await connection.query("SELECT 1", logger: logger) }
        let report = try await call("migrate", timeout: .seconds(300)) { client in
            try await client.withConnection { connection in
                try await PostgresMigrator.migrate(connection, schema: self.configuration.schema, logger: logger)
            }
        }
        if !report.unknown.isEmpty {
            logger.warning("the database has migrations this server does not know: a newer server migrated it", metadata: ["versions": "\(report.unknown)"])
        }
        return report
    }

    /// Whether every migration this build knows is applied: for a caller that must change nothing (a dry run) and so
    /// cannot migrate.
    public func hasCurrentSchema() async throws(StorageError) -> Bool {
        let logger = self.logger
        return try await withConnection("read the schema's version") { connection in
            let table = try await connection.rows(
                "SELECT 1 FROM information_schema.tables WHERE table_name = 'schema_migrations' AND table_schema = current_schema()", logger)
            guard !table.isEmpty else { return false }
            let seen = try await PostgresMigrator.appliedVersions(connection, logger: logger)
            return PostgresSchema.migrations.allSatisfy { seen.contains($0.version) }
        }
    }

    /// Writes the events still queued, then closes every connection. The repository cannot be used afterwards.
    public func shutdown() async {
        await eventQueue.close()
        runner.cancel()
        await runner.value
    }

    /// One statement or several on one pooled connection, bounded by the query timeout.
    @discardableResult
    func withConnection<T: Sendable>(
        _ what: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws(StorageError) -> T {
        try await call(what, timeout: configuration.queryTimeout) { client in try await client.withConnection(body) }
    }

    /// Statements in one transaction (committed when `body` returns, rolled back when it throws), bounded by the query timeout.
    @discardableResult
    func transaction<T: Sendable>(
        _ what: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws(StorageError) -> T {
        let logger = self.logger
        return try await call(what, timeout: configuration.queryTimeout) { client in
            try await client.withConnection { connection in
                try await connection.withTransaction(logger: logger) { connection in try await body(connection) }
            }
        }
    }

    private func call<T: Sendable>(
        _ what: String, timeout: Duration, _ body: @escaping @Sendable (PostgresClient) async throws -> T
    ) async throws(StorageError) -> T {
        let client = self.client
        do { return try await Deadline.run(timeout, what: what, watch: deadlines) { try await body(client) } } catch {
            throw PostgresErrorMapping.map(error, what)
        }
    }
}

extension PostgresConnection {
    /// Runs `query` and returns its rows (all of them: our queries return a handful).
    func rows(_ query: PostgresQuery, _ logger: Logger) async throws -> [PostgresRow] {
        try await self.query(query, logger: logger).collect()
    }
}

extension PostgresConfiguration {
    /// The TLS settings `sslmode` asks for, and whether the connection must use them (nil: `disable`). As in libpq,
    /// `prefer` and `require` encrypt without checking the certificate, `verify-full` checks it against the system's
    /// roots and the host name. The pool and the start-up check (``PostgresConnectionCheck``) both use these.
    var tlsSettings: (configuration: TLSConfiguration, required: Bool)? {
        var unverified = TLSConfiguration.makeClientConfiguration()
        unverified.certificateVerification = .none
        return switch tls {
        case .disable: nil
        case .prefer: (unverified, false)
        case .require: (unverified, true)
        case .verifyFull: (.makeClientConfiguration(), true)
        }
    }
}
