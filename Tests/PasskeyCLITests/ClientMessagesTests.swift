import Foundation
import PasskeyWire
import Testing

/// What `register`, `login` and `append` say when they are used wrongly: each message must name the fix.
@Suite("passkey register / login messages", .serialized)
struct ClientMessagesTests {
    @Test("a server URL on 127.0.0.1 against RP ID localhost: the fix is http://localhost:PORT, not --origin")
    func loopbackAddressInsteadOfLocalhost() async throws {
        let server = try ServerProcess()
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let store = try privateFile("credentials.json")

        let run = try CLIRun.run(["register", "--server", "http://127.0.0.1:\(server.port)", "--username", "carol", "--store", store])
        #expect(run.status == 1)
        #expect(
            run.stderr.hasPrefix(
                "passkey register: the server URL's host is not the RP ID localhost or a subdomain of it, so a browser on "
                    + "http://127.0.0.1:\(server.port) could not use the server's passkeys; use --server http://localhost:\(server.port)\n"),
            "\(run.stderr)")
        #expect(!run.stderr.contains("use --origin"))

        let web = try CLIRun.run(
            ["login", "--server", server.url, "--origin", "https://example.com", "--store", store, "--json"])
        #expect(web.status == 1)
        #expect(
            try JSONValue.parse(web.stdout).objectValue?["message"]
                == "the origin https://example.com is not on the RP ID localhost or a subdomain of it; use an --origin whose host is, or ios / android:apk-key-hash:HASH for an app")
    }
}

extension ClientMessagesTests {
    @Test("an empty --username is refused (exit 2) with the register usage; no account is created")
    func emptyUsername() throws {
        let store = try privateFile("credentials.json")
        for username in ["", "  "] {
            let run = try CLIRun.run(["register", "--server", "http://localhost:1", "--username", username, "--store", store])
            #expect(run.status == 2)
            #expect(run.stderr.hasPrefix("Error: --username must not be empty: register creates an account with that username (--anonymous makes one without)\n"), "\(run.stderr)")
            #expect(run.stderr.contains("Usage: passkey register"), "\(run.stderr)")
        }
    }
}

extension ClientMessagesTests {
    @Test("the default credential file and a --store starting with ~ follow $HOME")
    func storeFollowsHome() throws {
        let home = try privateDirectory()
        let run = try CLIRun.run(["credentials", "--json"], environment: ["HOME": home])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try JSONValue.parse(run.stdout).objectValue?["store"] == .string(home + "/.passkey/credentials.json"))
        let tilde = try CLIRun.run(["credentials", "--store", "~/other.json", "--json"], environment: ["HOME": home])
        #expect(try JSONValue.parse(tilde.stdout).objectValue?["store"] == .string(home + "/other.json"))
    }
}

extension ClientMessagesTests {
    @Test("a bad --server, --origin or a missing --token is a usage error of the subcommand, with its usage line")
    func subcommandUsage() throws {
        let store = try privateFile("credentials.json")
        let cases: [([String], String, String)] = [
            (["register", "--server", "badurl", "--username", "x", "--store", store],
             "--server must be an http:// or https:// URL, for example http://localhost:8080", "Usage: passkey register "),
            (["login", "--server", "http://localhost:1", "--origin", "ftp://x", "--store", store],
             "--origin must be ios, android:apk-key-hash:HASH, or an origin such as https://www.example.com (no path)", "Usage: passkey login "),
            (["append", "--server", "http://localhost:1", "--store", store],
             "--token is required (a connect token from the app's backend)", "Usage: passkey append "),
            (["passkeys", "list", "--server", "http://localhost:1"],
             "--token is required (a connect token from the app's backend)", "Usage: passkey passkeys list "),
            (["bench", "--server", "badurl"],
             "--server must be an http:// or https:// URL, for example http://localhost:8080", "Usage: passkey bench "),
        ]
        for (arguments, message, usage) in cases {
            let run = try CLIRun.run(arguments, environment: ["PASSKEY_CONNECT_TOKEN": ""])
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stderr.hasPrefix("Error: \(message)\n"), "\(run.stderr)")
            #expect(run.stderr.contains(usage), "\(run.stderr)")
            #expect(!run.stderr.contains("<subcommand>"), "\(run.stderr)")
        }
    }
}

