import Foundation
import PasskeyTestSupport
import PasskeyWire
import Testing

/// Runs the built `passkey` executable as a user would.
struct CLIRun {
    var status: Int32
    var stdout: String
    var stderr: String

    static var executable: URL {
        // The test bundle sits next to the built products.
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("passkey")
    }

    /// The `passkey-server` built next to it.
    static var serverExecutable: String { executable.deletingLastPathComponent().appendingPathComponent("passkey-server").path }

    static func run(_ arguments: [String]) throws -> CLIRun { try runProgram(executable.path, arguments) }

    /// Runs any program (`passkey-server`, `python3` through `/usr/bin/env`) and collects its output.
    static func run(_ arguments: [String], environment: [String: String]) throws -> CLIRun {
        try runProgram(executable.path, arguments, environment: environment)
    }

    /// `environment` is added to (or replaces variables of) the test's own environment.
    static func runProgram(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> CLIRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLIRun(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    static func fixture(_ path: String) throws -> String {
        guard let dir = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw CocoaError(.fileNoSuchFile)
        }
        return dir.appendingPathComponent(path).path
    }
}

@Suite("passkey verify", .serialized)
struct VerifyCommandTests {
    @Test("a valid TPM registration exits 0 and reports its facts as JSON")
    func validJSON() throws {
        let run = try CLIRun.run(["verify", "--fixture", CLIRun.fixture("registration/yubico-tpm-windows-hello.json"), "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try JSONValue.parse(run.stdout).objectValue
        #expect(json?["ok"] == true && json?["error"] == nil)
        #expect(json?["id"] == "yubico-tpm-windows-hello")
        #expect(json?["result"] == "valid")
        #expect(json?["failure"] == .null)
        #expect(json?["fmt"] == "tpm")
        #expect(json?["attestationType"] == "AttCA")
        #expect(json?["signCount"] == 0)
        #expect(json?["aaguid"] == "08987058-cadc-4b81-b6e1-30de50dcbe96")
        #expect(json?["backupEligible"] == false)
        #expect(json?["backupState"] == false)
    }

    @Test("an invalid sign-in exits 1 and names the failed check")
    func invalidJSON() throws {
        let run = try CLIRun.run(["verify", "--fixture", CLIRun.fixture("authentication/simplewebauthn-es256-replayed-counter.json"), "--json"])
        #expect(run.status == 1)
        let json = try JSONValue.parse(run.stdout).objectValue
        #expect(json?["ok"] == false && json?["error"] == "counter_regressed")
        #expect(json?["result"] == "invalid")
        #expect(json?["failure"] == "counter_regressed")
        #expect(json?["fmt"] == .null)
    }

    @Test("without --json it explains in plain words, with expected and received values")
    func humanOutput() throws {
        let run = try CLIRun.run(["verify", "--fixture", CLIRun.fixture("registration/simplewebauthn-none-es256-wrong-rp-id.json")])
        #expect(run.status == 1)
        #expect(run.stdout.contains("INVALID"))
        #expect(run.stdout.contains("failed check: rp_id_hash_mismatch"))
        #expect(run.stdout.contains("expected:"))
        #expect(run.stdout.contains("received:"))
        let ok = try CLIRun.run(["verify", "--fixture", CLIRun.fixture("authentication/simplewebauthn-es256-security-key.json")])
        #expect(ok.status == 0)
        #expect(ok.stdout.contains("is valid"))
    }

    @Test("usage errors and unreadable files exit 2")
    func usage() throws {
        #expect(try CLIRun.run(["verify"]).status == 2)
        #expect(try CLIRun.run(["verify", "--fixture", "/nonexistent.json"]).status == 2)
        #expect(try CLIRun.run(["frobnicate"]).status == 2)
        let notJSON = temporaryPath("passkey-not-a-fixture", extension: "json")
        try Data("{".utf8).write(to: notJSON)
        let run = try CLIRun.run(["verify", "--fixture", notJSON.path, "--json"])
        #expect(run.status == 2)
        #expect(try JSONValue.parse(run.stdout).objectValue?["error"] == "fixture_unreadable")
        #expect(try CLIRun.run(["--help"]).status == 0)
    }
}

extension VerifyCommandTests {
    /// A valid fixture with its `fixtureVersion` replaced (`nil`: removed).
    static func fixture(version: JSONValue?) throws -> String {
        let path = try CLIRun.fixture("authentication/simplewebauthn-es256-security-key.json")
        var object = try #require(try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path)))).objectValue)
        object["fixtureVersion"] = version
        return try privateFile("f.json", contents: JSONValue.object(object).serializedBytes)
    }

    @Test("a fixture of another version, a string version or none is refused (exit 2), naming found and supported")
    func unsupportedVersion() throws {
        let cases: [(JSONValue?, String)] = [
            (2, "f.json has fixtureVersion 2; this passkey reads fixtureVersion 1"),
            ("1", #"f.json has fixtureVersion "1" (a string, not a number); this passkey reads fixtureVersion 1"#),
            (nil, "f.json has no fixtureVersion; this passkey reads fixtureVersion 1"),
        ]
        for (version, message) in cases {
            let file = try Self.fixture(version: version)
            let text = try CLIRun.run(["verify", "--fixture", file])
            #expect(text.status == 2)
            #expect(text.stderr == "passkey verify: \(message)\n")
            let json = try CLIRun.run(["verify", "--fixture", file, "--json"])
            #expect(json.status == 2)
            #expect(try JSONValue.parse(json.stdout).objectValue?["message"] == .string(message))
        }
        #expect(try CLIRun.run(["verify", "--fixture", try Self.fixture(version: 1)]).status == 0)
    }
}
