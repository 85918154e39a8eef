import Foundation
import PasskeyWire
import PasskeyTestSupport

/// A launch step that did not work, with the program's output.
struct LaunchError: Error, CustomStringConvertible {
    let description: String
}

/// The built `passkey-server` executable, run as a separate process on 127.0.0.1.
enum PasskeyServerLauncher {
    /// Next to the test bundle (`swift test` runs it from the build products folder), else `.build/debug/`.
    static var executable: URL? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("passkey-server"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug/passkey-server"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Starts the server with an SQLite database at `database` and waits until `GET /health` says ok: 100 tries, 100 ms
    /// apart. The caller terminates the returned process.
    static func start(port: Int, database: URL, directory: URL, arguments extra: [String] = []) async throws -> ChildProcess {
        guard let executable else {
            throw LaunchError(description: "passkey-server is not built: run `swift build --build-tests` (looked next to \(CommandLine.arguments[0]) and in .build/debug)")
        }
        // Only the flags below decide the configuration: PASSKEY_* variables from the caller's shell would change it.
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PASSKEY_") }
        let server = try ChildProcess(
            name: "passkey-server", executable: executable,
            arguments: ["--port", String(port), "--database", "sqlite:" + database.path] + extra, directory: directory, environment: environment)
        do {
            for _ in 0..<100 {
                guard server.isRunning else {
                    throw LaunchError(description: "passkey-server exited with status \(server.process.terminationStatus):\n\(server.output())")
                }
                if let reply = try? await LoopbackHTTP.request("GET", port: port, path: "/health", timeout: 2), reply.status == 200,
                    (try? JSONValue.parse(reply.body))?.objectValue?["status"] == "ok"
                {
                    return server
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            throw LaunchError(description: "passkey-server did not answer GET /health after 100 tries, 100 ms apart:\n\(server.output())")
        } catch {
            server.terminate()  // also when cancelled while waiting: the caller never got the process to stop
            throw error
        }
    }
}

/// chromedriver on 127.0.0.1, ready for sessions.
enum ChromeDriverLauncher {
    /// Starts chromedriver on a free port. A port found free can be taken by another test's process before chromedriver
    /// binds it ("bind() failed: Address already in use"), so such a start is tried again on another port, twice at most.
    static func startOnFreePort(executable: URL, directory: URL) async throws -> (process: ChildProcess, port: Int) {
        var attempt = 0
        while true {
            let port = try LocalPorts.free()
            do {
                return (try await start(executable: executable, port: port, directory: directory), port)
            } catch let error as LaunchError where attempt < 2 && error.description.contains("Address already in use") {
                attempt += 1
            }
        }
    }

    static func start(executable: URL, port: Int, directory: URL) async throws -> ChildProcess {
        // Chromium puts its profile and singleton socket in TMPDIR: inside the run's folder, they go with it.
        let temporary = directory.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary.path
        let driver = try ChildProcess(
            name: "chromedriver", executable: executable, arguments: ["--port=\(port)"], directory: directory, environment: environment)
        do {
            for _ in 0..<100 {
                guard driver.isRunning else {
                    throw LaunchError(description: "chromedriver exited with status \(driver.process.terminationStatus):\n\(driver.output())")
                }
                if await WebDriver.isReady(port: port) { return driver }
                try await Task.sleep(for: .milliseconds(100))
            }
            throw LaunchError(description: "chromedriver was not ready after 100 tries, 100 ms apart:\n\(driver.output())")
        } catch {
            driver.terminate()  // no session yet, so no browser to close
            throw error
        }
    }
}
