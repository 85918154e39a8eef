import Foundation
import PasskeyServer
import PasskeyTestSupport
import PasskeyWire
@testable import PasskeyServerApp
import Testing

@Suite("Settings file (--config)")
struct SettingsFileTests {
    @Test("every flag of the server is a setting of the file and a PASSKEY_ variable, read from the flags' declarations")
    func settingsFromFlags() {
        let names = PasskeyServerCommand.settingNames
        #expect(names.count >= 40, "\(names.sorted())")
        for name in ["host", "rp-id", "origin", "database", "request-timeout", "request-minimum-rate", "trust-proxy-headers", "log-level"] {
            #expect(names.contains(name), "\(name)")
        }
        #expect(names.isDisjoint(with: ["config", "help", "version"]))
        #expect(PasskeyServerCommand.unknownVariableWarnings(["PASSKEY_REQUEST_TIMEOUT": "5", "PASSKEY_RPID": "x"]) == [
            "warning: PASSKEY_RPID is not a passkey-server setting and is ignored: did you mean PASSKEY_RP_ID?"
        ])
    }

    let known: Set<String> = ["rp-id", "origin", "challenge-ttl", "trust-proxy-headers"]

    @Test("name = value lines: comments, blank lines, spaces, quotes, CRLF and comma lists")
    func parses() throws {
        let text = """
            # passkey-server settings\r
            rp-id = example.com\r

              origin=https://www.example.com, https://example.com
            challenge-ttl = "  30  "
            TRUST-PROXY-HEADERS = true
            """
        let file = try SettingsFile.parse(text, known: known, source: "test.conf")
        #expect(
            file.values == [
                "rp-id": "example.com", "origin": "https://www.example.com, https://example.com", "challenge-ttl": "  30  ",
                "trust-proxy-headers": "true",
            ])
    }

    @Test("an unknown name, a name set twice and a line without = are errors naming the line")
    func refuses() {
        #expect(throws: ConfigurationError.self) { try SettingsFile.parse("rp-id = a\nrpid = b", known: known, source: "x.conf") }
        do {
            _ = try SettingsFile.parse("rp-id = a\nrpid = b", known: known, source: "x.conf")
        } catch {
            #expect(error.description.hasPrefix("x.conf:2: unknown setting \"rpid\""))
            #expect(error.description.contains("known settings: challenge-ttl, origin, rp-id, trust-proxy-headers"))
        }
        do {
            _ = try SettingsFile.parse("rp-id = a\n\nrp-id = b", known: known, source: "x.conf")
            Issue.record("a setting given twice was accepted")
        } catch {
            #expect(error.description == "x.conf:3: rp-id is set twice")
        }
        do {
            _ = try SettingsFile.parse("rp-id example.com", known: known, source: "x.conf")
            Issue.record("a line without = was accepted")
        } catch {
            #expect(error.description == "x.conf:1: expected name = value")
        }
    }

    @Test("a missing file is an error that names it")
    func missing() {
        let path = "/nonexistent/passkey-\(UUID().uuidString).conf"
        do {
            _ = try SettingsFile.load(path: path, known: known)
            Issue.record("a missing file was accepted")
        } catch {
            #expect(error.description.contains(path))
        }
    }
}

@Suite("passkey-server --config")
struct ServerSettingsFileTests {
    func writeSettings(_ text: String) throws -> String {
        let path = temporaryPath("passkey-settings", extension: "conf").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func database() -> String {
        "sqlite:" + temporaryPath("passkey-settings").appendingPathComponent("db.sqlite").path
    }

    /// Runs `passkey-server` with `arguments` to completion: exit status and what it wrote.
    func runToEnd(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, output: String) {
        try await onOwnThread { try runProgram(ServerProcess.executable, arguments, environment: environment) }
    }

    @Test("the file sets what flags and variables leave unset; a flag wins over the file, a variable too")
    func precedence() async throws {
        // ServerProcess passes --rp-id example.com and --origin https://example.com as flags.
        let settings = try writeSettings("""
            rp-id = file.example
            rp-name = From File
            challenge-ttl = 30
            """)
        let fromFile = try await ServerProcess.start(database: database(), port: try LocalPorts.free(), extraArguments: ["--config", settings])
        let client = ProcessClient(port: fromFile.port)
        let options = await client.call(.get, "/generate-registration-options?username=ann")
        await client.close()
        fromFile.stop()
        #expect(options.status == 200)
        #expect(options["rp"]?.objectValue?["name"] == "From File")
        #expect(options["rp"]?.objectValue?["id"] == "example.com")  // the flag
        #expect(options["timeout"]?.numberValue == 30_000)

        let fromEnvironment = try await ServerProcess.start(
            database: database(), port: try LocalPorts.free(), extraArguments: [], environment: ["PASSKEY_CONFIG": settings, "PASSKEY_RP_NAME": "From Env"])
        let second = ProcessClient(port: fromEnvironment.port)
        let answer = await second.call(.get, "/generate-registration-options?username=ann")
        await second.close()
        fromEnvironment.stop()
        #expect(answer["rp"]?.objectValue?["name"] == "From Env")
        #expect(answer["timeout"]?.numberValue == 30_000)  // PASSKEY_CONFIG found the file
    }

    @Test("a typo in the file stops the server with the line and the settings it knows, which are exactly its flags")
    func typoStops() async throws {
        let settings = try writeSettings("rp-id = example.com\nchallenge_ttl = 30\n")
        let run = try await runToEnd(["--config", settings, "--port", "0", "--database", database()])
        #expect(run.status != 0)
        #expect(run.output.contains("\(settings):2: unknown setting \"challenge_ttl\""))
        let known = run.output.components(separatedBy: "known settings: ").last?.prefix { $0 != "\n" }
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        // Every flag of --help but --config and --help itself can be set in the file.
        let help = try await runToEnd(["--help"]).output
        let flags = Set(help.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") }).compactMap { word -> String? in
            guard word.hasPrefix("--"), word.count > 2 else { return nil }
            return String(word.dropFirst(2))
        })
        #expect(Set(known) == flags.subtracting(["config", "help", "version"]))
    }

