import PasskeyAPI
import ArgumentParser
import Foundation
import PasskeyClient
import PasskeySoftwareAuthenticator
import PasskeyWire

/// Options shared by the commands that use the software authenticator's credential file.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The credential file of the software authenticator (created with mode 0600). Default: ~/.passkey/credentials.json.")
    var store: String?

    @Flag(name: .long, help: "Print one JSON object instead of text.")
    var json = false

    var storeURL: URL { Self.storeURL(store, environment: ProcessInfo.processInfo.environment) }

    /// The credential file, checked first (see ``CLIFile``) so a directory, a missing directory that cannot be created
    /// or a permission problem is said in words, before anything is sent to a server. `writing` for the commands that
    /// save (register, login's counter, append). `onlyIfPresent` for a command that writes only to a file that exists
    /// (login moves the counter of a passkey the file holds): for a missing file nothing is prepared, so a mistyped
    /// `--store` makes no directories.
    func fileStore(command: String, writing: Bool, onlyIfPresent: Bool = false) throws -> FileCredentialStore {
        do throws(CLIFileError) {
            if writing, !onlyIfPresent || FileManager.default.fileExists(atPath: storeURL.path) {
                try CLIFile.prepareForWriting(storeURL.path)
            } else {
                try CLIFile.checkIfPresent(storeURL.path)
            }
        } catch {
            throw CeremonyFailure.report(
                PasskeyError(.storageFailed, stage: .storage, error.description, recovery: .checkConfiguration), command: command,
                json: json, explanation: "the credential file cannot be used: \(error.description)")
        }
        return FileCredentialStore(fileURL: storeURL)
    }

    /// `--store` with a leading `~` expanded, or `~/.passkey/credentials.json`. `~` is $HOME when set, as in a shell
    /// (Foundation's home directory on Linux is the password database's, which ignores HOME=/tmp/x), and the user's
    /// home directory otherwise.
    static func storeURL(_ store: String?, environment: [String: String]) -> URL {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        guard let store else { return home.appendingPathComponent(".passkey/credentials.json") }
        if store == "~" { return home }
        if store.hasPrefix("~/") { return home.appendingPathComponent(String(store.dropFirst(2))) }
        return URL(fileURLWithPath: store)
    }
}

