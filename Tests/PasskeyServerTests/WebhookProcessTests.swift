import Foundation
import PasskeyStorage
import PasskeyStoragePostgres
import PasskeyStorageSQLite
import PasskeyTestSupport
import PasskeyWire
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Signed webhooks end to end: the `passkey-server` binary delivers to a receiver process that checks every signature
/// with `standardwebhooks` from PyPI (an implementation we did not write). Endpoints are added with
/// `passkey-server webhooks add`, as an operator would. Without python3 and the package the suite is skipped locally;
/// with `CI=true` it fails instead.
///
/// One test at a time: each starts servers and receivers, and together they loaded the machine enough to starve the
/// time-bounded tests running beside them. Nothing here blocks a Swift concurrency thread: stores are opened and
/// programs run on threads of their own.
@Suite("Webhooks between processes", .serialized, .enabled(if: WebhookSignatureTests.available || WebhookSignatureTests.required, "python3 with standardwebhooks is not installed"))
struct WebhookProcessTests {
    /// The receiver: verifies each POST with the library, answers 500 to its first `fail_first` requests and 200
    /// after (400 to one whose signature does not verify), and writes a JSON line per request.
    static let receiver = """
        import sys, json, threading, signal
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the test runner's children inherit SIGTERM ignored
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from standardwebhooks import Webhook
        secret, port, fail_first, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
        hook = Webhook(secret)
        lock = threading.Lock()
        state = {"count": 0}
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                with lock:
                    state["count"] += 1
                    number = state["count"]
                try:
                    payload = hook.verify(body, {k.lower(): v for k, v in self.headers.items()})
                    verified = True
                except Exception:
                    payload, verified = None, False
                status = 500 if number <= fail_first else (200 if verified else 400)
                record = {"n": number, "id": self.headers.get("webhook-id"), "verified": verified, "status": status,
                          "type": payload and payload.get("type"), "userId": payload and payload["data"].get("userId")}
                with lock:
                    with open(out, "a") as f:
                        f.write(json.dumps(record) + "\\n")
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()
            def log_message(self, *args):
                pass
        ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
        """

    struct Received: Sendable {
        let id: String
        let verified: Bool
        let status: Int
        let type: String?
        let userID: String?
    }

    /// A receiver process on `port` and the file it writes.
    final class Receiver: Sendable {
        let process: Process
        let log: URL

        init(secret: String, port: Int, failFirst: Int, folder: URL) async throws {
            log = folder.appendingPathComponent("received-\(port)-\(UUID().uuidString).jsonl")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", WebhookProcessTests.receiver, secret, String(port), String(failFirst), log.path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            self.process = process
            // Listening once a connection is accepted.
            for _ in 0..<100 {
                if Self.accepts(port) { return }
                try await Task.sleep(for: .milliseconds(100))
            }
            throw ServerStartFailed(description: "the webhook receiver did not listen on \(port)")
        }

        static func accepts(_ port: Int) -> Bool {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
        }

        var received: [Received] {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { line in
                guard let object = (try? JSONValue.parse(Array(line.utf8)))?.objectValue, let id = object["id"]?.stringValue else { return nil }
                return Received(
                    id: id, verified: object["verified"] == true, status: Int(object["status"]?.numberValue ?? 0), type: object["type"]?.stringValue,
                    userID: object["userId"]?.stringValue)
            }
        }

        /// Ends the receiver at once, without waiting (Foundation reaps it).
        func stop() { kill(process.processIdentifier, SIGKILL) }
    }

    static func folder() throws -> URL {
        let folder = try temporaryFolderURL("passkey-webhooks")
        return folder
    }

    /// A new SQLite database (`passkey-server migrate`, as an operator makes one) with an endpoint to a receiver on the
    /// second of two free ports; the first is the server's.
    static func sqliteWithEndpoint() async throws -> (folder: URL, database: String, ports: [Int], secret: String) {
        let folder = try Self.folder()
        let database = "sqlite:" + folder.appendingPathComponent("hooks.sqlite").path
        let ports = try LocalPorts.free(2)
        try await Self.migrate(database)
        return (folder, database, ports, try await Self.addEndpoint("http://127.0.0.1:\(ports[1])/hooks", database: database))
    }

