import Foundation
public import PasskeyStorage

/// Where the PostgreSQL database is and how to talk to it, read from a `postgres://` (or `postgresql://`) URL:
///
///     postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?PARAMETER=VALUE&…]
///
/// Parameters: `sslmode` as libpq reads it (`disable`; `prefer`, the default, and `require` encrypt without checking
/// the server's certificate; `verify-ca` and `verify-full` check it against the system's trust roots and the host name),
/// `connect_timeout` (seconds, default 5), `query_timeout` (seconds a storage call may take,
/// connection lease included, default 5), `pool_size` (connections per server process, default 20), `schema` (a schema
/// of its own, created by the migrations: several deployments can share one database), `application_name`, and `host`
/// with a folder for a Unix-domain socket (`postgres://passkey@/passkey?host=/var/run/postgresql`). Unknown parameters
/// are refused, so a typo never silently changes behaviour.
public struct PostgresConfiguration: Sendable, Hashable {
    public enum TLSMode: String, Sendable, Hashable {
        case disable
        /// TLS when the server offers it, certificate not checked (libpq's `prefer`).
        case prefer
        /// TLS or no connection, certificate not checked (libpq's `require`).
        case require
        /// TLS with the certificate checked against the system's trust roots and the host name.
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    /// A Unix-domain socket path (`<folder>/.s.PGSQL.<port>`); when set, `host` is not used.
    public var unixSocketPath: String?
    public var username: String
    public var password: String?
    public var database: String
    public var schema: String?
    public var tls: TLSMode
    public var connectTimeout: Duration
    public var queryTimeout: Duration
    public var poolSize: Int
    public var applicationName: String

    public init(
        host: String = "127.0.0.1", port: Int = 5432, unixSocketPath: String? = nil, username: String, password: String? = nil,
        database: String, schema: String? = nil, tls: TLSMode = .prefer, connectTimeout: Duration = .seconds(5),
        queryTimeout: Duration = .seconds(5), poolSize: Int = 20, applicationName: String = "passkey-server"
    ) {
        self.host = host
        self.port = port
        self.unixSocketPath = unixSocketPath
        self.username = username
        self.password = password
        self.database = database
        self.schema = schema
        self.tls = tls
        self.connectTimeout = connectTimeout
        self.queryTimeout = queryTimeout
        self.poolSize = poolSize
        self.applicationName = applicationName
    }

    /// Whether `text` names PostgreSQL storage (`postgres://` or `postgresql://`).
    public static func isPostgresURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Reads a `postgres://` URL; a mistake is `storage_unavailable` with the reason in words (never the password).
    public init(url text: String) throws(StorageError) {
        guard Self.isPostgresURL(text), let components = URLComponents(string: text) else {
            throw Self.invalid("the database URL must look like postgres://user:password@host:5432/database")
        }
        guard let username = components.user, !username.isEmpty else { throw Self.invalid("the database URL names no user (postgres://USER@host/database)") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw Self.invalid("the database URL names no database (postgres://user@host/DATABASE)") }
        // Foundation reads any number; a socket would take it modulo 65 536 and connect somewhere else.
        if let port = components.port, !(1...65_535).contains(port) { throw Self.invalid("the database URL's port \(port) is not 1 to 65535") }
        self.init(
            host: components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1", port: components.port ?? 5432,
            username: username, password: components.password, database: database)
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                switch value {
                case "disable": tls = .disable
                case "prefer", "allow": tls = .prefer
                case "require": tls = .require
                case "verify-ca", "verify-full": tls = .verifyFull
                default: throw Self.invalid("sslmode must be disable, prefer, require or verify-full")
                }
            case "connect_timeout": connectTimeout = try Self.seconds(value, item.name)
            case "query_timeout": queryTimeout = try Self.seconds(value, item.name)
            case "pool_size":
                guard let size = Int(value), (1...1000).contains(size) else { throw Self.invalid("pool_size must be a number from 1 to 1000") }
                poolSize = size
            case "schema":
                guard Self.isPlainIdentifier(value) else {
                    throw Self.invalid("schema must be lower-case letters, digits and _ (at most 63), starting with a letter or _")
                }
                schema = value
            case "application_name": applicationName = value
            case "host":
                guard value.hasPrefix("/") else { throw Self.invalid("the host parameter takes a socket folder such as /var/run/postgresql") }
                unixSocketPath = value + "/.s.PGSQL.\(port)"
            default:
                throw Self.invalid("unknown database URL parameter \(item.name) (known: sslmode, connect_timeout, query_timeout, pool_size, schema, application_name, host)")
            }
        }
    }

    /// The URL without the password, for logs and start-up messages.
    public var redactedDescription: String {
        let place = unixSocketPath.map { "[\($0)]" } ?? "\(host):\(port)"
        return "postgres://\(username)@\(place)/\(database)" + (schema.map { " schema \($0)" } ?? "")
    }

    /// Names we put into SQL unquoted (the schema) must be plain identifiers.
    static func isPlainIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, text.unicodeScalars.count <= 63 else { return false }
        let lower = Unicode.Scalar("a").value...Unicode.Scalar("z").value
        let digit = Unicode.Scalar("0").value...Unicode.Scalar("9").value
        guard lower.contains(first.value) || first == "_" else { return false }
        return text.unicodeScalars.allSatisfy { lower.contains($0.value) || digit.contains($0.value) || $0 == "_" }
    }

    static func seconds(_ text: String, _ name: String) throws(StorageError) -> Duration {
        guard let value = Double(text), value > 0, value <= 3600 else { throw invalid("\(name) must be a number of seconds above 0") }
        return .milliseconds(Int64((value * 1000).rounded()))
    }

    static func invalid(_ reason: String) -> StorageError { StorageError(.unavailable, reason) }
}
