import ArgumentParser
import Foundation
import PasskeyRelyingParty
import PasskeyServer
import PasskeyStorage
import PasskeyWire

/// `passkey-server users`: find accounts and disable or enable them from a shell, for an operator without the dashboard
/// (none set up, or locked out of it) or a script. The same change as `PATCH /users/{id}` and the dashboard's button.
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "List accounts, disable or enable one, and give one a recovery or onboarding link.",
        subcommands: [List.self, Flagged.self, Disable.self, Enable.self, Link.self, Unlink.self])

    /// One line per account, with the fields an operator decides on.
    static func line(_ user: UserRecord) -> String {
        let formatter = ISO8601DateFormatter()
        let state = user.disabledAt.map { "disabled \(formatter.string(from: $0))" } ?? "active"
        let lastSignIn = user.lastSignInAt.map { formatter.string(from: $0) } ?? "never"
        // Names come from users: quoted and escaped, so a name cannot forge another line or move the terminal's cursor.
        // An anonymous account shows the name its passkeys carry, and says it is anonymous outside the quotes.
        let name = "\"" + visible(user.entityName) + "\"" + (user.isAnonymous ? " (anonymous)" : "")
        return "\(user.id)  \(name)  created \(formatter.string(from: user.createdAt))  last sign-in \(lastSignIn)  \(state)"
    }

    /// `text` safe on one terminal line (``DisplayEscaping``), with `"` and `\` escaped so that a quoted name cannot
    /// close its quotes early.
    static func visible(_ text: String) -> String {
        DisplayEscaping.escape(text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))
    }

    /// How the account is named on the command line.
    enum Reference: String, ExpressibleByArgument, CaseIterable {
        case id
        case username
    }

    /// The account `reference` names: by `by`, or when it is not given, by user id or by username (case-insensitive,
    /// as sign-in finds it) as long as it names one account. Anyone may register a username that is another account's
    /// user id: such an argument is refused rather than guessed, as `PATCH /users/{id}` refuses an ambiguous id.
    static func account(_ reference: String, by: Reference?, in repository: any PasskeyRepository) async throws -> UserRecord {
        let byID = by == .username ? nil : try await repository.user(id: reference)
        let byName = by == .id ? nil : try await repository.user(username: reference)
        switch (byID, byName) {
        case (let id?, let name?) where id.id != name.id:
            throw ValidationError(
                "\(visible(reference)) is one account's user id and another account's username: say which with --by id or --by username")
        case (let user?, _), (nil, let user?):
            return user
        case (nil, nil):
            let what = by.map { $0 == .id ? "user id" : "username" } ?? "user id or username"
            throw CommandFailure("no account with the \(what) \(visible(reference)) (see: passkey-server users list)")
        }
    }

    /// Changes made here go through the service the dashboard and the backend API use, with the same checks, webhook
    /// messages and audit entries; the entries say they came from this machine's command line.
    static func administration<Repository: PasskeyRepository>(_ repository: Repository) -> AccountAdministration<Repository> {
        AccountAdministration(repository: repository, audit: StoredAuditLog(repository: repository))
    }

    static var actor: AuditActor { .commandLine(host: ProcessInfo.processInfo.hostName) }

    /// `change`'s refusal as the command's failure: its message, without the code.
    static func refusing<T>(_ change: () async throws(RelyingPartyError) -> T) async throws -> T {
        do { return try await change() } catch { throw CommandFailure(error.message) }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List accounts, newest first: user id, username, created, last sign-in, active or disabled.",
            usage: databaseUsage("users list [--search <text>] [--limit <n>]"), discussion: databaseDiscussion())
        @ParentCommand var root: PasskeyServerCommand
        @Option(help: "Only usernames that contain this text (case-insensitive).") var search: String?
        @Option(help: "At most this many accounts, 1 to 10000 (default 100).") var limit: Int = 100

        func run() async throws {
            guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be 1 to 10000") }
            let users = try await openStorage(root, mustExist: true).users(matching: search, limit: limit, offset: 0)
            if users.isEmpty { say(search == nil ? "no accounts" : "no account's username contains \(visible(search ?? ""))") }
            for user in users { say(UsersCommand.line(user)) }
        }
    }

    struct Flagged: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the passkeys whose authenticator model the metadata BLOB in force reports compromised, with their accounts.",
            usage: databaseUsage("users flagged"), discussion: databaseDiscussion())
        @ParentCommand var root: PasskeyServerCommand

        func run() async throws {
            guard let (store, configuration, blob, _) = try await MetadataCommand.inForce(root) else { return }
            for line in try await MetadataCommand.flaggedPasskeys(blob, store: store, configuration: configuration, at: Date()) { say(line) }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disable an account: it keeps its passkeys, but nothing signs in to it or adds a passkey until it is enabled.",
            usage: databaseUsage("users disable <user> [--by id|username]"),
            discussion: databaseDiscussion(
                "Its connect tokens are deleted, its pending ceremonies are spent, and its earlier sign-in tokens (signedPasskeyData) stop verifying at /connect/verify, also once it is enabled again. Running servers refuse its next sign-in at once: they read the account with each one."))
        @ParentCommand var root: PasskeyServerCommand
        @OptionGroup var account: AccountArguments

        func run() async throws { try await account.set(disabled: true, root: root) }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Enable a disabled account again.", usage: databaseUsage("users enable <user> [--by id|username]"), discussion: databaseDiscussion())
        @ParentCommand var root: PasskeyServerCommand
        @OptionGroup var account: AccountArguments

        func run() async throws { try await account.set(disabled: false, root: root) }
    }

    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a one-time link that lets its holder add a passkey to an account: to recover one whose passkeys are lost, or to onboard one.",
            usage: databaseUsage("users link <user> [--by id|username] [--replace-passkeys] [--hours <n>]") + " [--public-url <url>] [--origin <origin>] [--rp-id <rp-id>] [--port <port>]",
            discussion: databaseDiscussion(
                "Send the link to the account's person over a channel you trust them on. It works once, until it expires (default 24 hours); with --replace-passkeys, redeeming it deletes the account's other passkeys in the same step (a lost or stolen device). Only its hash is stored: it is not shown again. The link is built from the server's settings (--public-url, --origin, --rp-id, --port), as the server would print it; `passkey link --server URL <link>` redeems it from a shell."))
        @ParentCommand var root: PasskeyServerCommand
        @OptionGroup var account: AccountArguments
        @Flag(help: "Delete the account's other passkeys when the link is redeemed (a lost device).") var replacePasskeys = false
        @Option(parsing: .unconditional, help: "Hours the link works, 0.1 to 720.") var hours: Double = 24

        func run() async throws {
            guard hours.isFinite, hours * 3600 >= 300, hours <= 720 else { throw ValidationError("--hours must be 0.1 to 720 (5 minutes to 30 days)") }
            let configuration = try root.makeConfiguration()
            let link = try await makeLink(in: try await openStorage(root, mustExist: true))
            let user = link.user
            let shown = String(format: "%g", hours)
            say(link.url(base: configuration.linkBase))
            note(
                "For \(UsersCommand.line(user))\nIt works once, for \(shown) hours\(replacePasskeys ? ", and deletes the account's other passkeys" : ""). It is not shown again; `passkey-server users unlink` revokes it.")
            if let hint = linkBaseNote(configuration) { note(hint) }
        }

        func makeLink<Repository: PasskeyRepository>(in repository: Repository) async throws -> AccountLink {
            let user = try await UsersCommand.account(account.user, by: account.by, in: repository)
            return try await UsersCommand.refusing { () async throws(RelyingPartyError) in
                try await UsersCommand.administration(repository).makeLink(
                    for: user, replacingPasskeys: replacePasskeys, lifetime: hours * 3600, by: UsersCommand.actor)
            }
        }
    }

    struct Unlink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke an account's unused recovery and onboarding links.",
            usage: databaseUsage("users unlink <user> [--by id|username]"), discussion: databaseDiscussion())
        @ParentCommand var root: PasskeyServerCommand
        @OptionGroup var account: AccountArguments

        func run() async throws {
            let (user, count) = try await revoke(in: try await openStorage(root, mustExist: true))
            say("revoked \(count) link\(count == 1 ? "" : "s") of \(UsersCommand.line(user))")
        }

        func revoke<Repository: PasskeyRepository>(in repository: Repository) async throws -> (UserRecord, Int) {
            let user = try await UsersCommand.account(account.user, by: account.by, in: repository)
            let count = try await UsersCommand.refusing { () async throws(RelyingPartyError) in
                try await UsersCommand.administration(repository).revokeLinks(of: user, by: UsersCommand.actor)
            }
            return (user, count)
        }
    }

    /// The account `disable` and `enable` act on.
    struct AccountArguments: ParsableArguments {
        @Argument(help: "The account's user id, or its username.") var user: String
        @Option(help: "Whether <user> is a user id or a username (needed when it is one account's id and another's name).") var by: Reference?

        func set(disabled: Bool, root: PasskeyServerCommand) async throws {
            say(UsersCommand.line(try await set(disabled: disabled, in: try await openStorage(root, mustExist: true))))
        }

        func set<Repository: PasskeyRepository>(disabled: Bool, in repository: Repository) async throws -> UserRecord {
            let account = try await UsersCommand.account(user, by: by, in: repository)
            return try await UsersCommand.refusing { () async throws(RelyingPartyError) in
                try await UsersCommand.administration(repository).setDisabled(disabled, account, by: UsersCommand.actor)
            }
        }
    }
}
