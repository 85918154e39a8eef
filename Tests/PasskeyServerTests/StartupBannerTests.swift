import Foundation
import PasskeyTestSupport
import Testing

/// What `passkey-server` prints when it starts: where it serves, once it really does.
@Suite("Start-up banner")
struct StartupBannerTests {
    @Test("with --port 0 the banner names the port the system chose, and the server answers there; the setup link follows it")
    func chosenPort() async throws {
        let folder = try temporaryFolderURL("passkey-banner")
        let log = folder.appendingPathComponent("out.log").path
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = ServerProcess.executable
        process.arguments = [
            "--port", "0", "--origin", "https://example.com", "--rp-id", "example.com", "--log-level", "notice",
            "--database", "sqlite:" + folder.appendingPathComponent("db.sqlite").path,
        ]
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = handle
        process.standardError = handle
        // A setting from the environment, as PASSKEY_ plus the flag's name: the banner says registration is closed.
        process.environment = ProcessInfo.processInfo.environment.merging(["PASSKEY_NO_PUBLIC_REGISTRATION": "true"]) { $1 }
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        var output = ""
        for _ in 0..<200 where !output.contains("No dashboard admin yet") && process.isRunning {
            try await Task.sleep(for: .milliseconds(50))
            output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        }
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("passkey-server serving http://") }, "\(output)")
        let port = try #require(line.split(separator: ":").last.flatMap { Int($0) }, "\(line)")
        #expect(port > 0)
        let banner = try #require(output.range(of: "passkey-server serving"))
        let setup = try #require(output.range(of: "No dashboard admin yet"), "\(output)")
        #expect(banner.lowerBound < setup.lowerBound)
        let client = ProcessClient(port: port)
        let health = await client.call(.get, "/health")
        let registration = await client.call(.get, "/generate-registration-options?username=ann")
        await client.close()
        #expect(health.status == 200)
        #expect(output.contains("accounts only through connect tokens (--no-public-registration)"), "\(output)")
        #expect(registration.status == 403)
        // --log-level notice: the start and the failed request are logged, the request that went well is not.
        try await Task.sleep(for: .milliseconds(200))
        let later = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(!later.contains("path=/health"), "\(later)")
        #expect(later.contains("notice passkey-server: address=http://localhost:\(port)") && later.contains("serving"), "\(later)")
        #expect(later.contains("sqlite=") && later.contains("data"), "\(later)")
        #expect(later.contains("path=/generate-registration-options") && later.contains("status=403"), "\(later)")
    }

    @Test("--port 0 with the default localhost origin is refused: that origin could not follow the chosen port")
    func portZeroNeedsOrigin() async throws {
        // A misspelt variable is named with the one it most likely meant, instead of being ignored without a word.
        let run = try await onOwnThread {
            try runProgram(ServerProcess.executable, ["--port", "0", "--database", "memory:"], environment: ["PASSKEY_RPID": "example.com", "PASSKEY_RP_NAME": "Shop"])
        }
        #expect(run.status != 0)
        #expect(run.output.contains("--port 0 picks a free port"), "\(run.output)")
        #expect(run.output.contains("warning: PASSKEY_RPID is not a passkey-server setting and is ignored: did you mean PASSKEY_RP_ID?"), "\(run.output)")
        #expect(!run.output.contains("PASSKEY_RP_NAME is not"), "\(run.output)")
        let loud = try await onOwnThread { try runProgram(ServerProcess.executable, ["--log-level", "loud", "--database", "memory:"]) }
        #expect(loud.status != 0)
        #expect(loud.output.contains("--log-level must be trace, debug, info, notice, warning, error or critical, not \"loud\""), "\(loud.output)")
    }

    @Test("settings that cannot work as meant are warned about on standard error before the server listens")
    func configurationWarnings() async throws {
        let folder = temporaryPath("passkey-banner")
        let first = try await ServerProcess.start(database: "sqlite:" + folder.appendingPathComponent("a.sqlite").path, port: try LocalPorts.free())
        defer { first.stop() }
        // The port is taken, so the run stops right after its warnings.
        let arguments = [
            "--port", String(first.port), "--rp-id", "example.com", "--origin", "https://www.example.com",
            "--apple-app-id", "ABCDE12345.com.example.App", "--database", "sqlite:" + folder.appendingPathComponent("b.sqlite").path,
        ]
        let run = try await onOwnThread { try runProgram(ServerProcess.executable, arguments) }
        #expect(run.output.contains("warning: --apple-app-id is set, but the origin iOS and macOS apps report, https://example.com,"), "\(run.output)")
        #expect(run.output.contains("Add --origin https://example.com."), "\(run.output)")
    }

    @Test("a port another program holds is named in a sentence that says what to do")
    func portInUse() async throws {
        let folder = temporaryPath("passkey-banner")
        let first = try await ServerProcess.start(database: "sqlite:" + folder.appendingPathComponent("a.sqlite").path, port: try LocalPorts.free())
        defer { first.stop() }
        let arguments = ["--port", String(first.port), "--database", "sqlite:" + folder.appendingPathComponent("b.sqlite").path]
        let run = try await onOwnThread { try runProgram(ServerProcess.executable, arguments) }
        #expect(run.status != 0)
        #expect(run.output.contains("Error: 127.0.0.1 port \(first.port) is already in use"), "\(run.output)")
        #expect(!run.output.contains("bind(descriptor"), "\(run.output)")
    }

    @Test("a --host that is not this machine's, or no address at all, is said in a sentence, not a socket error", arguments: [
        ("192.0.2.1", "--host 192.0.2.1 is not an address of this machine"),  // TEST-NET-1: never local
        ("bogus host", "cannot listen on --host bogus host: not an address or a name this machine can resolve"),
    ])
    func unusableHost(host: String, sentence: String) async throws {
        let arguments = ["--host", host, "--port", String(try LocalPorts.free()), "--database", "memory:"]
        let run = try await onOwnThread { try runProgram(ServerProcess.executable, arguments) }
        #expect(run.status != 0)
        #expect(run.output.contains(sentence), "\(run.output)")
        #expect(!run.output.contains("bind(descriptor") && !run.output.contains("SocketAddressError.UnknownHost"), "\(run.output)")
    }
}
