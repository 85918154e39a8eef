import Foundation
import PasskeyRelyingParty
import PasskeyStorage
import PasskeyStorageSQLite
import PasskeyTestSupport
import PasskeyWire
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Webhook receivers at internal addresses, attacked against the built `passkey-server` as a black-box review did
/// (issue 45): the subcommand refuses every spelling and every name that resolves inside the network when an endpoint
/// is saved, and the server, at delivery, connects to nothing a name resolves to now if that is internal (DNS
/// rebinding). Names resolve through a hosts file of the test's own, bind-mounted over /etc/hosts in a mount namespace
/// (`unshare --mount`) that only the test's processes see, so the system resolver (`getaddrinfo`) reads it as it
/// reads any name. Without `unshare` and the right to mount the suite is skipped locally; with `CI=true` it fails.
@Suite(
    "Webhooks at internal addresses, against the server process", .serialized,
    .enabled(if: HostsNamespace.available || HostsNamespace.required, "unshare --mount is not permitted here"))
struct WebhookRebindingTests {
    static let env = URL(fileURLWithPath: "/usr/bin/env")

    /// The command prefix that runs a program with `hosts` as its /etc/hosts.
    static func withHosts(_ hosts: URL) -> [String] {
        ["unshare", "--mount", "sh", "-c", #"mount --bind "$0" /etc/hosts && exec "$@""#, hosts.path]
    }

    /// Rewrites the hosts file in place: the bind mount shows this inode, so it must not be replaced by another file.
    static func setHosts(_ hosts: URL, _ text: String) throws {
        let handle = try FileHandle(forWritingTo: hosts)
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    func run(_ hosts: URL, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await onOwnThread { try runProgram(Self.env, Self.withHosts(hosts) + [ServerProcess.executable.path] + arguments) }
    }

    /// A TCP listener on 127.0.0.1:`port` that writes a line for every connection it accepts: the receiver the
    /// server must never reach.
    static let listener = """
        import socket, sys
        out = sys.argv[2]
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", int(sys.argv[1])))
        server.listen(16)
        open(out, "a").write("ready\\n")
        while True:
            connection, _ = server.accept()
            open(out, "a").write("connection\\n")
            connection.close()
        """

    @Test(
        "every internal receiver is refused by the subcommand; a name rebound to loopback after saving gets no connection, and its delivery says only 'refused by policy'",
        .timeLimit(.minutes(3)))
    func rebinding() async throws {
        let folder = try WebhookProcessTests.folder()
        let hosts = folder.appendingPathComponent("hosts")
        let ports = try LocalPorts.free(2)
        let publicHosts = "127.0.0.1 localhost\n93.184.215.14 rebind.example.com\n10.0.0.7 db.example.com\n169.254.169.254 metadata.example.com\n"
        try publicHosts.write(to: hosts, atomically: false, encoding: .utf8)
        let database = "sqlite:" + folder.appendingPathComponent("hooks.sqlite").path
        #expect(try await run(hosts, ["migrate", "--database", database]).status == 0)

        // At save time: every spelling, and names that resolve inside the network (from the hosts file here, as from
        // internal DNS), through the subcommand.
        let own = SystemHostResolver.interfaceAddresses().first { !$0.isIPv4 || $0.bytes[0] != 127 }.map { $0.isIPv4 ? "\($0)" : "[\($0)]" }
        let receivers = [
            "https://db.example.com/hooks", "https://metadata.example.com/latest/meta-data/", "https://localhost/hooks",
        ] + WebhookAPITests.internalReceivers.filter { !$0.contains(".example.com") && !$0.contains("203.0.114.9") } + (own.map { ["https://\($0)/hooks"] } ?? [])
        for url in receivers {
            let refused = try await run(hosts, ["webhooks", "add", url, "--database", database])
            #expect(refused.status != 0 && refused.output.contains("webhook_url_invalid"), "\(url): \(refused.output)")
        }
        let added = try await run(hosts, ["webhooks", "add", "https://rebind.example.com:\(ports[1])/hooks", "--database", database])
        #expect(added.status == 0, "a public address when saved: \(added.output)")

        // Then the name resolves to loopback, where a receiver listens.
        try Self.setHosts(hosts, "127.0.0.1 localhost\n127.0.0.1 rebind.example.com\n")
        let connections = folder.appendingPathComponent("connections.log")
        let listener = Process()
        listener.executableURL = Self.env
        listener.arguments = ["python3", "-c", Self.listener, String(ports[1]), connections.path]
        listener.standardOutput = FileHandle.nullDevice
        listener.standardError = FileHandle.nullDevice
        try listener.run()
        defer { kill(listener.processIdentifier, SIGKILL) }
        #expect(try await WebhookProcessTests.eventually(10) { ((try? String(contentsOf: connections, encoding: .utf8)) ?? "").contains("ready") })

        let log = folder.appendingPathComponent("server.log").path
        let server = try await ServerProcess.start(
            database: database, port: ports[0], extraArguments: ["--webhook-retry-schedule", "0.2,0.2,0.2", "--options-per-minute", "1000"], logPath: log,
            launcher: Self.withHosts(hosts))
        defer { server.stop() }
        let client = ProcessClient(port: server.port)
        _ = try await WebhookProcessTests.register("ann", client, credential: 1)
        await client.close()

        let repository = try await WebhookProcessTests.openSQLite(database)
        let failed = try await WebhookProcessTests.eventually(60) {
            try await repository.webhookDeliveries(endpointID: nil, before: nil, limit: 10).contains { $0.state == .failed }
        }
        #expect(failed, "the first message's retries ran out")
        let first = try #require(try await WebhookProcessTests.written(repository).first)
        #expect(first.state == .failed && first.attempts == 4 && first.lastStatus == nil, "\(first)")
        #expect(first.lastError == "refused by policy: the receiver's address is not one webhooks may be sent to", "\(first)")
        let seen = (try? String(contentsOf: connections, encoding: .utf8)) ?? ""
        #expect(!seen.contains("connection"), "the server connected to the loopback receiver: \(seen)")
        // The detail is in the server's log only.
        let logged = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(logged.contains("rebind.example.com: 127.0.0.1 is a loopback address"), "\(logged.suffix(2000))")
        let listed = try await run(hosts, ["webhooks", "deliveries", "--database", database])
        #expect(listed.output.contains("failed  attempts 4  refused by policy") && !listed.output.contains("127.0.0.1"), "\(listed.output)")
    }
}

/// Whether this machine lets a test make a mount namespace with a bind mount over /etc/hosts.
enum HostsNamespace {
    static let required = ProcessInfo.processInfo.environment["CI"] == "true"
    static let available: Bool = {
        let run = try? runProgram(URL(fileURLWithPath: "/usr/bin/env"), ["unshare", "--mount", "sh", "-c", "mount --bind /etc/hosts /etc/hosts"])
        return run?.status == 0
    }()
}
