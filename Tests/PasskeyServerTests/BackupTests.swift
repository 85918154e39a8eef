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
        let folder = try temporaryFolderURL("passkey-backup")
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
            let stored = Collector<String>()
            let load = Task {
                while !Task.isCancelled, stored.count < 2_000 {
                    var other = try TestAuthenticator()
                    other.credentialID = Array(UUID().uuidString.utf8)
                    do {
                        let username = "load-\(stored.count)-\(UUID().uuidString.prefix(8))"
                        if try await move.register(&other, username: username, port: port).status == 200 {
                            stored.append(username)
                        }
                    } catch where Task.isCancelled {
                        break  // stopped in the middle of a registration
                    }
                }
            }
            for _ in 0..<1_500 where stored.count < 5 { try await Task.sleep(for: .milliseconds(20)) }
            #expect(stored.count >= 5, "the load stores registrations before the backup starts")
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
