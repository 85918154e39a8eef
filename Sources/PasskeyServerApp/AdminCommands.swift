import ArgumentParser
import Foundation
import PasskeyServer
import PasskeyStorage

/// Opens the storage the server command's `--database` (or `PASSKEY_DATABASE`, or the settings file) names:
/// subcommands act on the same database as the server, and `--database` may come before or after the subcommand's name.
///
/// Commands that only read or change what is there (`list`, `revoke`) set `mustExist`: an SQLite path with a typo
/// would otherwise create an empty database and answer as if it were the real one.
func openStorage(_ root: PasskeyServerCommand, mustExist: Bool = false, migrate: Bool = true) async throws -> any PasskeyRepository {
    let url: DatabaseURL
    do { url = try DatabaseURL(try root.databaseSetting()) } catch let error as ConfigurationError { throw ValidationError(error.description) }
    if case .memory = url { throw ValidationError("an in-memory database lives only inside a running server") }
    if case .sqlite(let path) = url {
        if !FileManager.default.fileExists(atPath: path) {
            guard !mustExist else {
                throw ValidationError("no database at \(path): check --database (or PASSKEY_DATABASE), or start passkey-server once to create it")
            }
            // Making a key or a link in a database the server does not use (run from another directory, a mistyped
            // path) would print a secret that works nowhere: say so, on standard error, before it is printed.
            FileHandle.standardError.write(
                Data(
                    "note: there was no database at \(path), so a new one is made there; if the server uses another, pass its --database (or PASSKEY_DATABASE)\n"
                        .utf8))
        }
    }
    return try await openRepository(url, migrate: migrate)
}

/// The usage line of a subcommand that acts on the server's database: `--database` belongs to the server command, so
/// the generated line would not show it.
/// For a command that prints a link to the server: where its start came from, when it is not the configured public
/// URL. The command knows the server's settings only from its own flags, variables and settings file.
func linkBaseNote(_ configuration: ServerConfiguration) -> String? {
    guard configuration.publicURL == nil else { return nil }
    let source = configuration.origins.isEmpty ? "the defaults: no --public-url, --origin or --port given here" : "the first --origin"
    return "The link starts with \(configuration.linkBase), from \(source). If the server is reached elsewhere, give this command the server's --public-url (or --origin and --port), or its --config."
}

func databaseUsage(_ command: String) -> String { "passkey-server \(command) [--database <database>] [--config <file>]" }

/// The help of a subcommand that acts on the server's database. The server command owns `--database` and `--config`,
/// so the generated option list would leave them out: say here what they are and where else they come from.
func databaseDiscussion(_ more: String = "") -> String {
    """
    The database is the server's: --database sqlite:PATH (default sqlite:./data/passkey.sqlite) or postgres://…, \
    before or after the subcommand's name; or PASSKEY_DATABASE; or the settings file named by --config (PASSKEY_CONFIG).
    """ + (more.isEmpty ? "" : "\n\n" + more)
}

/// A subcommand that could not do its work, as opposed to arguments it cannot take (`ValidationError`, which prints
/// the usage too): printed as `Error: …` alone, with exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Prints without buffering, so scripts reading a pipe see it at once.
func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }

