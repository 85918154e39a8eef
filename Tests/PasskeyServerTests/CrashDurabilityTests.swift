import Foundation
import HummingbirdTesting
import NIOCore
import PasskeyStorage
import PasskeyStorageSQLite
import PasskeyStoragePostgres
import PasskeyTestSupport
import PasskeyWire
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The stores the crash test runs against: SQLite always, PostgreSQL when a server is given (or required, on CI).
enum DurableStore: String, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
    static var available: [DurableStore] { TestPostgres.enabled ? allCases : [.sqlite] }

    /// A `--database` value for a new, empty database.
    func makeDatabase() throws -> String {
        switch self {
        case .sqlite:
            let folder = temporaryPath("passkey-crash")
            return "sqlite:" + folder.appendingPathComponent("crash.sqlite").path
        case .postgres:
            return try #require(TestPostgres.freshURL(), Comment(rawValue: TestPostgres.missingMessage))
        }
    }

    /// Opens the database a killed server left behind, as a restarted server would, and counts the credentials of `ids`
    /// that are missing.
    func missing(_ ids: [[UInt8]], in database: String) async throws -> Int {
        let repository: any PasskeyRepository
        var close: @Sendable () async -> Void = {}
        switch self {
        case .sqlite:
            repository = try SQLiteRepository(path: String(database.dropFirst("sqlite:".count)))
        case .postgres:
            let postgres = try await PostgresRepository.connect(try PostgresConfiguration(url: database))
            repository = postgres
            close = { await postgres.shutdown() }
        }
        var missing = 0
        do {
            for id in ids where try await repository.credential(id: id) == nil { missing += 1 }
        } catch {
            await close()
            throw error
        }
        await close()
        return missing
    }
}

@Suite("Durability: kill -9 during registrations", .serialized)
struct CrashDurabilityTests {
    @Test("every registration answered with success is present after kill -9 and a restart", arguments: DurableStore.available)
    func killDuringRegistrations(store: DurableStore) async throws {
        let database = try store.makeDatabase()
        let server = try await ServerProcess.start(database: database, port: try LocalPorts.free())
        let port = server.port
        let confirmed = Collector<[UInt8]>()
        let deadline = ContinuousClock.now.advanced(by: .seconds(75))
        // Eight clients register as fast as they can; the server is killed while they do, once 40 registrations have
        // been acknowledged (or after 60 seconds on a very slow machine: the whole suite once allowed only 9 in 10 s, and on
        // CI 8 in 25 s): progress, not a fixed time, triggers it.
        let killer = Task {
            let start = ContinuousClock.now
            while confirmed.count < 40, ContinuousClock.now - start < .seconds(60) {
                try await Task.sleep(for: .milliseconds(10))
            }
            kill(server.process.processIdentifier, SIGKILL)
        }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var client = TestClient(host: "127.0.0.1", port: port)
                    client.connect()
                    /// After a failed request, a new connection: the old one may be what failed.
                    func reconnect() async {
                        try? await client.shutdown()
                        try? await Task.sleep(for: .milliseconds(20))
                        client = TestClient(host: "127.0.0.1", port: port)
                        client.connect()
                    }
                    var index = 0
                    // A failed request (a slow machine's timeout) does not end the worker: only the kill or the deadline does.
                    while ContinuousClock.now < deadline, server.process.isRunning {
                        index += 1
                        guard var device = try? TestAuthenticator() else { return }
                        device.credentialID = Array("w\(worker)-\(index)-".utf8) + [UInt8](repeating: 1, count: 16)
                        guard let options = try? await client.execute(TestClient.Request("/generate-registration-options", method: .get, authority: "localhost")),
                            let bodyBuffer = options.body, let json = try? JSONValue.parse(Array(bodyBuffer.readableBytesView)).objectValue,
                            let challenge = json["challenge"]?.stringValue, let key = json["challengeKey"]
                        else {
                            await reconnect()
                            continue
                        }
                        device.userHandle = json["user"]?.objectValue?["id"]?.stringValue.flatMap(Base64URL.decode) ?? []
                        let clientData = TestAuthenticator.clientData(type: "webauthn.create", challenge: challenge)
                        let body: JSONValue = ["challengeKey": key, "cred": device.registration(clientData: clientData).json]
                        guard let answer = try? await client.execute(
                            TestClient.Request("/verify-registration", method: .post, authority: "localhost", headers: [.contentType: "application/json"], body: ByteBuffer(bytes: body.serializedBytes)))
                        else {
                            await reconnect()
                            continue
                        }
                        if answer.status == .ok { confirmed.append(device.credentialID) }
                    }
                    try? await client.shutdown()
                }
            }
        }
        _ = try? await killer.value
        server.process.waitUntilExit()
        #expect(server.process.terminationReason == .uncaughtSignal)

        let acknowledged = confirmed.values
        print("kill -9 test: \(acknowledged.count) registrations acknowledged before the kill")
        #expect(acknowledged.count > 10, "too few registrations before the kill to mean anything")
        // Reopen the database the killed process left behind, as a restarted server would.
        let missing = try await store.missing(acknowledged, in: database)
        #expect(missing == 0, "\(missing) of \(acknowledged.count) acknowledged registrations were lost")
        // And a restarted server serves from it.
        let restarted = try await ServerProcess.start(database: database, port: try LocalPorts.free())
        restarted.process.terminate()
        restarted.process.waitUntilExit()
    }
}
