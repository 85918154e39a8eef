import PasskeyStorage
import PostgresNIO

/// Turns what postgres-nio throws into ``StorageError`` with a stable code.
///
/// Unique violations on the constraints that carry meaning become `credential_exists` and `username_taken` (two racing
/// registrations both pass the explicit checks; the database settles it). Data the server reports as corrupt, and rows
/// that do not decode, are `storage_corrupt`. Everything else (refused connections, a server that shut down, timeouts,
/// a pool that cannot connect, server-side errors) is `storage_unavailable`: the request may succeed later.
///
/// Reasons hold the error's code, SQLSTATE and server message, never bound values or row contents: they go to logs, and
/// logs never hold challenges, credential IDs or user handles.
enum PostgresErrorMapping {
    /// Unique constraints whose violation is an answer, not a failure.
    static let meaningfulConstraints: [String: StorageError.Code] = [
        "credentials_pkey": .credentialExists,
        "users_username_key": .usernameTaken,
        "users_username_key_full": .usernameTaken,
    ]

    static func map(_ error: any Error, _ what: String) -> StorageError {
        switch error {
        case let storage as StorageError:
            return storage
        case let transaction as PostgresTransactionError:
            if let inner = transaction.closureError { return map(inner, what) }
            if let inner = transaction.beginError { return map(inner, what + " (BEGIN)") }
            if let inner = transaction.commitError {
                // A failed COMMIT has an unknown outcome: the caller was not told "done", so nothing was promised.
                return StorageError(.unavailable, "\(what): COMMIT failed: \(describe(inner))")
            }
            return StorageError(.unavailable, "\(what): transaction failed")
        case let psql as PSQLError:
            if psql.code == .server, let state = psql.serverInfo?[.sqlState] {
                if state == "23505", let constraint = psql.serverInfo?[.constraintName], let code = meaningfulConstraints[constraint] {
                    return StorageError(code, "\(what): unique constraint \(constraint)")
                }
                if state == "XX001" || state == "XX002" { return StorageError(.corrupt, "\(what): \(describe(psql))") }
            }
            return StorageError(.unavailable, "\(what): \(describe(psql))")
        case let decoding as PostgresDecodingError:
            return StorageError(.corrupt, "\(what): column \(decoding.columnName) does not decode (\(decoding.code), \(decoding.postgresType))")
        default:
            return StorageError(.unavailable, "\(what): \(String(describing: type(of: error))): \(error)")
        }
    }

    /// The SQLSTATE of a server error, also inside a failed transaction's closure.
    static func sqlState(of error: any Error) -> String? {
        if let transaction = error as? PostgresTransactionError, let inner = transaction.closureError { return sqlState(of: inner) }
        return (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    static func describe(_ error: any Error) -> String {
        guard let psql = error as? PSQLError else { return "\(String(describing: type(of: error)))" }
        var parts = ["\(psql.code)"]
        if let state = psql.serverInfo?[.sqlState] { parts.append("SQLSTATE \(state)") }
        if let message = psql.serverInfo?[.message] { parts.append(message) }
        if let underlying = psql.underlying { parts.append("\(underlying)") }
        return parts.joined(separator: ", ")
    }
}