/// Options of the commands that talk to a passkey server.
struct ServerOptions: ParsableArguments {
    @Option(name: .long, help: "The passkey server's base URL, for example http://localhost:8080.")
    var server: String

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The origin the authenticator reports. Default: the server URL's origin (a browser on that site).",
            discussion: "ios (or apple): an iOS/macOS app, origin https://<rp id>; android:apk-key-hash:HASH: an Android app; any other value: a website at that origin."))
    var origin: String?

    /// Checked while parsing, so ArgumentParser shows the subcommand's usage with the message (thrown from run(), the
    /// same error came with the top-level "Usage: passkey <subcommand>").
    func validate() throws {
        _ = try serverURL()
        _ = try originPolicy()
    }

    func serverURL() throws -> URL { try Self.serverURL(server) }

    static func serverURL(_ server: String) throws -> URL {
        guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw ValidationError("--server must be an http:// or https:// URL, for example http://localhost:8080")
        }
        // The ceremony paths are appended to the URL: a query or fragment would end up before them, and credentials in
        // the URL would be sent to every endpoint.
        guard url.query == nil, url.fragment == nil, url.user == nil, url.password == nil else {
            throw ValidationError(
                "--server takes the server's address without a query, fragment or user name, for example http://localhost:8080")
        }
        return url
    }

    /// `scheme://host[:port]` of the server URL: what a browser on the server's own pages reports.
    func serverOrigin() throws -> String {
        let url = try serverURL()
        guard let scheme = url.scheme, let host = url.host else { throw ValidationError("--server must name a host") }
        var origin = "\(scheme.lowercased())://\(host.lowercased())"
        if let port = url.port { origin += ":\(port)" }
        return origin
    }

    /// A client for this server whose software authenticator keeps its passkeys in `store`.
    /// The client, and the transport that keeps the server's answers: `--json` passes on members the SDK's results
    /// leave out (a sign-in's `rpId` and `user`).
    /// - Parameter accountContact: the contact (and name) the software authenticator's sign-up sheet offers, for
    ///   account creation.
    func makeClient(store: any CredentialStore, accountContact: AccountContact? = nil, accountName: String? = nil) throws
        -> (PasskeyAuthClient, RecordingTransport)
    {
        let transport = RecordingTransport(baseURL: try serverURL())
        let authenticator = makeAuthenticator(
            origin: try originPolicy(), store: store, accountContacts: accountContact.map { [$0] } ?? [], accountName: accountName)
        return (PasskeyAuthClient(transport: transport, authenticator: authenticator), transport)
    }

    /// What to do when the server's RP ID does not cover the origin's host. With the default origin (the server URL's)
    /// only another --server URL helps: for example http://127.0.0.1:8080 against the default RP ID localhost, where
    /// the fix is http://localhost:8080. Only an explicit web --origin is fixed by another --origin.
    func explanation(for error: PasskeyError) -> String? {
        guard error.code == .domainNotAssociated else { return nil }
        let rpID = Self.rpID(inReason: error.reason)
        let scope = rpID.map { "the RP ID \($0) or a subdomain of it" } ?? "the server's RP ID or a subdomain of it"
        guard let origin, !origin.isEmpty else {
            var text = "the server URL's host is not \(scope), so a browser on \(server) could not use the server's passkeys"
            if let rpID, let url = try? serverURL(), var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) {
                parts.host = rpID
                if let suggested = parts.string { text += "; use --server \(suggested)" }
            } else {
                text += "; use a --server URL with such a host"
            }
            return text
        }
        return "the origin \(origin) is not on \(scope); use an --origin whose host is, or ios / android:apk-key-hash:HASH for an app"
    }

    /// The RP ID named by the software authenticator's domainNotAssociated reason, "RP ID X is neither …".
    static func rpID(inReason reason: String) -> String? {
        guard reason.hasPrefix("RP ID ") else { return nil }
        return reason.dropFirst("RP ID ".count).split(separator: " ").first.map(String.init)
    }

    func originPolicy() throws -> OriginPolicy {
        guard let origin, !origin.isEmpty else { return .web(try serverOrigin()) }
        switch origin.lowercased() {
        case "ios", "apple", "apple-app": return .appleApp
        default: break
        }
        let prefix = "android:apk-key-hash:"
        if origin.hasPrefix(prefix) {
            return .android(apkKeyHash: String(origin.dropFirst(prefix.count)), packageName: nil)
        }
        guard origin.hasPrefix("https://") || origin.hasPrefix("http://"), !origin.hasSuffix("/") else {
            throw ValidationError("--origin must be ios, android:apk-key-hash:HASH, or an origin such as https://www.example.com (no path)")
        }
        return .web(origin)
    }
}

/// The server of the commands that run no ceremony (`passkeys list|rename|delete`): no authenticator, so no --origin,
/// which there would be accepted and do nothing.
struct ServerAddressOptions: ParsableArguments {
    @Option(name: .long, help: "The passkey server's base URL, for example http://localhost:8080.")
    var server: String

    func validate() throws { _ = try serverURL() }

    func serverURL() throws -> URL { try ServerOptions.serverURL(server) }
}

/// How a command ends when a ceremony fails: the message, and the documented exit status.
enum CeremonyFailure {
    /// 3 for the network, 2 for an unreadable credential file, 1 for every refusal (server, authenticator, person).
    static func exitStatus(for error: PasskeyError) -> CLIExit {
        switch error.code {
        case .network: .network
        case .timeout where error.stage == .network: .network
        case .storageFailed, .storageCorrupted: .usage
        default: .refused
        }
    }

