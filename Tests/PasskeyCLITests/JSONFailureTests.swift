import Foundation
import PasskeyWire
import Testing

/// With --json every failure is one JSON object on standard output, in one shape (docs/sdk.md).
@Suite("passkey --json failures")
struct JSONFailureTests {
    static let members = ["ok", "error", "stage", "serverError", "httpStatus", "message", "detail"]

    static func failure(_ run: CLIRun) throws -> JSONObject {
        let object = try #require(try JSONValue.parse(run.stdout).objectValue, "\(run.stdout)")
        #expect(object.members.map(\.name) == members)
        #expect(object["ok"] == false)
        return object
    }

    @Test("a usage error with --json is a JSON failure on stdout, nothing on stderr")
    func usage() throws {
        let run = try CLIRun.run(["register", "--server", "badurl", "--username", "x", "--json"])
        #expect(run.status == 2)
        #expect(run.stderr == "")
        let object = try Self.failure(run)
        #expect(object["error"] == "usage" && object["stage"] == "arguments")
        #expect(object["message"] == "--server must be an http:// or https:// URL, for example http://localhost:8080")
        let missing = try Self.failure(try CLIRun.run(["verify", "--json"]))
        #expect(missing["error"] == "usage")
        // Without --json, usage errors stay text on stderr.
        let text = try CLIRun.run(["register", "--server", "badurl", "--username", "x"])
        #expect(text.stdout == "" && text.stderr.hasPrefix("Error: --server must be"))
    }

    @Test("verify and inspect failures have the same shape as register and login failures")
    func sameShape() throws {
        let verify = try CLIRun.run(["verify", "--fixture", "/nonexistent.json", "--json"])
        #expect(verify.status == 2)
        let fixture = try Self.failure(verify)
        #expect(fixture["error"] == "fixture_unreadable" && fixture["stage"] == "input")
        #expect(fixture["message"] == "cannot read /nonexistent.json: no such file")
        let inspect = try CLIRun.run(["inspect", "/nonexistent.json", "--json"])
        #expect(inspect.status == 2)
        let response = try Self.failure(inspect)
        #expect(response["error"] == "unreadable_response" && response["stage"] == "input")
        let login = try CLIRun.run(["login", "--server", "http://localhost:9", "--store", try privateFile("c.json"), "--json"])
        #expect(login.status == 3)
        #expect(try Self.failure(login)["error"] == "network")
    }
}
