import Foundation
import HummingbirdTesting
import NIOCore
import PasskeyStorageSQLite
import PasskeyTestSupport
import PasskeyWire
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the built `passkey-server` binary.
struct ServerProcess {
    let process: Process
    let port: Int

    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("passkey-server")
    }

    static func start(database: String, port: Int) async throws -> ServerProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--port", String(port), "--database", database, "--origin", "https://example.com", "--rp-id", "example.com"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<100 {
            // A TestClient connects once: a fresh one per attempt, until the server listens.
            let client = TestClient(host: "127.0.0.1", port: port)
            client.connect()
            let response = try? await client.execute(TestClient.Request("/health", method: .get))
            try? await client.shutdown()
            if response?.status == .ok { return ServerProcess(process: process, port: port) }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.terminate()
        throw CocoaError(.fileReadUnknown)
    }
}

@Suite("Durability: kill -9 during registrations", .serialized)
struct CrashDurabilityTests {
    @Test("every registration answered with success is present after kill -9 and a restart")
    func killDuringRegistrations() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-crash-\(UUID().uuidString)")
        let path = folder.appendingPathComponent("crash.sqlite").path
        let server = try await ServerProcess.start(database: "sqlite:" + path, port: try LocalPorts.free())
        let port = server.port
        let confirmed = ConfirmedIDs()
        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
        // Eight clients register as fast as they can; the server is killed while they do, once 40 registrations have
        // been acknowledged (or after 10 seconds on a very slow machine): progress, not a fixed time, triggers it.
        let killer = Task {
            let start = ContinuousClock.now
            while await confirmed.ids.count < 40, ContinuousClock.now - start < .seconds(10) {
                try await Task.sleep(for: .milliseconds(10))
            }
            kill(server.process.processIdentifier, SIGKILL)
        }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    let client = TestClient(host: "127.0.0.1", port: port)
                    client.connect()
                    var index = 0
                    while ContinuousClock.now < deadline {
                        index += 1
                        guard var device = try? TestAuthenticator() else { return }
                        device.credentialID = Array("w\(worker)-\(index)-".utf8) + [UInt8](repeating: 1, count: 16)
                        guard let options = try? await client.execute(TestClient.Request("/generate-registration-options", method: .get)),
                            let bodyBuffer = options.body, let json = try? JSONValue.parse(Array(bodyBuffer.readableBytesView)).objectValue,
                            let challenge = json["challenge"]?.stringValue, let key = json["challengeKey"]
                        else { return }
                        device.userHandle = json["user"]?.objectValue?["id"]?.stringValue.flatMap(Base64URL.decode) ?? []
                        let clientData = TestAuthenticator.clientData(type: "webauthn.create", challenge: challenge)
                        let body: JSONValue = ["challengeKey": key, "cred": device.registration(clientData: clientData).json]
                        guard let answer = try? await client.execute(
                            TestClient.Request("/verify-registration", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(bytes: body.serializedBytes)))
                        else { return }
                        if answer.status == .ok { await confirmed.add(device.credentialID) }
                    }
                    try? await client.shutdown()
                }
            }
        }
        _ = try? await killer.value
        server.process.waitUntilExit()
        #expect(server.process.terminationReason == .uncaughtSignal)

        let acknowledged = await confirmed.ids
        print("kill -9 test: \(acknowledged.count) registrations acknowledged before the kill")
        #expect(acknowledged.count > 10, "too few registrations before the kill to mean anything")
        // Reopen the database the killed process left behind, as a restarted server would.
        let repository = try SQLiteRepository(path: path)
        var missing = 0
        for id in acknowledged where try await repository.credential(id: id) == nil { missing += 1 }
        #expect(missing == 0, "\(missing) of \(acknowledged.count) acknowledged registrations were lost")
        // And a restarted server serves from it.
        let restarted = try await ServerProcess.start(database: "sqlite:" + path, port: try LocalPorts.free())
        restarted.process.terminate()
        restarted.process.waitUntilExit()
    }
}

actor ConfirmedIDs {
    var ids: [[UInt8]] = []
    func add(_ id: [UInt8]) { ids.append(id) }
}
