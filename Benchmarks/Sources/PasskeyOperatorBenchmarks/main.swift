// passkey-operator-bench: what an operator pays per ceremony, measured from outside (docs/benchmarks.md).
//
// The release passkey-server beside this program runs as its own process on its defaults (SQLite with
// synchronous=FULL, or PostgreSQL with fsync on, --log-level info); this process is the load generator (one event-loop
// thread, N keep-alive connections, ceremonies back to back). Server CPU is read from /proc/<server pid>/stat, so the
// generator's own CPU is printed but never counted. Accounts are seeded with `passkey-server import`. The cryptographic
// floor is measured in the same run, and each ceremony's server CPU is printed as a multiple of it. Nothing is
// asserted: the program prints figures.
import Foundation
import NIOCore
import NIOPosix
import PasskeyTestSupport
import PasskeyWire
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

#if DEBUG
print("note: a debug build (and the passkey-server beside it): the figures say nothing; build both with -c release\n")
#endif

// MARK: Arguments

var storages = ["sqlite"]
var accountCounts = [1_000, 1_000_000]
var connections = 32
var seconds = 10.0
var rounds = 3
var postgresURL: String?
var memoryConnections = 256
var ceremonies: [Ceremony] = [.signIn, .usernameless, .registration]
var httpFloor = false
var signInFloor = false
/// The ID token algorithm of the code flow's client.
var idTokenAlgorithm = "RS256"
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--http-floor" {
        httpFloor = true
        continue
    }
    if argument == "--sign-in-floor" {
        signInFloor = true
        continue
    }
    let value = arguments.popFirst() ?? ""
    switch argument {
    case "--storage": storages = value.split(separator: ",").map(String.init)
    case "--accounts": accountCounts = value.split(separator: ",").compactMap { Int($0) }
    case "--connections": connections = Int(value) ?? connections
    case "--seconds": seconds = Double(value) ?? seconds
    case "--rounds": rounds = Int(value) ?? rounds
    case "--postgres": postgresURL = value
    case "--memory-connections": memoryConnections = Int(value) ?? memoryConnections
    case "--ceremonies": ceremonies = value.split(separator: ",").compactMap { Ceremony(rawValue: String($0)) }
    case "--id-token-algorithm": idTokenAlgorithm = value
    default:
        print("""
            usage: passkey-operator-bench [--storage sqlite,postgres] [--accounts 1000,1000000] [--connections 32] [--seconds 10]
                                          [--rounds 3] [--postgres postgres://…]   (default: a cluster of its own, fsync on, shared_buffers 128 MB + 1 KB per account)
                                          [--memory-connections 256]   (a last sign-in phase with that many connections; 0: none)
                                          [--ceremonies sign-in,usernameless,registration]   (also: sign-in-options, two-static-requests, oidc-code-flow)
                                          [--id-token-algorithm RS256]   (the code flow's client: RS256 or ES256)
                                          [--http-floor]   (also two-static-requests against passkey-http-floor: Hummingbird alone)
                                          [--sign-in-floor]   (also sign-in against passkey-sign-in-floor: the guarantees and nothing else)
            """)
        exit(2)
    }
}
guard !accountCounts.isEmpty, !ceremonies.isEmpty, accountCounts.allSatisfy({ $0 >= 1 }), connections >= 1, memoryConnections >= 0, seconds > 0, rounds >= 1,
    storages.allSatisfy({ ["sqlite", "postgres"].contains($0) })
else {
    print("bad arguments")
    exit(2)
}

// MARK: Machine