    /// Prints the failure (JSON on stdout, or text on stderr) and returns the exit code to throw.
    static func report(_ error: PasskeyError, command: String, json: Bool, explanation: String? = nil) -> ExitCode {
        let status = exitStatus(for: error)
        let message = explanation ?? defaultExplanation(error)
        if json {
            print(
                failureJSON(
                    error: error.code.rawValue, stage: error.stage.rawValue, message: message, detail: error.reason,
                    serverError: error.server.map { JSONValue.string($0.code.rawValue) } ?? .null,
                    httpStatus: error.server?.httpStatus.map { JSONValue.number(Double($0)) } ?? .null
                ).prettyPrinted())
        } else {
            var text = "passkey \(command): \(shown(message))"
            text += "\n  code:   \(error.code.rawValue) (stage \(error.stage.rawValue))"
            if let server = error.server {
                text += "\n  server: \(server.httpStatus.map { "HTTP \($0) " } ?? "")\(shown(server.code.rawValue)): \(shown(server.message))"
            } else {
                text += "\n  detail: \(shown(error.reason))"
            }
            FileHandle.printError(text)
        }
        return ExitCode(status.rawValue)
    }

    /// The one shape of every `--json` failure, whichever subcommand and whatever failed (docs/sdk.md):
    /// `{"ok": false, "error", "stage", "serverError", "httpStatus", "message", "detail"}`.
    static func failureJSON(
        error: String, stage: String, message: String, detail: String, serverError: JSONValue = .null, httpStatus: JSONValue = .null
    ) -> JSONValue {
        .object([
            "ok": false, "error": .string(error), "stage": .string(stage), "serverError": serverError, "httpStatus": httpStatus,
            "message": .string(message), "detail": .string(detail),
        ])
    }

    /// Writes the passkey the server just verified; a failure here is reported as such, since the server now holds a
    /// passkey this file lacks.
    static func commit(_ store: PendingCredentialStore, command: String, json: Bool) async throws {
        do { try await store.commit() } catch {
            throw report(
                error, command: command, json: json,
                explanation: "the server accepted the new passkey but it could not be saved in the credential file (\(error.reason))")
        }
    }

    static func defaultExplanation(_ error: PasskeyError) -> String {
        switch error.code {
        case .network: error.reason
        case .timeout: "the server did not answer in time"
        case .storageCorrupted: "the credential file is damaged or was edited by hand; it was left untouched"
        case .storageFailed: "the credential file cannot be used (\(error.reason))"
        case .noCredentials: "the credential file holds no passkey for this server and account"
        case .invalidChallenge where error.server != nil:
            "the server no longer knows this challenge (expired or already used); run the command again"
        case .invalidChallenge: "the server's options carry a challenge that cannot be signed (\(error.reason))"
        case .domainNotAssociated: "the origin's host is not the server's RP ID or a subdomain of it (\(error.reason))"
        case .invalidResponse where error.stage != .authenticator:
            "the server's answer is not what a passkey server sends (\(error.reason)): is --server the passkey server's address?"
        case _ where error.server?.httpStatus == 404 && error.server?.code == .notFound:
            "the server has no such endpoint (HTTP 404): --server takes the passkey server's base URL, under which its API paths "
                + "such as /generate-authentication-options are (for example http://localhost:8080)"
        default: error.server.map { "the server refused: \($0.message)" } ?? error.userMessage
        }
    }
}

/// The software authenticator the CLI runs: a device-bound passkey (incrementing counter) in the credential file
/// (`store` is the file, or a ``PendingCredentialStore`` over it for registrations).
func makeAuthenticator(
    origin: OriginPolicy, store: any CredentialStore, accountContacts: [AccountContact] = [], accountName: String? = nil
) -> SoftwareAuthenticator {
    SoftwareAuthenticator(
        configuration: SoftwareAuthenticatorConfiguration(
            origin: origin, transports: [.internal], accountContacts: accountContacts, accountName: accountName),
        store: store)
}

extension JSONValue {
    static func optional(_ string: String?) -> JSONValue { string.map(JSONValue.string) ?? .null }
}

func iso8601(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

/// A value from a server, a credential file or a response, as text output shows it: on one line, without terminal
/// controls, bounded (``DisplayEscaping``). A server's answer must not be able to forge a `✓` line or drive the terminal.
func shown(_ value: String) -> String { DisplayEscaping.escape(value) }
