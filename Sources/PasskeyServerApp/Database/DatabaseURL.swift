import PasskeyServer
import PasskeyStoragePostgres

/// What `--database` names: the one place its forms are read (`memory:`, `sqlite:PATH`, `postgres://…`), for serving
/// and for every subcommand.
enum DatabaseURL: Sendable, CustomStringConvertible {
    /// Kept in the server's memory: for trying things out and tests.
    case memory
    case sqlite(path: String)
    case postgres(PostgresConfiguration)

    static let forms = "sqlite:PATH, postgres://user:password@host:5432/database or memory:"

    init(_ text: String) throws(ConfigurationError) {
        if text == "memory:" {
            self = .memory
        } else if PostgresConfiguration.isPostgresURL(text) {
            do { self = .postgres(try PostgresConfiguration(url: text)) } catch { throw ConfigurationError("--database: \(error.reason)") }
        } else if text.hasPrefix("sqlite:"), text.count > "sqlite:".count {
            self = .sqlite(path: String(text.dropFirst("sqlite:".count)))
        } else {
            throw ConfigurationError("--database must be \(Self.forms)")
        }
    }

    /// As it may be shown (the start-up banner, logs): a PostgreSQL URL without its password.
    var description: String {
        switch self {
        case .memory: "memory:"
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let configuration): configuration.redactedDescription
        }
    }

    /// `text` as it may be shown, also when it is not a valid `--database` (nothing of an unreadable PostgreSQL URL).
    static func described(_ text: String) -> String {
        if let url = try? DatabaseURL(text) { return url.description }
        return PostgresConfiguration.isPostgresURL(text) ? "a postgres:// URL" : text
    }
}