    /// The server's SQLite database, opened on a thread of its own: opening it waits for the server's writer.
    static func openSQLite(_ database: String) async throws -> SQLiteRepository {
        try await onOwnThread { try SQLiteRepository(path: String(database.dropFirst("sqlite:".count))) }
    }

    /// `passkey-server migrate`, which makes a new database, as an operator does before adding endpoints.
    static func migrate(_ database: String) async throws {
        let run = try await onOwnThread { try runProgram(ServerProcess.executable, ["migrate", "--database", database]) }
        #expect(run.status == 0, "\(run.output)")
    }

    /// The receivers here listen on loopback, which webhooks may reach only when the operator allows it.
    static let receiversBeside = ["PASSKEY_WEBHOOK_ALLOW_NETWORK": "127.0.0.0/8"]

    /// `passkey-server webhooks add <url> --database <database>`: the secret it prints.
    static func addEndpoint(_ url: String, database: String) async throws -> String {
        let run = try await onOwnThread {
            try runProgram(ServerProcess.executable, ["webhooks", "add", url, "--database", database], environment: Self.receiversBeside)
        }
        #expect(run.status == 0, "\(run.output)")
        return try #require(run.output.split(separator: "\n").first { $0.hasPrefix("whsec_") }.map(String.init), "\(run.output)")
    }

    /// Registers `name` with a passkey of its own through `client`.
    static func register(_ name: String, _ client: ProcessClient, credential: UInt8) async throws -> String? {
        var device = try CeremonyDriver(credentialID: Array("hook-\(name)".utf8) + [UInt8](repeating: credential, count: 8))
        let body = try await device.registrationBody(from: client, username: name).get()
        let answer = await client.call(.post, "/verify-registration", json: body)
        #expect(answer.status == 200, "\(answer.json.serialized())")
        return answer["userId"]?.stringValue
    }

    /// Waits until `condition` holds, up to `seconds`.
    static func eventually(_ seconds: Int, _ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<(seconds * 10) where try await !condition() { try await Task.sleep(for: .milliseconds(100)) }
        return try await condition()
    }

    /// The stored messages in the order they were written, per endpoint.
    static func written(_ repository: any WebhookRepository) async throws -> [WebhookDeliveryRecord] {
        try await repository.webhookDeliveries(endpointID: nil, before: nil, limit: 200).reversed()
    }

    /// What a receiver accepted must be every written message, at least once, each account's in the order written.
    static func checkDelivered(_ received: [Received], written: [WebhookDeliveryRecord]) {
        #expect(received.allSatisfy { $0.verified }, "every signature verifies with standardwebhooks")
        let accepted = received.filter { $0.status == 200 }
        #expect(Set(accepted.map(\.id)) == Set(written.map(\.message.id)), "nothing lost")
        var firstSeen: [String] = []
        for message in accepted where !firstSeen.contains(message.id) { firstSeen.append(message.id) }
        for user in Set(written.compactMap(\.message.userID)) {
            let order = written.filter { $0.message.userID == user }.map(\.message.id)
            #expect(firstSeen.filter(order.contains) == order, "the order of \(user)'s events")
        }
    }

    @Test("a receiver that fails for a while, then recovers: nothing lost, every signature verifies, each account's order kept", .timeLimit(.minutes(3)))
    func failingReceiver() async throws {
        let (folder, database, ports, secret) = try await Self.sqliteWithEndpoint()
        let receiver = try await Receiver(secret: secret, port: ports[1], failFirst: 3, folder: folder)
        defer { receiver.stop() }
        let server = try await ServerProcess.start(
            database: database, port: ports[0], extraArguments: ["--webhook-retry-schedule", "0.3,0.3,0.3,0.3,0.3", "--options-per-minute", "1000"],
            logPath: folder.appendingPathComponent("server.log").path, environment: Self.receiversBeside)
        defer { server.stop() }
        let client = ProcessClient(port: server.port)
        for (index, name) in ["ann", "bob", "carol"].enumerated() { _ = try await Self.register(name, client, credential: UInt8(index + 1)) }
        let disabled = try await onOwnThread { try runProgram(ServerProcess.executable, ["users", "disable", "bob", "--database", database]) }
        #expect(disabled.status == 0, "\(disabled.output)")
        await client.close()

        let repository = try await Self.openSQLite(database)
        let delivered = try await Self.eventually(60) { try await Self.written(repository).allSatisfy { $0.state == .delivered } }
        let written = try await Self.written(repository)
        #expect(delivered, "\(written.map { "\($0.message.type) \($0.state.rawValue) \($0.lastError ?? "")" })")
        #expect(written.map(\.message.type).filter { $0 == "user.created" }.count == 3 && written.last?.message.type == "user.disabled")
        let received = receiver.received
        #expect(received.filter { $0.status == 500 }.count == 3 && received.count == written.count + 3, "3 refusals, each retried once")
        Self.checkDelivered(received, written: written)
        #expect(written.first?.attempts == 4, "the first message was refused 3 times, then taken")
    }

