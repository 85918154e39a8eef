#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import NIOPosix
import PasskeyStorage
import PostgresNIO

/// One connection opened and closed before the pool starts, so that a start that cannot reach the database says why.
///
/// The pool retries a connection that fails and reports only that no answer came within the query timeout: a wrong
/// password, a missing database, a server without TLS for `sslmode=require`, an unknown host and a refused connection all
/// read "no answer from PostgreSQL within 5 seconds", the cause in info-level lines of the driver only (and each retry
/// is another failed login on the server). A direct connection fails once, with the server's own words.
enum PostgresConnectionCheck {
    static func run(_ configuration: PostgresConfiguration, logger: Logger) async throws(StorageError) {
        let settings: PostgresConnection.Configuration
        do { settings = try connectionConfiguration(configuration) } catch {
            throw StorageError(.unavailable, "cannot set up TLS for \(configuration.redactedDescription): \(error)")
        }
        let timeout = configuration.connectTimeout
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let connection = try await PostgresConnection.connect(configuration: settings, id: 0, logger: logger)
                    try? await connection.close()
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw StorageError(.unavailable, "no answer within \(timeout)")
                }
                try await group.next()
                group.cancelAll()
            }
        } catch {
            throw StorageError(.unavailable, "cannot connect to \(configuration.redactedDescription): \(reason(error))")
        }
    }

    /// The settings the pool uses, for one connection.
    static func connectionConfiguration(_ configuration: PostgresConfiguration) throws -> PostgresConnection.Configuration {
        var settings: PostgresConnection.Configuration
        if let socket = configuration.unixSocketPath {
            settings = .init(unixSocketPath: socket, username: configuration.username, password: configuration.password, database: configuration.database)
        } else {
            let tls: PostgresConnection.Configuration.TLS = switch configuration.tlsSettings {
            case nil: .disable
            case let (settings, required)?:
                required ? .require(try NIOSSLContext(configuration: settings)) : .prefer(try NIOSSLContext(configuration: settings))
            }
            settings = .init(
                host: configuration.host, port: configuration.port, username: configuration.username, password: configuration.password,
                database: configuration.database, tls: tls)
        }
        settings.options.additionalStartupParameters = [("application_name", configuration.applicationName)]
        return settings
    }

    /// Why a connection failed, in words: the server's message (a wrong password, a missing database), or what the
    /// network said. Never the password: the driver's messages do not carry it.
    static func reason(_ error: any Error) -> String {
        if let storage = error as? StorageError { return storage.reason }
        guard let psql = error as? PSQLError else { return "\(error)" }
        if let message = psql.serverInfo?[.message] { return "the server refused: \(message)" }
        switch psql.code {
        case .sslUnsupported: return "the server does not offer TLS, which the URL's sslmode asks for (sslmode=disable connects without it)"
        case .failedToAddSSLHandler: return "TLS could not be set up"
        default: break
        }
        if let underlying = psql.underlying {
            if let connection = underlying as? NIOConnectionError {
                if connection.dnsAError != nil || connection.dnsAAAAError != nil, connection.connectionErrors.isEmpty {
                    return "the host name could not be resolved"
                }
                if let first = connection.connectionErrors.first { return (first.error as? IOError).map(describe) ?? "\(first.error)" }
            }
            if let io = underlying as? IOError { return describe(io) }
            return "\(underlying)"
        }
        return "\(psql.code)"
    }

    /// A socket error in the system's words, without NIO's wrapping ("connection reset (error set): …"), and what to
    /// check for the common ones.
    static func describe(_ error: IOError) -> String {
        let text = String(cString: strerror(error.errnoCode))
        switch error.errnoCode {
        case ECONNREFUSED: return "\(text): nothing listens at that host and port (is PostgreSQL running, and on that port?)"
        case ETIMEDOUT, EHOSTUNREACH, ENETUNREACH: return "\(text): the host cannot be reached (address, network or firewall)"
        default: return text
        }
    }
}
