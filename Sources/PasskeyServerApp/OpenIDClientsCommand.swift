import ArgumentParser
import Foundation
import PasskeyRelyingParty
import PasskeyServer
import PasskeyStorage

/// `passkey-server oidc-clients`: manage the OpenID Provider's clients from a shell, the same changes as the backend
/// API's `/oidc/clients` (docs/oidc.md). Running servers read clients at every request: a change applies at once.
struct OpenIDClientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oidc-clients", abstract: "Add, list, change, rotate the secret of and remove OpenID clients (applications that sign in here).",
        subcommands: [List.self, Add.self, Update.self, RotateSecret.self, Remove.self])

    static func clients(_ root: PasskeyServerCommand) async throws -> OpenIDClients {
        let repository = try await openStorage(root, mustExist: true)
        return OpenIDClients(repository: repository, audit: StoredAuditLog(repository: repository))
    }

    static func line(_ client: OpenIDClientRecord) -> String {
        let kind = client.isPublic ? "public" : "confidential"
        let state = client.disabledAt == nil ? "enabled" : "disabled"
        let party = client.thirdParty ? "  third-party" : ""
        return "\(client.id)  \"\(UsersCommand.visible(client.name))\"  \(kind)  \(client.idTokenAlgorithm)  \(state)\(party)  "
            + client.redirectURIs.map(UsersCommand.visible).joined(separator: " ")
    }

    static func refusing<T>(_ body: () async throws(RelyingPartyError) -> T) async throws -> T {
        do { return try await body() } catch { throw CommandFailure("\(error.message) (\(error.code))") }
    }

    static func list(_ text: [String]) -> [String]? {
        let values = text.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty }
        return values.isEmpty ? nil : values
    }

    /// What `add` and `update` both take.
    struct Settings: ParsableArguments {
        @Option(help: "A redirect URI, compared exactly (repeatable, or comma-separated).") var redirectUri: [String] = []
        @Option(help: "Where RP-initiated logout may send the browser afterwards (repeatable).") var postLogoutRedirectUri: [String] = []
        @Option(help: "Scopes it may ask for, comma-separated: openid, profile, email, offline_access (default all).") var scopes: String?
        @Option(help: "ID token algorithm: RS256 (default) or ES256.") var idTokenAlgorithm: String?
        @Option(help: "Seconds an access token and ID token live (60 to 86400, default 600).") var accessTokenSeconds: Int?
        @Option(help: "Seconds a refresh token lives (default 2592000, 30 days); each use replaces it.") var refreshTokenSeconds: Int?

        func settings(name: String?, thirdParty: Bool?, enabled: Bool? = nil) -> OpenIDClients.Settings {
            OpenIDClients.Settings(
                name: name, redirectURIs: OpenIDClientsCommand.list(redirectUri), postLogoutRedirectURIs: OpenIDClientsCommand.list(postLogoutRedirectUri),
                scopes: scopes.map { OpenIDClientsCommand.list([$0]) ?? [] }, idTokenAlgorithm: idTokenAlgorithm, thirdParty: thirdParty,
                accessTokenLifetime: accessTokenSeconds, refreshTokenLifetime: refreshTokenSeconds, enabled: enabled)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List clients: id, name, public or confidential, ID token algorithm, state, redirect URIs.", usage: databaseUsage("oidc-clients list"),
            discussion: databaseDiscussion())
        @ParentCommand var root: PasskeyServerCommand

        func run() async throws {
            let clients = try await OpenIDClientsCommand.clients(root)
            let all = try await OpenIDClientsCommand.refusing { () async throws(RelyingPartyError) in try await clients.list() }
            if all.isEmpty { say("no OpenID clients") }
            for client in all { say(OpenIDClientsCommand.line(client)) }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a client; print its client id, and for a confidential client its secret, shown only now.",
            usage: databaseUsage("oidc-clients add <name> --redirect-uri <uri> [--public] [--third-party] [--id-token-algorithm ES256]"),
            discussion: databaseDiscussion("Paste the client id, the secret and the discovery URL (<issuer>/.well-known/openid-configuration) into the application's OpenID Connect settings."))
        @ParentCommand var root: PasskeyServerCommand
        @Argument(help: "What the application is called (shown on the sign-in page).") var name: String
        @OptionGroup var settings: Settings
        @Flag(help: "A public client (a single-page or native app): no secret, PKCE required.") var `public` = false
        @Flag(help: "Run by someone else: the person is asked to consent before it learns who they are.") var thirdParty = false

        func run() async throws {
            let clients = try await OpenIDClientsCommand.clients(root)
            let made = try await OpenIDClientsCommand.refusing { () async throws(RelyingPartyError) in
                try await clients.create(settings.settings(name: name, thirdParty: thirdParty), isPublic: `public`, by: UsersCommand.actor)
            }
            say("client_id: \(made.0.id)")
            if let secret = made.secret { say("client_secret: \(secret)") }
            note("Added \(OpenIDClientsCommand.line(made.0))" + (made.secret == nil ? "" : "\nThe secret is not shown again (`oidc-clients rotate-secret` makes a new one)."))
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a client's name, redirect URIs, scopes, algorithm or lifetimes, or disable or enable it.",
            usage: databaseUsage("oidc-clients update <client id> [--name <name>] [--redirect-uri <uri>]… [--disable|--enable]"),
            discussion: databaseDiscussion("Redirect URIs given replace the list. A disabled client's tokens stop working at once."))
        @ParentCommand var root: PasskeyServerCommand
        @Argument(help: "The client id (oc_…).") var id: String
        @Option(help: "A new name.") var name: String?
        @OptionGroup var settings: Settings
        @Flag(exclusivity: .exclusive, help: "Whether the person is asked to consent.") var party: Party?
        @Flag(exclusivity: .exclusive, help: "Disable or enable it.") var state: State?

        enum Party: String, EnumerableFlag { case thirdParty, firstParty }
        enum State: String, EnumerableFlag { case disable, enable }

        func run() async throws {
            let clients = try await OpenIDClientsCommand.clients(root)
            let client = try await OpenIDClientsCommand.refusing { () async throws(RelyingPartyError) in
                try await clients.update(
                    id: id, settings.settings(name: name, thirdParty: party.map { $0 == .thirdParty }, enabled: state.map { $0 == .enable }),
                    by: UsersCommand.actor)
            }
            say(OpenIDClientsCommand.line(client))
        }
    }

    struct RotateSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-secret", abstract: "Give a confidential client a new secret and print it; the old one stops working at once.",
            usage: databaseUsage("oidc-clients rotate-secret <client id>"), discussion: databaseDiscussion())
        @ParentCommand var root: PasskeyServerCommand
        @Argument(help: "The client id (oc_…).") var id: String

        func run() async throws {
            let clients = try await OpenIDClientsCommand.clients(root)
            let (_, secret) = try await OpenIDClientsCommand.refusing { () async throws(RelyingPartyError) in
                try await clients.rotateSecret(id: id, by: UsersCommand.actor)
            }
            say("client_secret: \(secret)")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a client, with its codes and tokens.", usage: databaseUsage("oidc-clients remove <client id>"),
            discussion: databaseDiscussion())
        @ParentCommand var root: PasskeyServerCommand
        @Argument(help: "The client id (oc_…).") var id: String

        func run() async throws {
            let clients = try await OpenIDClientsCommand.clients(root)
            try await OpenIDClientsCommand.refusing { () async throws(RelyingPartyError) in try await clients.delete(id: id, by: UsersCommand.actor) }
            note("Removed \(id).")
        }
    }
}