    @Test("kill -9 between a change and its delivery: the message is delivered after the restart", .timeLimit(.minutes(3)))
    func killedServer() async throws {
        let (folder, database, ports, secret) = try await Self.sqliteWithEndpoint()
        // No receiver yet: deliveries fail and wait.
        let schedule = Array(repeating: "0.5", count: 30).joined(separator: ",")
        let first = try await ServerProcess.start(database: database, port: ports[0], extraArguments: ["--webhook-retry-schedule", schedule], environment: Self.receiversBeside)
        let client = ProcessClient(port: first.port)
        _ = try await Self.register("ann", client, credential: 1)
        await client.close()
        let repository = try await Self.openSQLite(database)
        #expect(try await Self.eventually(20) { try await Self.written(repository).first?.attempts ?? 0 >= 1 }, "an attempt failed")
        kill(first.process.processIdentifier, SIGKILL)
        try await onOwnThread { first.process.waitUntilExit() }
        #expect(try await Self.written(repository).allSatisfy { $0.state == .pending })

        let receiver = try await Receiver(secret: secret, port: ports[1], failFirst: 0, folder: folder)
        defer { receiver.stop() }
        let second = try await ServerProcess.start(database: database, port: ports[0], extraArguments: ["--webhook-retry-schedule", schedule], environment: Self.receiversBeside)
        defer { second.stop() }
        #expect(try await Self.eventually(60) { try await Self.written(repository).allSatisfy { $0.state == .delivered } })
        let written = try await Self.written(repository)
        #expect(written.map(\.message.type) == ["user.created", "passkey.created"])
        Self.checkDelivered(receiver.received, written: written)
    }

    @Test(
        "two instances on one PostgreSQL deliver each event once", .timeLimit(.minutes(3)),
        .enabled(if: TestPostgres.enabled, "PASSKEY_TEST_POSTGRES_URL is not set"))
    func twoInstances() async throws {
        let url = try #require(TestPostgres.freshURL(), Comment(rawValue: TestPostgres.missingMessage))
        let folder = try Self.folder()
        let ports = try LocalPorts.free(3)
        // The database is made by the first server; the endpoint is added once it exists.
        async let startA = ServerProcess.start(database: url, port: ports[0], extraArguments: ["--options-per-minute", "1000"], environment: Self.receiversBeside)
        async let startB = ServerProcess.start(database: url, port: ports[1], extraArguments: ["--options-per-minute", "1000"], environment: Self.receiversBeside)
        let (a, b) = try await (startA, startB)
        defer {
            a.stop()
            b.stop()
        }
        let secret = try await Self.addEndpoint("http://127.0.0.1:\(ports[2])/hooks", database: url)
        let receiver = try await Receiver(secret: secret, port: ports[2], failFirst: 0, folder: folder)
        defer { receiver.stop() }
        let clients = [ProcessClient(port: a.port), ProcessClient(port: b.port)]
        for index in 0..<12 { _ = try await Self.register("user\(index)", clients[index % 2], credential: UInt8(index + 1)) }
        for client in clients { await client.close() }
        let repository = try await PostgresRepository.connect(try PostgresConfiguration(url: url))
        #expect(try await Self.eventually(60) { try await Self.written(repository).allSatisfy { $0.state == .delivered } })
        let written = try await Self.written(repository)
        await repository.shutdown()
        #expect(written.count == 24)
        let received = receiver.received
        #expect(received.count == 24 && Set(received.map(\.id)).count == 24, "each event once: \(received.count) requests")
        Self.checkDelivered(received, written: written)
    }
}
