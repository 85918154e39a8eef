import ArgumentParser
import Foundation
import Logging
import PasskeyServer

/// `passkey-server migrate`: applies pending schema migrations and exits. Safe to run while instances serve and from
/// several places at once (PostgreSQL migrations hold an advisory lock). Takes `--database` (or `PASSKEY_DATABASE`, or the settings file's `database`).
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply pending database migrations, then exit (serving applies them too).",
        usage: databaseUsage("migrate"),
        discussion: databaseDiscussion(
            """
            Example: passkey-server migrate --database postgres://…
            Safe while instances serve and when run from several places at once.
            """))

    /// `--database` belongs to the server command, which parses it wherever it appears on the command line
    /// (`passkey-server migrate --database …` and `passkey-server --database … migrate` alike).
    @ParentCommand var server: PasskeyServerCommand

    func run() async throws {
        let target: DatabaseURL
        do { target = try DatabaseURL(try server.databaseSetting()) } catch let error as ConfigurationError { throw ValidationError(error.description) }
        var logger = Logger(label: "passkey-server", factory: { LogLineHandler(label: $0) })
        logger.logLevel = .info
        do {
            print(try await migrateDatabase(target, logger: logger))
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
    }
}
