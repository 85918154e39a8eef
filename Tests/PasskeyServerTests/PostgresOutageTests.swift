import Foundation
import PasskeyStoragePostgres
import PasskeyTestSupport
import PasskeyWire
import Testing

/// PostgreSQL goes away under traffic and comes back: the servers answer 503 `storage_unavailable` meanwhile (no crash,
/// no 500), recover without a restart, and lose no registration they acknowledged.
///
/// Runs on a cluster of its own (it is stopped mid-test), so it needs PostgreSQL's server programs; without them it is
/// skipped locally and fails with `CI=true`.
@Suite("PostgreSQL outage under traffic", .enabled(if: TestPostgresCluster.binaries != nil || TestPostgres.required, "PostgreSQL server programs are not installed"))
struct PostgresOutageTests {
    @Test("stop PostgreSQL during registrations: 503s, then service resumes by itself and nothing acknowledged is lost", .timeLimit(.minutes(4)))
    func outageAndRecovery() async throws {
        let cluster: TestPostgresCluster
        do { cluster = try TestPostgresCluster() } catch {
            Issue.record("CI=true but no PostgreSQL cluster could be started (.ci/run installs postgresql): \(error)")
            return
        }
        defer { cluster.destroy() }
        let url = cluster.url + "&connect_timeout=1&query_timeout=2&schema=outage"
        let ports = try LocalPorts.free(2)
        let logs = ports.map { FileManager.default.temporaryDirectory.appendingPathComponent("passkey-outage-\($0).log").path }
        let servers = try await [
            ServerProcess.start(database: url, port: ports[0], extraArguments: ["--options-per-minute", "100000"], logPath: logs[0]),
            ServerProcess.start(database: url, port: ports[1], extraArguments: ["--options-per-minute", "100000"], logPath: logs[1]),
        ]
        defer { for server in servers { server.stop() } }
        let pids = servers.map(\.process.processIdentifier)

        let record = TrafficRecord()
        // Four clients register without pause, each taking options from one instance and verifying on the other.
        let traffic = Task {
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        let first = ProcessClient(port: ports[worker % 2])
                        let second = ProcessClient(port: ports[(worker + 1) % 2])
                        var index = 0
                        while !(await record.finished) {
                            index += 1
                            guard var driver = try? CeremonyDriver(credentialID: Array("o\(worker)-\(index)-".utf8) + [UInt8](repeating: 3, count: 16))
                            else { return }
                            switch await driver.registrationBody(from: first, username: nil) {
                            case .failure(let refused):
                                await record.answer(refused.answer)
                                if refused.answer.status != 200 { try? await Task.sleep(for: .milliseconds(50)) }
                            case .success(let body):
                                let answer = await second.call(.post, "/verify-registration", json: body)
                                await record.answer(answer)
                                if answer.status == 200 { await record.acknowledge(driver.device.credentialID) }
                            }
                        }
                        await first.close()
                        await second.close()
                    }
                }
            }
        }

        // Traffic flows, then the database stops (as in a crash: no shutdown checkpoint).
        try await record.waitForAcknowledged(atLeast: 20, within: .seconds(60))
        try cluster.stop(mode: "immediate")
        let stoppedAt = ContinuousClock.now
        await record.mark("stopped")
        try await Task.sleep(for: .seconds(5))
        let health = ProcessClient(port: ports[0])
        let unhealthy = await health.call(.get, "/health")
        #expect(unhealthy.status == 503 && unhealthy["database"] == "unreachable", "\(unhealthy.json.serialized())")
        let duringOutage = await record.answers(since: "stopped")
        #expect(duringOutage.contains { $0.status == 503 && $0["error"] == "storage_unavailable" }, "no 503 during the outage: \(duringOutage.map(\.status))")
        #expect(servers.allSatisfy { $0.process.isRunning }, "a server exited during the outage")

        // The database returns; the same processes serve again.
        try cluster.start()
        let restartedAt = ContinuousClock.now
        await record.mark("restarted")
        let before = await record.acknowledged.count
        try await record.waitForAcknowledged(atLeast: before + 20, within: .seconds(90))
        let recovery = ContinuousClock.now - restartedAt
        await record.finish()
        await traffic.value
        let healthy = await health.call(.get, "/health")
        #expect(healthy.status == 200, "\(healthy.json.serialized())")
        await health.close()
        #expect(servers.map(\.process.processIdentifier) == pids && servers.allSatisfy { $0.process.isRunning })

        // Nothing but successes and 503s: no 500, no dropped connection (a crash).
        let all = await record.all
        let unexpected = all.filter { $0.status != 200 && !($0.status == 503 && $0["error"] == "storage_unavailable") }
        #expect(unexpected.isEmpty, "unexpected answers: \(unexpected.prefix(5).map { "\($0.status) \($0.json.serialized())" })")
        let outageAnswers = await record.answers(since: "stopped").count - (await record.answers(since: "restarted").count)
        print(
            "outage test: \(all.count) answers, \(all.filter { $0.status == 503 }.count) × 503 during an outage of "
                + "\(restartedAt - stoppedAt) (\(outageAnswers) answers meanwhile); first 20 registrations after restart took \(recovery)")

        // Every registration answered with success is stored.
        let acknowledged = await record.acknowledged
        let repository = try await PostgresRepository.connect(try PostgresConfiguration(url: url))
        var missing = 0
        for id in acknowledged where try await repository.credential(id: id) == nil { missing += 1 }
        await repository.shutdown()
        #expect(missing == 0, "\(missing) of \(acknowledged.count) acknowledged registrations were lost")
    }
}

/// What the traffic saw, in order, with named marks.
actor TrafficRecord {
    private(set) var all: [HTTPAnswer] = []
    private(set) var acknowledged: [[UInt8]] = []
    private(set) var finished = false
    private var marks: [String: Int] = [:]

    func answer(_ answer: HTTPAnswer) { all.append(answer) }
    func acknowledge(_ id: [UInt8]) { acknowledged.append(id) }
    func mark(_ name: String) { marks[name] = all.count }
    func finish() { finished = true }
    func answers(since mark: String) -> [HTTPAnswer] { Array(all[(marks[mark] ?? all.count)...]) }

    func waitForAcknowledged(atLeast count: Int, within limit: Duration) async throws {
        let start = ContinuousClock.now
        while acknowledged.count < count {
            guard ContinuousClock.now - start < limit else {
                throw TrafficStalled(description: "only \(acknowledged.count) of \(count) registrations acknowledged after \(limit); last answers: \(all.suffix(3).map { "\($0.status) \($0.json.serialized())" })")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

struct TrafficStalled: Error, CustomStringConvertible {
    let description: String
}
