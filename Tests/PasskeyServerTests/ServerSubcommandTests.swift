import Foundation
import PasskeyTestSupport
import Testing

/// `passkey-server api-keys`, `keys` and `admin`: what an operator types against the server's database.
@Suite("passkey-server subcommands")
struct ServerSubcommandTests {
    func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await onOwnThread { try runProgram(ServerProcess.executable, arguments) }
    }

    func folder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-subcommands-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("listing from a database path that does not exist says so, and creates nothing")
    func missingDatabase() async throws {
        let path = try folder() + "/typo.sqlite"
        for command in [["api-keys", "list"], ["keys", "list"], ["api-keys", "revoke", "ak_x"]] {
            let answer = try await run(command + ["--database", "sqlite:" + path])
            #expect(answer.status != 0, "\(command)")
            #expect(answer.output.contains("no database at \(path)"), "\(command): \(answer.output)")
            #expect(!FileManager.default.fileExists(atPath: path), "\(command)")
        }
    }

    @Test("a key made in a database that did not exist says so; a rotation's overlap shorter than tokens can live warns")
    func newDatabaseAndShortOverlap() async throws {
        let path = try folder() + "/elsewhere.sqlite"
        let created = try await run(["api-keys", "create", "--name", "shop", "--database", "sqlite:" + path])
        #expect(created.status == 0, "\(created.output)")
        #expect(created.output.contains("note: there was no database at \(path), so a new one is made there"), "\(created.output)")
        let again = try await run(["api-keys", "create", "--name", "crm", "--database", "sqlite:" + path])
        #expect(again.status == 0 && !again.output.contains("note:"), "the second time the database exists: \(again.output)")

        let short = try await run(["keys", "rotate", "--overlap", "60", "--database", "sqlite:" + path])
        #expect(short.status == 0)
        #expect(short.output.contains("warning: --overlap 60 s is shorter than 630 s (token lifetime 300 s as these settings give it + 30 s + 300 s of JWKS caching)"), "\(short.output)")
        let long = try await run(["keys", "rotate", "--database", "sqlite:" + path])
        #expect(long.status == 0 && !long.output.contains("warning"), "\(long.output)")
    }

    @Test("every subcommand's help shows the --database it acts on, its default, and where else it comes from")
    func usageShowsDatabase() async throws {
        for command in [["api-keys", "create"], ["api-keys", "list"], ["api-keys", "revoke"], ["keys", "rotate"], ["keys", "list"], ["admin", "invite"], ["migrate"]] {
            let answer = try await run(command + ["--help"])
            #expect(answer.status == 0, "\(command)")
            #expect(answer.output.contains("USAGE: passkey-server \(command.joined(separator: " "))"), "\(command): \(answer.output)")
            #expect(answer.output.contains("[--database <database>]"), "\(command): \(answer.output)")
            // The option belongs to the server command, so the generated option list leaves it out: the text says it.
            let words = answer.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(words.contains("(default sqlite:./data/passkey.sqlite)"), "\(command): \(answer.output)")
            #expect(words.contains("PASSKEY_DATABASE"), "\(command)")
            #expect(words.contains("--config"), "\(command)")
        }
    }

    @Test("an empty list says it is empty; a created key is listed")
    func emptyThenListed() async throws {
        let database = "sqlite:" + (try folder()) + "/passkey.sqlite"
        let migrated = try await run(["migrate", "--database", database])
        #expect(migrated.status == 0)
        #expect(migrated.output.hasSuffix("passkey.sqlite: created, with the current schema\n"), "\(migrated.output)")
        #expect(try await run(["migrate", "--database", database]).output.hasSuffix("passkey.sqlite: up to date\n"))
        let empty = try await run(["api-keys", "list", "--database", database])
        #expect(empty.status == 0)
        #expect(empty.output.hasPrefix("no API keys"), "\(empty.output)")
        let created = try await run(["api-keys", "create", "--name", "backend", "--database", database])
        #expect(created.status == 0, "\(created.output)")
        let listed = try await run(["api-keys", "list", "--database", database])
        #expect(listed.output.contains("backend"), "\(listed.output)")
        #expect(!listed.output.contains("no API keys"))
    }

    @Test("ranges are stated as they are checked, negative numbers included")
    func ranges() async throws {
        let database = "sqlite:" + (try folder()) + "/passkey.sqlite"
        for hours in ["0", "-5", "721"] {
            let answer = try await run(["admin", "invite", "--hours", hours, "--database", database])
            #expect(answer.status != 0, "\(hours)")
            #expect(answer.output.contains("--hours must be more than 0 and at most 720"), "\(hours): \(answer.output)")
        }
        for overlap in ["-5", "1e16", "31622401"] {
            let wrong = try await run(["keys", "rotate", "--overlap", overlap, "--database", database])
            #expect(wrong.status == 64, "\(overlap): \(wrong.output)")  // a usage error, not a trap
            #expect(wrong.output.contains("--overlap must be 0 to 31622400 seconds (a year)"), "\(overlap): \(wrong.output)")
        }
        // An API key's name is one line in `api-keys list`: no line breaks or terminal escapes.
        for name in ["a\nb", "\u{1B}[31mred", "", String(repeating: "k", count: 101)] {
            let refused = try await run(["api-keys", "create", "--name", name, "--database", database])
            #expect(refused.status == 64 && refused.output.contains("--name needs 1 to 100 characters"), "\(name.debugDescription): \(refused.output)")
        }
        let help = try await run(["admin", "invite", "--help"])
        #expect(!help.output.contains("(default: 24"), "one default, in words: \(help.output)")
        let invited = try await run(["admin", "invite", "--hours", "1.5", "--database", database])
        #expect(invited.output.contains("within 1.5 hours"), "\(invited.output)")
        // No admin yet: the first one made revokes the other links, and the command says so.
        #expect(invited.output.contains("No admin exists yet: the first admin, made with this link or any other, revokes all other links."), "\(invited.output)")
    }
}
