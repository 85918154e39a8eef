import PasskeyAPI
import ArgumentParser
import Foundation
import PasskeyClient
import PasskeySoftwareAuthenticator
import PasskeyWire

/// Options of the commands that act with a connect token minted by an app's backend.
struct ConnectOptions: ParsableArguments {
    @Option(name: .long, help: "A connect token from the app's backend (POST /connect/tokens). Also PASSKEY_CONNECT_TOKEN.")
    var token: String?

    /// Checked while parsing, so the subcommand's usage is shown with the message (see ServerOptions.validate()).
    func validate() throws { _ = try resolvedToken() }

    func resolvedToken() throws -> String {
        if let token, !token.isEmpty { return token }
        if let value = ProcessInfo.processInfo.environment["PASSKEY_CONNECT_TOKEN"], !value.isEmpty { return value }
        throw ValidationError("--token is required (a connect token from the app's backend)")
    }
}

extension ServerOptions {
    /// Connect flows over HTTP (through `transport`, to read the full answers) with the software authenticator
    /// keeping its passkeys in `store`.
    func makeConnect(store: any CredentialStore, transport: RecordingTransport) throws -> PasskeyConnect {
        PasskeyConnect(transport: transport, authenticator: makeAuthenticator(origin: try originPolicy(), store: store))
    }
}

func passkeyJSON(_ passkey: PasskeyInfo) -> JSONValue {
    .object([
        "id": .string(passkey.id), "name": .string(passkey.name), "provider": .optional(passkey.provider),
        "createdAt": .optional(passkey.createdAt.map(iso8601)), "lastUsedAt": .optional(passkey.lastUsedAt.map(iso8601)),
        "synced": .bool(passkey.isSynced), "deviceBound": .bool(passkey.isDeviceBound), "transports": .array(passkey.transports.map(JSONValue.string)),
    ])
}

/// `passkey append`: adds a passkey to an existing account with a passkey-append connect token.
struct AppendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "append",
        abstract: "Add a passkey to an app's existing account with a passkey-append connect token (software authenticator).",
        discussion: """
            The app's backend mints the token for its signed-in user (POST /connect/tokens with an API key). With \
            --replaces, the named passkey is removed once the new one verifies. Exit status: 0 added, 1 refused \
            (expired or used token, already registered on this authenticator), 2 usage error, 3 network error.
            """)

    @OptionGroup var server: ServerOptions
    @OptionGroup var connect: ConnectOptions
    @Option(name: .long, help: "A passkey id to replace (reset).") var replaces: String?
    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        // The new passkey is written only once the server has verified it (see PendingCredentialStore).
        let store = PendingCredentialStore(file: try storeOptions.fileStore(command: "append", writing: true))
        let transport = RecordingTransport(baseURL: try server.serverURL())
        let flows = try server.makeConnect(store: store, transport: transport)
        switch await flows.append(connectToken: try connect.resolvedToken(), replacing: replaces) {
        case .completed(let passkey):
            try await CeremonyFailure.commit(store, command: "append", json: storeOptions.json)
            if storeOptions.json {
                let answer = transport.answer("connect/append/verify", as: AppendVerifyAnswer.self)
                print(
                    JSONValue.object([
                        "ok": true, "verified": .bool(answer?.account.verified ?? true), "userId": .optional(answer?.account.userId),
                        "username": .optional(answer?.account.username), "credentialId": .string(answer?.account.credentialId ?? passkey.id),
                        "passkey": passkeyJSON(passkey, server: answer?.passkey),
                        "signedPasskeyData": .optional(answer?.account.signedPasskeyData), "store": .string(storeOptions.storeURL.path),
                    ]).prettyPrinted())
            } else {
                print("✓ added passkey \(shown(passkey.id)) on \(server.server)")
                print("  stored in: \(storeOptions.storeURL.path)")
            }
        case .cancelled:
            throw CeremonyFailure.report(.cancelled(), command: "append", json: storeOptions.json)
        case .excludeCredentialsMatch:
            throw CeremonyFailure.report(
                PasskeyError(.excludedCredentialExists, stage: .authenticator, "excludeCredentials matched"), command: "append",
                json: storeOptions.json, explanation: "this credential file already holds a passkey of the account")
        case .error(let error):
            var explanation = server.explanation(for: error)
            if error.server?.code == .connectTokenInvalid { explanation = "the token is unknown, expired or already used; ask the backend for a new one" }
            if error.server?.code == .connectTokenWrongType { explanation = "append needs a passkey-append token" }
            throw CeremonyFailure.report(error, command: "append", json: storeOptions.json, explanation: explanation)
        }
    }
}

