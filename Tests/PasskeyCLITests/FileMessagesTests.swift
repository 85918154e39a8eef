import Foundation
import PasskeyWire
import Testing

/// Files the CLI cannot use are named with the reason, in one sentence, with exit status 2.
@Suite("passkey file errors")
struct FileMessagesTests {
    @Test("a directory given as the credential file, the fixture or the response is called a directory")
    func directory() throws {
        let folder = try privateDirectory()
        let register = try CLIRun.run(["register", "--server", "http://localhost:1", "--username", "ann", "--store", folder])
        #expect(register.status == 2)
        #expect(register.stderr.hasPrefix("passkey register: the credential file cannot be used: \(folder) is a directory, not a file\n"), "\(register.stderr)")
        let listed = try CLIRun.run(["credentials", "--store", folder, "--json"])
        #expect(listed.status == 2)
        #expect(try JSONValue.parse(listed.stdout).objectValue?["message"] == .string("the credential file cannot be used: \(folder) is a directory, not a file"))

        let verify = try CLIRun.run(["verify", "--fixture", folder])
        #expect(verify.status == 2)
        #expect(verify.stderr == "passkey verify: cannot read \(folder): it is a directory, not a file\n")
        let inspect = try CLIRun.run(["inspect", folder])
        #expect(inspect.status == 2)
        #expect(inspect.stderr == "passkey inspect: cannot read \(folder): it is a directory, not a file\n")
    }

    @Test("a missing file and a missing directory are told apart")
    func missing() throws {
        let folder = try privateDirectory()
        let noFile = try CLIRun.run(["inspect", folder + "/none.json"])
        #expect(noFile.status == 2)
        #expect(noFile.stderr == "passkey inspect: cannot read \(folder)/none.json: no such file\n")
        let noDirectory = try CLIRun.run(["verify", "--fixture", folder + "/none/f.json"])
        #expect(noDirectory.status == 2)
        #expect(noDirectory.stderr == "passkey verify: cannot read \(folder)/none/f.json: no such directory \(folder)/none\n")
    }

    @Test("a credential file whose directory cannot be made is refused before the server is asked")
    func uncreatableDirectory() throws {
        let file = try privateFile("plain", contents: [])
        let run = try CLIRun.run(["register", "--server", "http://localhost:1", "--username", "ann", "--store", file + "/sub/c.json", "--json"])
        #expect(run.status == 2)
        let object = try JSONValue.parse(run.stdout).objectValue
        #expect(object?["message"] == .string("the credential file cannot be used: \(file) is not a directory"))
        // Login only reads a file that is missing: a mistyped --store makes no directories.
        let directory = try privateDirectory() + "/typo-\(UUID().uuidString)"
        let login = try CLIRun.run(["login", "--server", "http://127.0.0.1:9", "--store", directory + "/sub/c.json", "--json"])
        #expect(login.status == 3, "\(login.stdout)\(login.stderr)")  // on to the (unreachable) server, as with an empty file
        #expect(!FileManager.default.fileExists(atPath: directory))
        #if os(Linux)
        let proc = try CLIRun.run(["register", "--server", "http://localhost:1", "--username", "ann", "--store", "/proc/nope/x.json"])
        #expect(proc.status == 2)
        #expect(proc.stderr.hasPrefix("passkey register: the credential file cannot be used: no such directory /proc/nope, and it cannot be created\n"), "\(proc.stderr)")
        #endif
    }
}