extension ClientMessagesTests {
    @Test("a passkey id that begins with - is an id, not an option, for rename and delete; a wrong count of values is a usage error")
    func passkeyIDWithDash() throws {
        // Nothing listens on port 1: reaching the network (exit 3) shows the id was taken as one.
        let rename = try CLIRun.run(["passkeys", "rename", "-AbC_x9", "Laptop", "--server", "http://localhost:1", "--token", "t"])
        #expect(rename.status == 3, "\(rename.stderr)")
        let delete = try CLIRun.run(["passkeys", "delete", "--server", "http://localhost:1", "-AbC_x9", "--token", "t"])
        #expect(delete.status == 3, "\(delete.stderr)")
        let missing = try CLIRun.run(["passkeys", "rename", "-AbC_x9", "--server", "http://localhost:1", "--token", "t"])
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix(#"Error: expected a passkey id and a new name, got 1 value(s): "-AbC_x9""#), "\(missing.stderr)")
        let extra = try CLIRun.run(["passkeys", "delete", "a", "b", "--server", "http://localhost:1", "--token", "t"])
        #expect(extra.status == 2)
        #expect(extra.stderr.hasPrefix(#"Error: expected one passkey id, got 2 value(s): "a", "b""#), "\(extra.stderr)")
    }

    @Test("passkeys list, rename and delete do not offer --origin, which would do nothing there")
    func passkeysWithoutOrigin() throws {
        for subcommand in [["list"], ["rename", "id", "name"], ["delete", "id"]] {
            let run = try CLIRun.run(["passkeys"] + subcommand + ["--server", "http://localhost:1", "--token", "t", "--origin", "ios"])
            #expect(run.status == 2, "\(subcommand)")
            #expect(run.stderr.hasPrefix("Error: Unknown option '--origin'"), "\(run.stderr)")
            #expect(!(try CLIRun.run(["passkeys"] + subcommand + ["--help"]).stdout.contains("--origin")))
        }
    }
}

extension ClientMessagesTests {
    @Test("login --username for a passkey the server no longer offers says so; a --server with a path the server lacks says what --server takes")
    func passkeyNotOfferedAndWrongBase() async throws {
        let first = try ServerProcess()
        defer { first.stop() }
        try await first.waitUntilHealthy()
        let store = try privateFile("credentials.json")
        let registered = try CLIRun.run(["register", "--server", first.url, "--username", "ann", "--store", store])
        #expect(registered.status == 0, "\(registered.stderr)")

        // Another server on the same RP ID knows no "ann": it offers passkeys of its own making, none in the file.
        let second = try ServerProcess()
        defer { second.stop() }
        try await second.waitUntilHealthy()
        let unknown = try CLIRun.run(["login", "--server", second.url, "--username", "Ann", "--store", store])
        #expect(unknown.status == 1)
        #expect(
            unknown.stderr.hasPrefix(
                "passkey login: the credential file holds a passkey for Ann, but the server did not offer it: the account or its passkeys "
                    + "may have been deleted there, or the passkey is another server's; register again, or sign in without --username\n"),
            "\(unknown.stderr)")
        // A name the file does not hold keeps the plain message.
        let other = try CLIRun.run(["login", "--server", second.url, "--username", "bob", "--store", store])
        #expect(other.stderr.hasPrefix("passkey login: the credential file holds no passkey for this server and account\n"), "\(other.stderr)")

        let prefixed = try CLIRun.run(["login", "--server", first.url + "/auth", "--username", "ann", "--store", store])
        #expect(prefixed.status == 1)
        #expect(
            prefixed.stderr.hasPrefix(
                "passkey login: the server has no such endpoint (HTTP 404): --server takes the passkey server's base URL, under which "
                    + "its API paths such as /generate-authentication-options are (for example http://localhost:8080)\n"),
            "\(prefixed.stderr)")
    }
}