    @Test("PASSKEY_ANDROID_APP holds several apps and fingerprints, separated by commas; keytool's SHA256: label is accepted")
    func androidAppsFromEnvironment() async throws {
        let first = Array(repeating: "AB", count: 32).joined(separator: ":")
        let second = Array(repeating: "CD", count: 32).joined(separator: ":")
        let third = Array(repeating: "EF", count: 32).joined(separator: ":")
        let server = try await ServerProcess.start(
            database: database(), port: try LocalPorts.free(), extraArguments: [],
            environment: ["PASSKEY_ANDROID_APP": "com.example.app=SHA256:\(first),\(second), com.example.other=\(third), com.example.app=\(first.lowercased())"])
        let client = ProcessClient(port: server.port)
        let links = await client.call(.get, "/.well-known/assetlinks.json")
        await client.close()
        server.stop()
        #expect(links.status == 200)
        let statements = links.json.arrayValue ?? []
        let byPackage = Dictionary(
            statements.compactMap { statement -> (String, [String])? in
                guard let target = statement.objectValue?["target"]?.objectValue, let package = target["package_name"]?.stringValue else { return nil }
                return (package, (target["sha256_cert_fingerprints"]?.arrayValue ?? []).compactMap(\.stringValue))
            }, uniquingKeysWith: { $0 + $1 })
        // A package named twice is one statement, and a fingerprint given twice (in any case) is listed once.
        #expect(statements.count == 2)
        #expect(byPackage["com.example.app"] == [first, second])
        #expect(byPackage["com.example.other"] == [third])
    }

    @Test("--algorithm takes a negative COSE number")
    func negativeAlgorithm() async throws {
        let server = try await ServerProcess.start(database: database(), port: try LocalPorts.free(), extraArguments: ["--algorithm", "-7"])
        let client = ProcessClient(port: server.port)
        let options = await client.call(.get, "/generate-registration-options?username=ann")
        await client.close()
        server.stop()
        #expect(options.status == 200)
        #expect((options["pubKeyCredParams"]?.arrayValue ?? []).compactMap { $0.objectValue?["alg"]?.numberValue } == [-7])
    }

    @Test("a malformed environment variable is named as it was set")
    func environmentNames() async throws {
        let run = try await runToEnd(["--database", database()], environment: ["PASSKEY_PORT": "80a"])
        #expect(run.status != 0)
        #expect(run.output.contains("PASSKEY_PORT must be a whole number"))
        // The configuration's own checks, too: named as set, in the environment or the settings file.
        let range = try await runToEnd(["--database", database()], environment: ["PASSKEY_PORT": "70000"])
        #expect(range.status != 0 && range.output.contains("PASSKEY_PORT must be between 1 and 65535"), "\(range.output)")
        let settings = try writeSettings("rp-id = https://example.com")
        let file = try await runToEnd(["--config", settings, "--database", database()])
        #expect(file.output.contains("\(settings):1: rp-id must be a domain such as example.com"), "\(file.output)")
        let flag = try await runToEnd(["--rp-id", "https://example.com", "--database", database()], environment: ["PASSKEY_RP_ID": "example.com"])
        #expect(flag.output.contains("--rp-id must be a domain"), "the flag wins, and is named: \(flag.output)")
        let joined = try await runToEnd(["--port=70000", "--database", database()], environment: ["PASSKEY_PORT": "8080"])
        #expect(joined.output.contains("--port must be between 1 and 65535"), "\(joined.output)")
    }

    @Test("durations that do not fit are refused at start, not a crash at the first request")
    func hugeDurations() async throws {
        for arguments in [["--challenge-ttl", "inf"], ["--challenge-ttl", "1e300"], ["--signed-data-ttl", "inf"]] {
            let run = try await runToEnd(arguments + ["--port", "0", "--origin", "https://example.com", "--database", database()])
            #expect(run.status != 0, "\(arguments)")
            #expect(run.output.contains("must be between"), "\(arguments): \(run.output)")
            #expect(!run.output.contains("Fatal error"), "\(arguments): \(run.output)")
        }
    }

    @Test("a value that is not a number or a switch is an error, not the default")
    func badValues() async throws {
        for line in ["challenge-ttl = thirty", "trust-proxy-headers = yes", "port = 80a"] {
            // On the file's third line, which the error names.
            let settings = try writeSettings("# deployment\nrp-name = Example\n" + line)
            let run = try await runToEnd(["--config", settings, "--database", database()])
            #expect(run.status != 0, "\(line)")
            #expect(run.output.contains("\(settings):3: \(line.split(separator: " ")[0]) must be"), "\(line): \(run.output)")
        }
    }
}