/// `passkey passkeys list|rename|delete`: manages an account's passkeys with connect tokens.
struct PasskeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkeys", abstract: "List, rename or delete an account's passkeys with a connect token.",
        subcommands: [List.self, Rename.self, Delete.self])

    struct Output: ParsableArguments {
        @Flag(name: .long, help: "Print one JSON object instead of text.") var json = false
    }

    /// Checks the positional values of rename and delete, which take every input that is not a known option.
    ///
    /// With the wrong number of them, one that begins with `--` was most likely an option the command does not have
    /// (`--origin`), and is reported as such; with the right number, it is an id (base64url may begin with `--`).
    static func expect(_ values: [String], count: Int, _ what: String) throws {
        guard values.count != count else { return }
        if let option = values.first(where: { $0.hasPrefix("--") }) {
            throw ValidationError("Unknown option '\(option.prefix(80))'")
        }
        let listed = values.map { "\"\($0.prefix(80))\"" }.joined(separator: ", ")
        throw ValidationError("expected \(what), got \(values.count) value(s)" + (values.isEmpty ? "" : ": " + listed))
    }

    static func client(_ server: ServerAddressOptions) throws -> (PasskeyConnect, RecordingTransport) {
        let transport = RecordingTransport(baseURL: try server.serverURL())
        return (PasskeyConnect(transport: transport, authenticator: ScriptedAuthenticator()), transport)
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List passkeys (passkey-list token). Exit status 0, 1 refused, 2 usage, 3 network.")
        @OptionGroup var server: ServerAddressOptions
        @OptionGroup var connect: ConnectOptions
        @OptionGroup var output: Output

        func run() async throws {
            let passkeys: [PasskeyInfo]
            let ((client, transport), token) = (try PasskeysCommand.client(server), try connect.resolvedToken())
            do { passkeys = try await client.listPasskeys(connectToken: token) } catch {
                throw CeremonyFailure.report(error, command: "passkeys list", json: output.json)
            }
            if output.json {
                let answer = transport.answer("connect/passkeys", as: PasskeyListAnswer.self)
                let items = passkeys.map { passkey in passkeyJSON(passkey, server: answer?.passkeys.first { $0.id == passkey.id }) }
                print(
                    JSONValue.object([
                        "ok": true, "passkeys": .array(items), "rpId": .optional(answer?.rpId), "user": answer?.user?.json ?? .null,
                    ]).prettyPrinted())
                return
            }
            guard !passkeys.isEmpty else {
                print("no passkeys")
                return
            }
            for passkey in passkeys {
                let kind = passkey.isSynced ? "synced" : (passkey.isDeviceBound ? "device-bound" : "not synced")
                print("- \(shown(passkey.name))\(passkey.provider.map { " (\(shown($0)))" } ?? "")  \(kind)")
                print("    id \(shown(passkey.id))")
                print("    created \(passkey.createdAt.map(iso8601) ?? "?"), " + (passkey.lastUsedAt.map { "last used \(iso8601($0))" } ?? "never used"))
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rename a passkey (passkey-list token).",
            usage: "passkey passkeys rename --server <server> [--token <token>] <id> <name> [--json]")
        @OptionGroup var server: ServerAddressOptions
        @OptionGroup var connect: ConnectOptions
        /// The id and the name. A passkey id is base64url, so one in 64 begins with `-`: read as an option, it made the
        /// command fail with "missing argument" unless the user knew to write `--` first. Taking every input that is
        /// not one of the command's options keeps such ids working as `passkeys list` prints them.
        @Argument(
            parsing: .allUnrecognized,
            help: ArgumentHelp("The passkey id (as passkeys list prints it, even one that begins with -), then the new name (1 to 64 characters).", valueName: "id> <name"))
        var values: [String] = []
        @OptionGroup var output: Output

        func validate() throws {
            try PasskeysCommand.expect(values, count: 2, "a passkey id and a new name")
        }

        func run() async throws {
            let (id, name) = (values.first ?? "", values.last ?? "")  // two of them, after validate()
            let passkey: PasskeyInfo
            let ((client, transport), token) = (try PasskeysCommand.client(server), try connect.resolvedToken())
            do { passkey = try await client.renamePasskey(id: id, name: name, connectToken: token) } catch {
                throw CeremonyFailure.report(error, command: "passkeys rename", json: output.json)
            }
            if output.json {
                print(JSONValue.object(["ok": true, "passkey": passkeyJSON(passkey, server: transport.lastAnswer(as: PasskeyEntry.self))]).prettyPrinted())
            } else {
                print("✓ renamed \(shown(passkey.id)) to \(shown(passkey.name))")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a passkey (passkey-delete token, used once).",
            usage: "passkey passkeys delete --server <server> [--token <token>] <id> [--json]")
        @OptionGroup var server: ServerAddressOptions
        @OptionGroup var connect: ConnectOptions
        /// The id; taken as ``Rename/values`` are, so an id that begins with `-` works.
        @Argument(
            parsing: .allUnrecognized,
            help: ArgumentHelp("The passkey id (as passkeys list prints it, even one that begins with -).", valueName: "id"))
        var values: [String] = []
        @OptionGroup var output: Output

        func validate() throws {
            try PasskeysCommand.expect(values, count: 1, "one passkey id")
        }

        func run() async throws {
            let id = values.first ?? ""  // the one, after validate()
            let ((client, _), token) = (try PasskeysCommand.client(server), try connect.resolvedToken())
            do { try await client.deletePasskey(id: id, connectToken: token) } catch {
                throw CeremonyFailure.report(error, command: "passkeys delete", json: output.json)
            }
            if output.json { print(JSONValue.object(["ok": true, "deleted": .string(id)]).prettyPrinted()) } else { print("✓ deleted \(id)") }
        }
    }
}
