import ArgumentParser
import Foundation
import PasskeyServer
import PasskeyStorage
import PasskeyStorageSQLite

/// `passkey-server backup --output FILE`: a consistent copy of the SQLite database while the server serves
/// (``PasskeyStorageSQLite/SQLiteRepository/backup(databaseAt:to:)``). PostgreSQL has its own tools.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the SQLite database to a file, consistently, while the server keeps serving.",
        usage: databaseUsage("backup --output <file>"),
        discussion: databaseDiscussion(
            """
            The copy is one snapshot of the database (SQLite's VACUUM INTO), written with mode 0600: it holds the \
            server's signing keys. To restore, stop the server, put the copy where --database points (remove the \
            old file's -wal and -shm files), and start it. On PostgreSQL use pg_dump.
            """))

    @ParentCommand var server: PasskeyServerCommand
    @Option(help: "The file to write; it must not exist.") var output: String

    func run() async throws {
        let url: DatabaseURL
        do { url = try DatabaseURL(try server.databaseSetting()) } catch let error as ConfigurationError { throw ValidationError(error.description) }
        switch url {
        case .sqlite(let path):
            let start = Date()
            let size: Int
            do { size = try SQLiteRepository.backup(databaseAt: path, to: output) } catch { throw CommandFailure(error.reason) }
            print("backed up \(path) to \(output): \(size) bytes in \(String(format: "%.2f", Date().timeIntervalSince(start))) s")
        case .postgres:
            throw ValidationError("backup copies SQLite databases; for PostgreSQL use pg_dump (docs/deploy.md, Backups)")
        case .memory:
            throw ValidationError("an in-memory database lives only inside a running server")
        }
    }
}
