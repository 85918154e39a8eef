// PostgreSQL for tests: the shared server CI starts, and private clusters a test can stop and start.
public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The PostgreSQL server tests use, from `PASSKEY_TEST_POSTGRES_URL` (`.ci/run` starts a throw-away cluster and sets it).
///
/// Without the variable, PostgreSQL tests are skipped locally; with `CI=true` they run anyway and fail, so a CI machine
/// without PostgreSQL never turns them off silently.
public enum TestPostgres {
    public static var baseURL: String? {
        guard let value = ProcessInfo.processInfo.environment["PASSKEY_TEST_POSTGRES_URL"], !value.isEmpty else { return nil }
        return value
    }

    public static var required: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }
    public static var enabled: Bool { baseURL != nil || required }

    public static let missingMessage =
        "CI=true but PASSKEY_TEST_POSTGRES_URL is not set: .ci/run starts a throw-away PostgreSQL cluster and exports its URL"

    /// The server's URL with a schema no other test uses (the migrations create it), so every test starts empty.
    ///
    /// With a longer query timeout than the product's 5 s: the whole suite runs in parallel on as few as 2 cores, next
    /// to the PostgreSQL server and headless Chromium, and the first seconds after a build (cold caches) were seen to
    /// hold a connection attempt past 5 s. Tests of timeouts and outages set their own, short ones.
    public static func freshURL() -> String? { baseURL.map { withSchema($0, uniqueSchema()) + "&query_timeout=20" } }

    public static func uniqueSchema() -> String {
        "passkey_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
    }

    public static func withSchema(_ url: String, _ schema: String) -> String {
        url + (url.contains("?") ? "&" : "?") + "schema=" + schema
    }
}

/// A PostgreSQL cluster of a test's own, in a temporary folder on a free port on 127.0.0.1, which the test may stop and
/// start (the fault test). Uses the server programs from `PASSKEY_TEST_POSTGRES_BIN` or Debian's
/// `/usr/lib/postgresql/<version>/bin`; as root it runs them as the `postgres` user (initdb refuses root).
public final class TestPostgresCluster: Sendable {
    public let folder: URL
    public let port: Int
    let binaries: URL
    let runAs: String?
    /// Whether commits are synced to disk. Off for tests (faster, and a test machine's crash loses nothing); on for the
    /// operator benchmark, which measures what a deployment pays.
    let fsync: Bool
    /// More server settings (`name=value`, each passed as `-c`).
    let settings: [String]

    /// The folder holding `initdb` and `pg_ctl`, or nil when PostgreSQL's server programs are not installed.
    public static var binaries: URL? {
        let fileManager = FileManager.default
        if let given = ProcessInfo.processInfo.environment["PASSKEY_TEST_POSTGRES_BIN"], !given.isEmpty {
            return URL(fileURLWithPath: given)
        }
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? fileManager.contentsOfDirectory(atPath: root.path)) ?? []
        return versions.compactMap(Int.init).sorted().reversed()
            .map { root.appendingPathComponent("\($0)/bin") }
            .first { fileManager.isExecutableFile(atPath: $0.appendingPathComponent("initdb").path) }
    }

    /// Creates and starts a cluster.
    public init(fsync: Bool = false, settings: [String] = []) throws {
        self.fsync = fsync
        self.settings = settings
        guard let binaries = Self.binaries else { throw ClusterError("PostgreSQL's server programs (initdb, pg_ctl) are not installed") }
        self.binaries = binaries
        runAs = geteuid() == 0 ? "postgres" : nil
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-pg-\(UUID().uuidString.prefix(8))")
        port = try LocalPorts.free()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if let runAs { try Self.run(URL(fileURLWithPath: "/bin/chown"), [runAs, folder.path], as: nil) }
        try Self.run(
            binaries.appendingPathComponent("initdb"),
            ["-D", folder.appendingPathComponent("data").path, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"], as: runAs)
        try start()
    }

    /// `postgres://postgres@127.0.0.1:<port>/postgres?…` with short timeouts, for tests that expect outages.
    public var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres?sslmode=disable" }

    public func start() throws {
        try Self.run(
            binaries.appendingPathComponent("pg_ctl"),
            [
                "-D", folder.appendingPathComponent("data").path, "-l", folder.appendingPathComponent("log").path, "-w", "-t", "60",
                "-o", (["-p \(port) -k \(folder.path) -c listen_addresses=127.0.0.1 -c fsync=\(fsync ? "on" : "off")"] + settings.map { "-c \($0)" })
                    .joined(separator: " "), "start",
            ], as: runAs)
    }

    /// Brings a cluster just loaded to the state a deployment is in between imports: every table of the `postgres`
    /// database vacuumed and analysed (hint bits set and statistics current, so autovacuum has nothing left to do on
    /// them during a measurement), then a checkpoint (no dirty pages of the load left to write).
    public func settle() throws {
        try Self.run(
            binaries.appendingPathComponent("psql"),
            ["-h", folder.path, "-p", "\(port)", "-U", "postgres", "-d", "postgres", "-q", "-c", "VACUUM (ANALYZE)", "-c", "CHECKPOINT"],
            as: runAs)
    }

    /// Stops the server: `immediate` is a crash (no checkpoint, recovery at the next start), `fast` a clean shutdown.
    public func stop(mode: String = "immediate") throws {
        try Self.run(
            binaries.appendingPathComponent("pg_ctl"), ["-D", folder.appendingPathComponent("data").path, "-m", mode, "-w", "stop"], as: runAs)
    }

    /// Stops the server if it runs and removes the folder.
    public func destroy() {
        try? stop(mode: "immediate")
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs a PostgreSQL program and waits for it, with `posix_spawn` and `waitpid`: Foundation's `Process` was seen
    /// never to notice `runuser pg_ctl start` exiting (the child stayed a zombie), which hung the test. Output goes to a
    /// file, not a pipe: `pg_ctl start` leaves the server running with the same standard output.
    static func run(_ program: URL, _ arguments: [String], as user: String?) throws {
        let argv = (user.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []) + [program.path] + arguments
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-pg-output-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var pid: pid_t = 0
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else { throw ClusterError("cannot start \(argv[0]): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // Exited normally with status 0: WIFEXITED and WEXITSTATUS, spelled out (the C macros are not imported).
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw ClusterError("\(program.lastPathComponent) \(arguments.joined(separator: " ")) failed (status \(status)): \(text)")
        }
    }
}

public struct ClusterError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
