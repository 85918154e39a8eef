import Foundation
import PasskeyStorage
import PasskeyStorageSQLite
import PasskeyTestSupport
import Testing

/// `passkey-server api-keys`, `keys` and `admin`: what an operator types against the server's database.
@Suite("passkey-server subcommands")
struct ServerSubcommandTests {
    func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await onOwnThread { try runProgram(ServerProcess.executable, arguments) }
    }

    func folder() throws -> String { try temporaryFolder("passkey-subcommands") }

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
        for command in [
            ["api-keys", "create"], ["api-keys", "list"], ["api-keys", "revoke"], ["keys", "rotate"], ["keys", "list"], ["admin", "invite"], ["migrate"],
            ["users", "list"], ["users", "disable"], ["users", "enable"], ["export"], ["import"], ["webhooks", "add"], ["webhooks", "list"],
            ["webhooks", "rotate"], ["webhooks", "deliveries"],
        ] {
            let answer = try await run(command + ["--help"])
            #expect(answer.status == 0, "\(command)")
            #expect(answer.output.contains("USAGE: passkey-server \(command.joined(separator: " "))"), "\(command): \(answer.output)")
            #expect(answer.output.contains("[--database <database>] [--config <file>]"), "\(command): \(answer.output)")
            if command == ["export"] || command == ["import"] { #expect(answer.output.contains("[--rp-id <rp-id>]"), "\(command): \(answer.output)") }
            // The option belongs to the server command, so the generated option list leaves it out: the text says it.
            let words = answer.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(words.contains("(default sqlite:./data/passkey.sqlite)"), "\(command): \(answer.output)")
            #expect(words.contains("PASSKEY_DATABASE"), "\(command)")
            #expect(words.contains("--config"), "\(command)")
        }
    }

    @Test("webhooks: added (the secret printed once), listed without it, changed, rotated, removed; each change in the event log; bad input refused")
    func webhooks() async throws {
        let path = try folder() + "/passkey.sqlite"
        let database = "sqlite:" + path
        #expect(try await run(["migrate", "--database", database]).status == 0)
        let added = try await run(["webhooks", "add", "https://hooks.example.com/p", "--events", "user.deleted,passkey.created", "--description", "billing", "--database", database])
        #expect(added.status == 0, "\(added.output)")
        let secret = try #require(added.output.split(separator: "\n").first { $0.hasPrefix("whsec_") }.map(String.init))
        let id = try #require(added.output.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("whe_") }.map(String.init))
        let listed = try await run(["webhooks", "list", "--database", database])
        #expect(listed.output.contains("\(id)  https://hooks.example.com/p  user.deleted,passkey.created  enabled  \"billing\""), "\(listed.output)")
        #expect(!listed.output.contains(secret))
        let disabled = try await run(["webhooks", "update", id, "--disable", "--events", "user.created", "--database", database])
        #expect(disabled.output.contains("user.created  disabled"), "\(disabled.output)")
        let rotated = try await run(["webhooks", "rotate", id, "--overlap-hours", "0", "--database", database])
        #expect(rotated.status == 0 && rotated.output.contains("whsec_") && !rotated.output.contains(secret), "\(rotated.output)")
        #expect(try await run(["webhooks", "deliveries", id, "--database", database]).output.contains("no deliveries"))
        for (arguments, message) in [
            (["webhooks", "add", "http://hooks.example.com/"], "webhook_url_invalid"),
            (["webhooks", "add", "https://hooks.example.com/", "--events", "user.exploded"], "webhook_event_type_unknown"),
            (["webhooks", "rotate", id, "--overlap-hours", "200"], "field_invalid"),
            (["webhooks", "remove", "whe_missing"], "webhook_endpoint_not_found"),
        ] {
            let refused = try await run(arguments + ["--database", database])
            #expect(refused.status != 0 && refused.output.contains(message), "\(arguments): \(refused.output)")
        }
        #expect(try await run(["webhooks", "remove", id, "--database", database]).output.contains("removed \(id)"))
        let events = try await SQLiteRepository(path: path).events(matching: EventFilter(), before: nil, limit: 20).map(\.kind)
        #expect(["admin.add_webhook", "admin.change_webhook", "admin.rotate_webhook", "admin.remove_webhook"].allSatisfy(events.contains), "\(events)")
    }

    @Test("users: listed with their state, disabled and enabled by user id or username; unknown names and limits are refused")
    func users() async throws {
        let path = try folder() + "/passkey.sqlite"
        let database = "sqlite:" + path
        #expect(try await run(["users", "list", "--database", database]).output.contains("no database at"))
        let created = Date(timeIntervalSince1970: 1_800_000_000)
        do {
            let repository = try SQLiteRepository(path: path)
            for (index, name) in ["ann", "bob\u{202E}evil", nil].enumerated() {
                let user = UserRecord(
                    id: "user-\(index)", userHandle: [UInt8(index + 1)], username: name, displayName: name ?? "Anonymous", isAnonymous: name == nil,
                    createdAt: created.addingTimeInterval(Double(index)))
                try await repository.register(
                    CredentialRecordEntry(
                        id: [UInt8(index + 1)], userID: user.id, publicKey: [1], algorithm: -7, signCount: 0, uvInitialized: true, transports: [],
                        backupEligible: true, backupState: true, aaguid: "00000000-0000-0000-0000-000000000000", attestationFormat: "none",
                        attestationType: "none", createdAt: created),
                    for: user)
            }
        }
        let listed = try await run(["users", "list", "--database", database])
        #expect(listed.status == 0, "\(listed.output)")
        let lines = listed.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 3 && lines.allSatisfy { $0.hasSuffix("active") }, "\(listed.output)")
        // An account stored without a name shows the one its passkeys carry, and says it is anonymous.
        #expect(lines.first?.hasPrefix("user-2  \"anonymous-Aw\" (anonymous)  created 2027-01-15T08:00:02Z  last sign-in never") == true, "newest first: \(listed.output)")
        #expect(listed.output.contains("\"bob\\u{202e}evil\""), "a direction override is shown escaped: \(listed.output)")

        let disabled = try await run(["users", "disable", "ANN", "--database", database])
        #expect(disabled.status == 0 && disabled.output.hasPrefix("user-0  \"ann\"  ") && disabled.output.contains("  disabled 20"), "\(disabled.output)")
        // "ann", not "an": the anonymous account is named anonymous-… now, which "an" finds too.
        let searched = try await run(["users", "list", "--search", "ann", "--database", database])
        #expect(searched.output.split(separator: "\n").count == 1 && searched.output.contains("disabled"), "\(searched.output)")
        #expect(try await SQLiteRepository(path: path).user(id: "user-0")?.isDisabled == true)
        let enabled = try await run(["users", "enable", "user-0", "--database", database])
        #expect(enabled.status == 0 && enabled.output.hasSuffix("active\n"), "\(enabled.output)")
        #expect(try await SQLiteRepository(path: path).user(id: "user-0")?.isDisabled == false)

        // A username that is another account's user id names two accounts: refused unless --by says which.
        do {
            let repository = try SQLiteRepository(path: path)
            let impostor = UserRecord(id: "user-9", userHandle: [9], username: "user-0", displayName: "x", isAnonymous: false, createdAt: created)
            try await repository.register(
                CredentialRecordEntry(
                    id: [9], userID: impostor.id, publicKey: [1], algorithm: -7, signCount: 0, uvInitialized: true, transports: [],
                    backupEligible: true, backupState: true, aaguid: "00000000-0000-0000-0000-000000000000", attestationFormat: "none",
                    attestationType: "none", createdAt: created),
                for: impostor)
        }
        let ambiguous = try await run(["users", "disable", "user-0", "--database", database])
        #expect(ambiguous.status != 0 && ambiguous.output.contains("user-0 is one account's user id and another account's username: say which with --by id or --by username"), "\(ambiguous.output)")
        let byName = try await run(["users", "disable", "USER-0", "--by", "username", "--database", database])
        #expect(byName.status == 0 && byName.output.hasPrefix("user-9  \"user-0\"  "), "\(byName.output)")
        let byID = try await run(["users", "disable", "user-0", "--by", "id", "--database", database])
        #expect(byID.status == 0 && byID.output.hasPrefix("user-0  \"ann\"  "), "\(byID.output)")

        let unknown = try await run(["users", "disable", "nobody", "--database", database])
        #expect(unknown.status == 1 && unknown.output.contains("no account with the user id or username nobody"), "\(unknown.output)")
        #expect(!unknown.output.contains("Usage:"), "a failure, not a misuse: no usage text")
        let tooMany = try await run(["users", "list", "--limit", "0", "--database", database])
        #expect(tooMany.status != 0 && tooMany.output.contains("--limit must be 1 to 10000"), "\(tooMany.output)")
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
        // Revoked twice: the second time changes nothing and says so.
        let id = try #require(listed.output.split(separator: "\n").last?.split(separator: " ").first.map(String.init))
        let revoked = try await run(["api-keys", "revoke", id, "--database", database])
        #expect(revoked.status == 0 && revoked.output == "revoked \(id)\n", "\(revoked.output)")
        let again = try await run(["api-keys", "revoke", id, "--database", database])
        #expect(again.status == 0 && again.output.hasPrefix("\(id) was already revoked ("), "\(again.output)")
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
        // The command knows the server's address only from its own settings: it says where the link's start came from.
        #expect(invited.output.contains("The link starts with http://localhost:8080, from the defaults"), "\(invited.output)")
        let placed = try await run(["admin", "invite", "--public-url", "https://auth.example.com", "--rp-id", "example.com", "--database", database])
        #expect(placed.output.hasPrefix("https://auth.example.com/dashboard/setup?token=") && !placed.output.contains("The link starts with"), "\(placed.output)")
        let health = try await run(["health", "--help"])
        #expect(health.output.contains("Seconds to wait for the answer. (default: 5.0)"), "one default: \(health.output)")
    }
}