func firstLine(_ path: String, _ prefix: String) -> String {
    (ServerUnderTest.readProc(path) ?? "").split(separator: "\n").first { $0.hasPrefix(prefix) }.map {
        String($0.split(separator: ":", maxSplits: 1).last ?? "").trimmingCharacters(in: .whitespaces)
    } ?? "?"
}
var system = utsname()
uname(&system)
let kernel = withUnsafeBytes(of: system.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
print("machine: \(firstLine("/proc/cpuinfo", "model name")), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(firstLine("/proc/meminfo", "MemTotal")), Linux \(kernel)")
print("load: \(connections) connections from this process (one event-loop thread), \(Int(seconds)) s per phase, \(rounds) rounds; medians of rounds\n")

// MARK: Floor

let floorBefore = try CryptoFloor.measure()
func micro(_ value: Double) -> String { String(format: "%.0f µs", value * 1e6) }
print("cryptographic floor (this process, thread CPU per operation): P-256 verify \(micro(floorBefore.verify)), ES256 sign \(micro(floorBefore.sign)), 32 random bytes \(String(format: "%.1f µs", floorBefore.random * 1e6)), SHA-256 \(String(format: "%.1f µs", floorBefore.hash * 1e6)), P-256 key from bytes \(micro(floorBefore.keyFromBytes))")
print("  sign-in floor \(micro(floorBefore.signIn)); registration floor \(micro(floorBefore.registration))\n")

// MARK: Phases

struct Phase {
    var operations = 0
    var failures = 0
    var wall = 0.0
    var serverCPU = 0.0
    var serverSystem = 0.0
    /// CPU of the PostgreSQL cluster the bench started (its postmaster and backends); 0 for SQLite or an external one.
    var databaseCPU = 0.0
    var generatorCPU = 0.0
    var p50 = 0.0
    var p99 = 0.0
    var firstFailure: String?
    var perSecond: Double { wall > 0 ? Double(operations) / wall : 0 }
    var cpuPerOperation: Double { serverCPU / Double(max(operations, 1)) }
}

func processCPU() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
/// The data folder of the PostgreSQL cluster the bench started, while it runs (its CPU is read beside the server's).
let clusterDataFolder = Mutex<URL?>(nil)
let key = try TestKey.make(.es256)
let runID = String(UUID().uuidString.prefix(8)).lowercased()

/// Runs `ceremony` from `clients` against `server` for `seconds`.
func phase(_ ceremony: Ceremony, _ server: ServerUnderTest, _ clients: [LoadClient], accounts: Int, seconds: Double, tag: String) async -> Phase {
    let cpu0 = server.cpu()
    let database0 = ServerUnderTest.clusterCPU(dataFolder: clusterDataFolder.withLock { $0 })
    let generator0 = processCPU()
    let start = ContinuousClock.now
    let deadline = start + .milliseconds(Int64(seconds * 1000))
    let results = await withTaskGroup(of: ([UInt64], Int, String?).self) { tasks in
        for (worker, client) in clients.enumerated() {
            tasks.addTask {
                var latencies: [UInt64] = []
                var failures = 0
                var firstFailure: String?
                var counter = 0
                while ContinuousClock.now < deadline {
                    let began = ContinuousClock.now
                    counter += 1
                    do {
                        try await client.run(ceremony, accounts: accounts, name: "reg\(runID)\(tag)w\(worker)n\(counter)")
                        let elapsed = ContinuousClock.now - began
                        latencies.append(UInt64(elapsed.components.seconds) * 1_000_000_000 + UInt64(elapsed.components.attoseconds / 1_000_000_000))
                    } catch {
                        failures += 1
                        if firstFailure == nil { firstFailure = "\(error)" }
                    }
                }
                return (latencies, failures, firstFailure)
            }
        }
        var all: [([UInt64], Int, String?)] = []
        for await result in tasks { all.append(result) }
        return all
    }
    let wall = (ContinuousClock.now - start).seconds
    let cpu1 = server.cpu()
    let database1 = ServerUnderTest.clusterCPU(dataFolder: clusterDataFolder.withLock { $0 })
    var phase = Phase()
    let latencies = results.flatMap(\.0).sorted()
    phase.operations = latencies.count
    phase.failures = results.reduce(0) { $0 + $1.1 }
    phase.firstFailure = results.compactMap(\.2).first
    phase.wall = wall
    phase.serverCPU = (cpu1.user + cpu1.system) - (cpu0.user + cpu0.system)
    phase.serverSystem = cpu1.system - cpu0.system
    phase.databaseCPU = database1 - database0
    phase.generatorCPU = processCPU() - generator0
    func percentile(_ p: Double) -> Double {
        guard !latencies.isEmpty else { return 0 }
        return Double(latencies[max(0, min(latencies.count - 1, Int((p * Double(latencies.count)).rounded(.up)) - 1))]) / 1e6
    }
    phase.p50 = percentile(0.50)
    phase.p99 = percentile(0.99)
    return phase
}

func medianPhase(_ phases: [Phase]) -> Phase {
    var result = phases.sorted { $0.perSecond < $1.perSecond }[phases.count / 2]
    result.p99 = phases.map(\.p99).sorted()[phases.count / 2]
    result.p50 = phases.map(\.p50).sorted()[phases.count / 2]
    return result
}

func row(_ name: String, _ accounts: Int, _ phase: Phase, floor: Double) -> String {
    let failed = phase.failures > 0 ? "  (\(phase.failures) failed: \(phase.firstFailure?.prefix(160) ?? ""))" : ""
    let operations = Double(max(phase.operations, 1))
    let database = phase.databaseCPU > 0 ? String(format: "%.0f µs", phase.databaseCPU / operations * 1e6) : "—"
    return String(
        format: "| %@ | %@ | %.0f | %.0f µs (kernel %.0f) | %.1f× | %.1f | %.1f | %@ | %.0f µs |",
        name, accounts.formatted(), phase.perSecond, phase.cpuPerOperation * 1e6, phase.serverSystem / operations * 1e6,
        phase.cpuPerOperation / floor, phase.p50, phase.p99, database, phase.generatorCPU / operations * 1e6) + failed
}

// MARK: Runs

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-operator-bench-\(runID)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
let seeding = Seeding(key: key)

do {
for storage in storages {
    var cluster: TestPostgresCluster?
    if storage == "postgres", postgresURL == nil {
        // Sized as docs/deploy.md advises, so that the tables stay in PostgreSQL's own cache: about 1 KB per passkey
        // over the default 128 MB.
        let megabytes = 128 + accountCounts.reduce(0, +) / 1_000
        cluster = try TestPostgresCluster(fsync: true, settings: ["shared_buffers=\(megabytes)MB"])
        print("postgres: a cluster of its own, fsync on, shared_buffers \(megabytes) MB")
    }
    clusterDataFolder.withLock { $0 = cluster?.folder.appendingPathComponent("data") }
    defer {
        clusterDataFolder.withLock { $0 = nil }
        cluster?.destroy()
    }
    var servers: [(accounts: Int, server: ServerUnderTest, clients: [LoadClient])] = []
    let ports = try LocalPorts.free(accountCounts.count)
    // Every database is seeded before any server starts: a server waiting through a long import closes its idle
    // keep-alive connections (--idle-timeout).
    var databases: [(count: Int, database: String, seconds: Double)] = []
    for count in accountCounts {
        let database: String
        if storage == "sqlite" {
            database = "sqlite:" + folder.appendingPathComponent("sqlite-\(count)/passkey.sqlite").path
        } else {
            database = TestPostgres.withSchema(postgresURL ?? cluster?.url ?? "", "pkbench_\(count)_\(runID)")
        }
        databases.append((count, database, try seeding.seed(count, database: database, folder: folder)))
    }
    if let cluster {
        let began = ContinuousClock.now
        try cluster.settle()
        print(String(format: "postgres: vacuumed, analysed and checkpointed after the import in %.1f s", (ContinuousClock.now - began).seconds))
    }
    for (index, (count, database, seedSeconds)) in databases.enumerated() {
        // The code flow needs the server to be an OpenID Provider (on its own origin) and a client to sign in to.
        let openID = ceremonies.contains(.openIDCodeFlow)
        let openIDClient = openID ? try ServerUnderTest.addOpenIDClient(database: database, algorithm: idTokenAlgorithm) : nil
        let server = try await ServerUnderTest(
            database: database, port: ports[index], folder: folder, extra: openID ? ["--oidc-issuer", "http://localhost:\(ports[index])"] : [])
        try await Task.sleep(for: .seconds(2))
        let idle = server.memory()
        print(String(format: "%@, %@ accounts: imported in %.1f s; server idle %.0f MB resident", storage, count.formatted(), seedSeconds, idle.resident))
        let clients = try (0..<connections).map { try LoadClient(port: server.port, group: group, key: key, seed: UInt64($0 + 1)) }
        for client in clients { client.openIDClient = openIDClient }
        servers.append((count, server, clients))
    }
    // Warm-up: page caches, the signing key, the connections.
    for entry in servers { _ = await phase(.signIn, entry.server, entry.clients, accounts: entry.accounts, seconds: 3, tag: "warm") }
    var results: [String: [Phase]] = [:]
    for round in 0..<rounds {
        let order = round.isMultiple(of: 2) ? servers : servers.reversed()
        for entry in order {
            for ceremony in [Ceremony.signIn, .openIDCodeFlow, .usernameless, .signInOptions, .twoStaticRequests] where ceremonies.contains(ceremony) {
                results["\(ceremony.rawValue) \(entry.accounts)", default: []].append(
                    await phase(ceremony, entry.server, entry.clients, accounts: entry.accounts, seconds: seconds, tag: "r\(round)"))
            }
        }
    }
    // Registrations last, on the smallest account count, so the sign-in runs' counts never change.
    if let first = servers.first, ceremonies.contains(.registration) {
        for round in 0..<rounds {
            results["registration \(first.accounts)", default: []].append(
                await phase(.registration, first.server, first.clients, accounts: first.accounts, seconds: seconds, tag: "g\(round)"))
        }
    }
    print("\n\(storage == "sqlite" ? "SQLite (synchronous=FULL)" : "PostgreSQL (fsync on)"), --log-level info:\n")
    print("| ceremony | accounts | per second | server CPU per ceremony | × floor | p50 ms | p99 ms | PostgreSQL CPU | load generator CPU |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for ceremony in Ceremony.allCases {
        for entry in servers {
            guard let phases = results["\(ceremony.rawValue) \(entry.accounts)"] else { continue }
            print(row(ceremony.rawValue, entry.accounts, medianPhase(phases), floor: ceremony == .registration ? floorBefore.registration : floorBefore.signIn))
        }
    }
    if servers.count >= 2, let small = results["sign-in \(servers[0].accounts)"].map(medianPhase),
        let large = results["sign-in \(servers[servers.count - 1].accounts)"].map(medianPhase)
    {
        print(String(
            format: "\nsign-in, %@ vs %@ accounts: throughput %+.1f %%, p99 %+.1f %% (target: within 10 %%)", servers[servers.count - 1].accounts.formatted(),
            servers[0].accounts.formatted(), (large.perSecond / small.perSecond - 1) * 100, (large.p99 / small.p99 - 1) * 100))
    }
    // Memory under many connections: one more sign-in phase on the smallest account count, from
    // --memory-connections keep-alive connections at once.
    if memoryConnections > 0, let first = servers.first {
        let many = try (0..<memoryConnections).map { try LoadClient(port: first.server.port, group: group, key: key, seed: UInt64(10_000 + $0)) }
        let crowd = await phase(.signIn, first.server, many, accounts: first.accounts, seconds: seconds, tag: "m")
        let memory = first.server.memory()
        print(row("sign-in, \(memoryConnections) connections", first.accounts, crowd, floor: floorBefore.signIn))
        print(String(format: "server with %d connections open: %.0f MB resident, %.0f MB at its peak", memoryConnections, memory.resident, memory.peak))
        for client in many { await client.close() }
    }
    for entry in servers {
        let memory = entry.server.memory()
        print(String(format: "server with %@ accounts: %.0f MB resident now, %.0f MB at its peak", entry.accounts.formatted(), memory.resident, memory.peak))
        for client in entry.clients { await client.close() }
        entry.server.stop()
    }
    print("")
}
if httpFloor {
    // The minimal reproduction of the HTTP edge's cost: the same two requests against Hummingbird with one route and
    // nothing else, as its own process, CPU read the same way.
    let port = try LocalPorts.free(1)[0]
    let floorServer = try await ServerUnderTest.httpFloor(port: port, folder: folder)
    let clients = try (0..<connections).map { try LoadClient(port: port, group: group, key: key, seed: UInt64($0 + 1)) }
    _ = await phase(.twoStaticRequests, floorServer, clients, accounts: 1, seconds: 3, tag: "warm")
    var phases: [Phase] = []
    for round in 0..<rounds { phases.append(await phase(.twoStaticRequests, floorServer, clients, accounts: 1, seconds: seconds, tag: "f\(round)")) }
    print("Hummingbird alone (passkey-http-floor: one route, no middleware, no log):\n")
    print(row("two-static-requests", 0, medianPhase(phases), floor: floorBefore.signIn))
    let memory = floorServer.memory()
    print(String(format: "passkey-http-floor: %.0f MB resident, %.0f MB at its peak\n", memory.resident, memory.peak))
    for client in clients { await client.close() }
    floorServer.stop()
}
if signInFloor, case .p256(let privateKey) = key {
    // The minimal reproduction of a whole sign-in: the same ceremony against a server that does only what the
    // guarantees require (its own SQLite database with synchronous=FULL, the first --accounts count of accounts).
    let port = try LocalPorts.free(1)[0]
    let accounts = accountCounts[0]
    let floorServer = try await ServerUnderTest.signInFloor(
        port: port, folder: folder, accounts: accounts, publicKey: Base64URL.encode(Array(privateKey.publicKey.x963Representation)))
    let clients = try (0..<connections).map { try LoadClient(port: port, group: group, key: key, seed: UInt64($0 + 1)) }
    _ = await phase(.signIn, floorServer, clients, accounts: accounts, seconds: 3, tag: "warm")
    var phases: [Phase] = []
    for round in 0..<rounds { phases.append(await phase(.signIn, floorServer, clients, accounts: accounts, seconds: seconds, tag: "s\(round)")) }
    print("A sign-in with the guarantees and nothing else (passkey-sign-in-floor: Hummingbird, swift-crypto, Codable, SQLite synchronous=FULL):\n")
    print(row("sign-in", accounts, medianPhase(phases), floor: floorBefore.signIn))
    let memory = floorServer.memory()
    print(String(format: "passkey-sign-in-floor: %.0f MB resident, %.0f MB at its peak\n", memory.resident, memory.peak))
    for client in clients { await client.close() }
    floorServer.stop()
}
} catch {
    print("passkey-operator-bench: \(error)")
    exit(1)
}

let floorAfter = try CryptoFloor.measure()
print("cryptographic floor again after the runs: sign-in \(micro(floorAfter.signIn)), registration \(micro(floorAfter.registration)) (before: \(micro(floorBefore.signIn)), \(micro(floorBefore.registration)))")
try? await group.shutdownGracefully()
try? FileManager.default.removeItem(at: folder)