struct APIKeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api-keys", abstract: "Manage the API keys app backends use for /connect/… and /users/….",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an API key and print it once (only its hash is stored).", usage: databaseUsage("api-keys create --name <name>"),
            discussion: databaseDiscussion())
        @ParentCommand var root: PasskeyServerCommand
        @Option(help: "What the key is for (shown in lists).") var name: String

        func run() async throws {
            let trimmed: String
            do { trimmed = try Administration.apiKeyName(name) } catch { throw ValidationError(error.description) }
            let repository = try await openStorage(root)
            let (record, secret) = try await Administration.createAPIKey(name: trimmed, repository: repository)
            await recordCommand("create_api_key", "API key \(record.id) (\(record.name)) created", in: repository)
            say(secret)
            FileHandle.standardError.write(Data("API key \(record.id) (\(record.name)) created. Store it now: it is not shown again.\n".utf8))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List API keys (never their secrets).", usage: databaseUsage("api-keys list"), discussion: databaseDiscussion())
        @ParentCommand var root: PasskeyServerCommand

        func run() async throws {
            let formatter = ISO8601DateFormatter()
            let keys = try await openStorage(root, mustExist: true).apiKeys()
            if keys.isEmpty { say("no API keys (create one with: passkey-server api-keys create --name NAME)") }
            for key in keys {
                let state = key.revokedAt.map { "revoked \(formatter.string(from: $0))" } ?? "active"
                let used = key.lastUsedAt.map { formatter.string(from: $0) } ?? "never"
                say("\(key.id)  \(key.prefix)…  \(key.name)  created \(formatter.string(from: key.createdAt))  last used \(used)  \(state)")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke an API key at once.", usage: databaseUsage("api-keys revoke <id>"), discussion: databaseDiscussion())
        @ParentCommand var root: PasskeyServerCommand
        @Argument(help: "The key's id (from api-keys list).") var id: String

        func run() async throws {
            let repository = try await openStorage(root, mustExist: true)
            // Revoked before: nothing changes, and the command says so rather than "revoked" again.
            if let revokedAt = try await repository.apiKeys().first(where: { $0.id == id })?.revokedAt {
                say("\(id) was already revoked (\(revokedAt.formatted(.iso8601)))")
                return
            }
            // `revokeAPIKey` throws StorageError only: a pattern-matching catch of it made the compiler loop.
            do { try await repository.revokeAPIKey(id: id, at: Date()) } catch {
                if error.code == .notFound { throw CommandFailure("no API key \(id)") }
                throw error
            }
            await recordCommand("revoke_api_key", "API key \(id) revoked", in: repository)
            say("revoked \(id)")
        }
    }
}

struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Manage the keys that sign signedPasskeyData (published at /.well-known/jwks.json).",
        subcommands: [Rotate.self, List.self])

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start signing with a new key; older keys stay published for --overlap seconds so their tokens keep verifying.",
            usage: databaseUsage("keys rotate [--overlap <seconds>]"), discussion: databaseDiscussion())
        @ParentCommand var root: PasskeyServerCommand
        @Option(
            parsing: .unconditional,
            help: "Seconds the previous keys stay in the JWKS (default 86400; at least the token lifetime, plus 30 s in which running servers still sign with the old key, plus the backends' JWKS cache time).")
        var overlap: Double?

        func run() async throws {
            let overlap = overlap ?? 86_400
            // A year at most, as token lifetimes: a key kept longer would outlive any token it signed.
            guard overlap >= 0, overlap.isFinite, overlap <= 366 * 86_400 else {
                throw ValidationError("--overlap must be 0 to 31622400 seconds (a year)")
            }
            let repository = try await openStorage(root)
            let key = try await Administration.rotateSigningKey(repository: repository, overlap: overlap)
            let seconds: Int = Int(overlap)
            await recordCommand("rotate_signing_key", "signing key \(key.id) made; earlier keys retire in \(seconds) s", in: repository)
            say("new signing key \(key.id); running servers switch within 30 seconds")
            // Running servers sign with the old key for up to 30 s more; a token signed then lives its lifetime after
            // that, and backends may hold the key set for 5 minutes (the JWKS answer's max-age). The lifetime is the one
            // these settings give (--signed-data-ttl here, PASSKEY_SIGNED_DATA_TTL, the settings file); settings that do
            // not form a valid configuration leave the warning out rather than stop a rotation after a leak.
            if let lifetime = (try? root.makeConfiguration())?.connect.signedDataLifetime, overlap < lifetime + 330 {
                FileHandle.standardError.write(
                    Data(
                        "warning: --overlap \(Int(overlap)) s is shorter than \(Int(lifetime + 330)) s (token lifetime \(Int(lifetime)) s as these settings give it + 30 s + 300 s of JWKS caching): tokens the old keys signed stop verifying before they expire. Right after a key leaked, that is what you want.\n"
                            .utf8))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List signing keys (kid, created, retirement).", usage: databaseUsage("keys list"),
            discussion: databaseDiscussion())
        @ParentCommand var root: PasskeyServerCommand

        func run() async throws {
            let formatter = ISO8601DateFormatter()
            let keys = try await openStorage(root, mustExist: true).signingKeys()
            if keys.isEmpty { say("no signing keys yet (the server makes one when it first signs a token or serves its JWKS)") }
            for key in keys {
                let state = key.retiresAt.map { "retires \(formatter.string(from: $0))" } ?? "signing"
                say("\(key.id)  \(key.algorithm)  created \(formatter.string(from: key.createdAt))  \(state)")
            }
        }
    }
}

struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin", abstract: "Manage dashboard administrators.", subcommands: [Invite.self])

    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a one-time link that adds a dashboard admin (a new passkey); only its hash is stored.",
            usage: databaseUsage("admin invite [--hours <hours>]") + " [--public-url <url>] [--origin <origin>] [--rp-id <rp-id>] [--port <port>]",
            discussion: databaseDiscussion(
                "The link is built from the server's settings (--public-url, --origin, --rp-id, --port, --tls-cert, from flags, PASSKEY_ variables or the settings file), as the server would print it."
            ))
        @ParentCommand var root: PasskeyServerCommand
        @Option(parsing: .unconditional, help: "Hours the link works, more than 0 and at most 720 (default 24).") var hours: Double?

        func run() async throws {
            let hours = hours ?? 24
            guard hours > 0, hours <= 24 * 30 else { throw ValidationError("--hours must be more than 0 and at most 720") }
            let configuration = try root.makeConfiguration()
            let repository = try await openStorage(root)
            let token = try await Administration.createAdminInvite(repository: repository, lifetime: hours * 3600)
            let validity: String = String(format: "%g", hours)
            await recordCommand("invite_admin", "admin invite made, valid " + validity + " h", in: repository)
            let base = configuration.linkBase
            say("\(base)/dashboard/setup?token=\(token)")
            let shown = hours == hours.rounded() ? String(Int(hours)) : String(hours)
            var notes = "Open it within \(shown) hours, once. It is not shown again.\n"
            if let hint = linkBaseNote(configuration) { notes += hint + "\n" }
            if try await repository.admins().isEmpty {
                // AdminRepository.addAdmin: the first admin revokes every other pending link.
                notes += "No admin exists yet: the first admin, made with this link or any other, revokes all other links. "
                    + "Make the first admin, then invite the others.\n"
            }
            FileHandle.standardError.write(Data(notes.utf8))
        }
    }
}
