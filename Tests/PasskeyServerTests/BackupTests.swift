import Foundation
import HummingbirdTesting
import NIOCore
import PasskeyTestSupport
import PasskeyWire
import Testing

/// `passkey-server backup` as an operator runs it (issue: backups operators can trust): taken from a serving process
/// while registrations keep coming, restored into a new server, where a passkey registered before the backup signs in.
@Suite("Backups taken under load restore and sign in", .serialized)
struct BackupTests {
    let move = MoveDatabaseTests()

    @Test("back up under load, restore into a new server, sign in with a passkey registered before the backup")
    func backupUnderLoad() async throws {
        let database = try DurableStore.sqlite.makeDatabase()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let backup = folder.appendingPathComponent("backup.sqlite").path

        var device = try TestAuthenticator()
        let serving = try await ServerProcess.start(database: database, port: try LocalPorts.free())
        let registered: HTTPAnswer
        do {
            registered = try await move.register(&device, username: "ann", port: serving.port)
            #expect(registered.status == 200, "\(registered.json)")
            // Registrations keep coming while the backup runs: it starts once some have been stored.
            let port = serving.port
            let stored = Counter()
            let load = Task {
                while !Task.isCancelled, stored.value < 2_000 {
                    var other = try TestAuthenticator()
                    other.credentialID = Array(UUID().uuidString.utf8)
                    do {
                        if try await move.register(&other, username: "load-\(stored.value)-\(UUID().uuidString.prefix(8))", port: port).status == 200 {
                            stored.increment()
                        }
                    } catch where Task.isCancelled {
                        break  // stopped in the middle of a registration
                    }
                }
            }
            for _ in 0..<1_500 where stored.value < 5 { try await Task.sleep(for: .milliseconds(20)) }
            #expect(stored.value >= 5, "the load stores registrations before the backup starts")
            let backedUp = try await move.run(["backup", "--output", backup, "--database", database])
            #expect(backedUp.status == 0 && backedUp.output.contains("backed up"), "\(backedUp.output)")
            load.cancel()
            _ = try await load.value
            let mode = try FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? Int
            #expect(mode == 0o600, "the copy holds the signing keys")
            let again = try await move.run(["backup", "--output", backup, "--database", database])
            #expect(again.status != 0 && again.output.contains("exists"), "a backup never replaces a file: \(again.output)")
        } catch {
            serving.stop()
            throw error
        }
        serving.stop()

        let restored = try await ServerProcess.start(database: "sqlite:" + backup, port: try LocalPorts.free())
        defer { restored.stop() }
        let signedIn = try await move.signIn(device, signCount: 3, port: restored.port)
        #expect(signedIn.status == 200 && signedIn["userId"] == registered["userId"], "\(signedIn.json)")
    }

    @Test("PostgreSQL and memory are refused with what to use instead")
    func otherDatabases() async throws {
        let postgres = try await move.run(["backup", "--output", "/tmp/never", "--database", "postgres://u@127.0.0.1:1/db"])
        #expect(postgres.status != 0 && postgres.output.contains("pg_dump"), "\(postgres.output)")
        let memory = try await move.run(["backup", "--output", "/tmp/never", "--database", "memory:"])
        #expect(memory.status != 0 && memory.output.contains("in-memory"), "\(memory.output)")
    }
}

/// A count shared by the load task and the test.
final class Counter: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
