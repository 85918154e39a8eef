import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The release `passkey-server` beside this program, run as an operator runs it: its own process, its defaults, its log
/// in a file. Its CPU is read from `/proc/<pid>/stat`, so the load generator's own work is never counted.
final class ServerUnderTest: @unchecked Sendable {
    let process: Process
    let port: Int
    let database: String
    let log: URL

    static var executable: URL { URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("passkey-server") }

    /// Runs `passkey-server <arguments>` to completion (migrate, import); throws with its output when it fails, and
    /// returns it otherwise.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("operator-bench-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try? handle.close()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: output)
        guard process.terminationStatus == 0 else {
            throw BenchFailure("passkey-server \(arguments.prefix(2).joined(separator: " ")) failed: \(text.suffix(1500))")
        }
        return text
    }

    /// `passkey-server oidc-clients add` on `database`: a confidential client for the code flow; its id and secret.
    static func addOpenIDClient(database: String, algorithm: String) throws -> (id: String, secret: String) {
        let text = try run(["oidc-clients", "add", "bench", "--redirect-uri", LoadClient.redirect, "--id-token-algorithm", algorithm, "--database", database])
        func value(_ name: String) -> String? {
            text.split(separator: "\n").first { $0.hasPrefix(name + ": ") }.map { String($0.dropFirst(name.count + 2)) }
        }
        guard let id = value("client_id"), let secret = value("client_secret") else { throw BenchFailure("oidc-clients add printed: \(text)") }
        return (id, secret)
    }

    /// Starts the server on `port` over `database` with `--log-level info` and its other defaults; the one deviation is
    /// the options rate limit, which counts per client address and every connection here comes from 127.0.0.1.
    /// `extra`: more flags (the OpenID issuer, for the code flow).
    convenience init(database: String, port: Int, folder: URL, extra: [String] = []) async throws {
        try await self.init(
            executable: Self.executable, port: port, folder: folder, database: database,
            arguments: ["--port", String(port), "--database", database, "--log-level", "info", "--options-per-minute", "1000000000"] + extra)
    }

    /// `passkey-http-floor` beside this program: Hummingbird alone (the minimal reproduction of the HTTP edge's cost).
    static func httpFloor(port: Int, folder: URL) async throws -> ServerUnderTest {
        let program = executable.deletingLastPathComponent().appendingPathComponent("passkey-http-floor")
        return try await ServerUnderTest(executable: program, port: port, folder: folder, database: "", arguments: ["--port", String(port)])
    }

    /// `passkey-sign-in-floor` beside this program: a sign-in with the guarantees and nothing else (the minimal
    /// reproduction of what the stack costs per sign-in), over `accounts` accounts of its own database in `folder`.
    static func signInFloor(port: Int, folder: URL, accounts: Int, publicKey: String) async throws -> ServerUnderTest {
        let program = executable.deletingLastPathComponent().appendingPathComponent("passkey-sign-in-floor")
        let database = folder.appendingPathComponent("sign-in-floor-\(port).sqlite").path
        return try await ServerUnderTest(
            executable: program, port: port, folder: folder, database: database,
            arguments: ["--port", String(port), "--database", database, "--accounts", String(accounts), "--public-key", publicKey])
    }

    private init(executable: URL, port: Int, folder: URL, database: String, arguments: [String]) async throws {
        self.port = port
        self.database = database
        log = folder.appendingPathComponent("server-\(port).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        self.process = process
        for _ in 0..<600 {
            if try await LoadClient.healthy(port: port) { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        throw BenchFailure("\(executable.lastPathComponent) did not start: \(((try? String(contentsOf: log, encoding: .utf8)) ?? "").suffix(1500))")
    }

    var pid: Int32 { process.processIdentifier }

    /// User and system CPU seconds of the server process (all its threads), from `/proc/<pid>/stat`.
    func cpu() -> (user: Double, system: Double) {
        let (user, system, _, _) = Self.stat(pid)
        return (user, system)
    }

    /// User and system CPU seconds and the parent of process `pid`, from `/proc/<pid>/stat`.
    static func stat(_ pid: Int32) -> (user: Double, system: Double, parent: Int32, exitedChildren: Double) {
        guard let text = readProc("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return (0, 0, 0, 0) }
        // After the command name (which may hold spaces or parentheses): field 3 (state) is index 0, so the parent
        // (field 4) is index 1, utime (field 14) index 11, stime (field 15) index 12, and the user and system time of
        // children it waited for (fields 16 and 17) indexes 13 and 14, in clock ticks.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 14, let parent = Int32(fields[1]), let user = Double(fields[11]), let system = Double(fields[12]),
            let childrenUser = Double(fields[13]), let childrenSystem = Double(fields[14])
        else { return (0, 0, 0, 0) }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (user / ticks, system / ticks, parent, (childrenUser + childrenSystem) / ticks)
    }

    /// CPU seconds of a PostgreSQL cluster: its postmaster (the first line of `postmaster.pid` in `dataFolder`) and
    /// every process it started (a backend per connection, the WAL writer, the checkpointer, autovacuum workers),
    /// including those that exited (the postmaster waits for them, so their time is its children's): a backend that
    /// closed during a phase must not take its earlier time out of the sum. Zero when there is none.
    static func clusterCPU(dataFolder: URL?) -> Double {
        guard let dataFolder, let text = readProc(dataFolder.appendingPathComponent("postmaster.pid").path),
            let postmaster = text.split(separator: "\n").first.flatMap({ Int32($0) })
        else { return 0 }
        var total = 0.0
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry) else { continue }
            let (user, system, parent, exitedChildren) = stat(pid)
            if pid == postmaster { total += user + system + exitedChildren }
            if parent == postmaster { total += user + system }
        }
        return total
    }

    /// Resident memory now and at its peak, in MB, from `/proc/<pid>/status`.
    func memory() -> (resident: Double, peak: Double) {
        guard let text = Self.readProc("/proc/\(pid)/status") else { return (0, 0) }
        func kilobytes(_ name: String) -> Double {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
            return Double(line.split(separator: " ").dropFirst().first.map(String.init) ?? "") ?? 0
        }
        return (kilobytes("VmRSS") / 1024, kilobytes("VmHWM") / 1024)
    }

    /// A /proc file (their size reads as 0, so they are read until the end).
    static func readProc(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count <= 0 { break }
            bytes += buffer.prefix(count)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
