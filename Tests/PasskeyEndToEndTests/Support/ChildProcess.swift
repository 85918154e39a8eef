import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A program the test starts, with its output going to a log file so a chatty child can never block on a full pipe.
final class ChildProcess: @unchecked Sendable {
    // Written once at launch, then only read; `terminate()` is idempotent.
    let name: String
    let process = Process()
    let logFile: URL

    /// Starts `executable` with `arguments` in `directory`; stdout and stderr go to `<directory>/<name>.log`.
    init(name: String, executable: URL, arguments: [String], directory: URL, environment: [String: String]? = nil) throws {
        self.name = name
        logFile = directory.appendingPathComponent("\(name).log")
        guard FileManager.default.createFile(atPath: logFile.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: logFile.path])
        }
        let log = try FileHandle(forWritingTo: logFile)
        defer { try? log.close() }
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        if let environment { process.environment = environment }
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var isRunning: Bool { process.isRunning }

    /// What the program wrote so far (stdout and stderr interleaved), at most the last `limit` characters.
    func output(limit: Int = 6_000) -> String {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? "(no output file)"
        return text.count > limit ? "…" + String(text.suffix(limit)) : text
    }

    /// SIGTERM, up to `grace` for it to exit, then SIGKILL. Safe to call more than once and from `defer`.
    func terminate(grace: TimeInterval = 5) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(grace)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            let hardDeadline = Date().addingTimeInterval(2)
            while process.isRunning && Date() < hardDeadline { usleep(20_000) }
        }
    }
}


enum Executables {
    /// The first executable called `name` on `PATH`.
    static func which(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
