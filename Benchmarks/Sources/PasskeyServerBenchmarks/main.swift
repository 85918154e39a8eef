// passkey-server-bench: sign-in verifications per second through HTTP, with SQLite, next to a bare endpoint doing the
// same verification without storage, in one run (figures in docs/benchmarks.md; never asserted by tests).
//
//   swift build -c release --product passkey-server-bench && .build/release/passkey-server-bench [--requests N] [--connections C] [--rounds R]
//
// Both paths run in one server process over the same HTTP stack and are driven by the same client: C keep-alive
// connections sending requests back to back. The SQLite path is the real POST /verify-authentication: the challenge
// is read, the signature verified, and the challenge consumed with the counter update in one (group-committed,
// synchronous=FULL) transaction. The bare path parses and verifies the same kind of request against a record held in
// memory, with no challenge bookkeeping and no storage.
import Foundation
import Hummingbird
import Logging
import HummingbirdTesting
import NIOCore
import PasskeyCore
import PasskeyRelyingParty
import PasskeyServer
import PasskeyStorage
import PasskeyStoragePostgres
import PasskeyStorageSQLite
import PasskeyTestSupport
import PasskeyWire

var requests = 3000
var connections = 32
var rounds = 3
/// Requests per slice: within a round the two paths alternate slice by slice.
var slice = 500
/// `--only sqlite` or `--only bare` runs one path, for profiling it alone (`perf record`).
var only: String?
/// `--storage memory` serves the real routes from the in-memory repository instead of SQLite: the same server code
/// without a database, to tell the database's cost from the rest of the stored path. `--storage postgres` starts a
/// throw-away PostgreSQL cluster of its own (as the tests do) and serves the routes from it; `--storage postgres://…`
/// uses that server instead, in a new schema named `passkey_test_…` that it leaves behind.
var storage = "sqlite"
var iterator = CommandLine.arguments.dropFirst().makeIterator()
while let argument = iterator.next() {
    switch argument {
    case "--requests": requests = iterator.next().flatMap(Int.init) ?? requests
    case "--connections": connections = iterator.next().flatMap(Int.init) ?? connections
    case "--rounds": rounds = iterator.next().flatMap(Int.init) ?? rounds
    case "--slice": slice = max(1, iterator.next().flatMap(Int.init) ?? slice)
    case "--only": only = iterator.next()
    case "--storage": storage = iterator.next() ?? storage
    default:
        print(
            "usage: passkey-server-bench [--requests N] [--connections C] [--rounds R] [--slice S] [--only sqlite|bare|parts]"
                + " [--storage sqlite|memory|postgres|postgres://URL]")
        exit(2)
    }
}

/// The port the server bound, once it runs.
final class PortBox: @unchecked Sendable {
    // Guarded by `lock`: set by the server's channel callback, read by the driver.
    private let lock = NSLock()
    private var value: Int?
    func set(_ port: Int?) { lock.withLock { value = port } }
    func get() -> Int? { lock.withLock { value } }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
}

func json(_ response: TestClient.Response) throws -> JSONObject {
    let bytes = Array(response.body?.readableBytesView ?? ByteBuffer().readableBytesView)
    guard let object = try JSONValue.parse(bytes).objectValue else { throw BenchError(description: "not a JSON object") }
    return object
}

func request(_ client: TestClient, _ method: HTTPRequest.Method, _ uri: String, _ body: JSONValue? = nil) async throws -> TestClient.Response {
    try await client.execute(
        TestClient.Request(
            uri, method: method, authority: "localhost", headers: body == nil ? [:] : [.contentType: "application/json"],
            body: body.map { ByteBuffer(bytes: $0.serializedBytes) }))
}

// MARK: - Server

var configuration = ServerConfiguration()
configuration.port = 0
configuration.origins = ["http://localhost:8080"]  // the origin the benchmark's client data claims
configuration.optionsPerMinute = 10_000_000
configuration.maximumPendingChallenges = 10_000_000
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-server-bench-\(UUID().uuidString)")
let repository = try SQLiteRepository(path: folder.appendingPathComponent("bench.sqlite").path)
/// What the stored path runs on, as the figures name it.
let storedName: String
/// The PostgreSQL pool and the bench's own cluster, shut down at the end.
var postgres: PostgresRepository?
var cluster: TestPostgresCluster?
let router: Router<PasskeyRequestContext>
switch storage {
case "sqlite":
    storedName = "SQLite"
    router = buildRouter(configuration, repository: repository)
case "memory":
    storedName = "memory"
    router = buildRouter(configuration, repository: InMemoryRepository())
case _ where storage == "postgres" || storage.hasPrefix("postgres://") || storage.hasPrefix("postgresql://"):
    let url: String
    if storage == "postgres" {
        let own = try TestPostgresCluster()
        cluster = own
        url = own.url
    } else {
        url = TestPostgres.withSchema(storage, TestPostgres.uniqueSchema())
    }
    let connected = try await PostgresRepository.connect(try PostgresConfiguration(url: url))
    postgres = connected
    storedName = "PostgreSQL"
    router = buildRouter(configuration, repository: connected)
default:
    print("--storage takes sqlite, memory, postgres (a throw-away cluster) or a postgres:// URL")
    exit(2)
}
if only == "parts", storage != "sqlite" {
    print("--only parts measures the SQLite repository's pieces; run it without --storage")
    exit(2)
}

// The bare endpoint: same parsing and verification, a record in memory, a fixed challenge, no storage; it signs the same
// signedPasskeyData as the real answer (a key held in memory), so the two paths differ by storage alone.
let authenticator = try TestAuthenticator()
let bareChallenge = Base64URL.encode([UInt8](repeating: 9, count: 32))
let relyingParty = RelyingParty(id: "localhost", origins: ["http://localhost:8080"])
let bareRecord = CredentialRecord(id: authenticator.credentialID, publicKey: authenticator.key.coseKey.encoded, signCount: 0)
let bareIssuer = TokenIssuer(repository: InMemoryRepository(), issuer: "http://localhost:8080", audience: "localhost", lifetime: 300)
router.post("bench/bare-verify") { request, _ in
    var request = request
    let buffer = try await request.collectBody(upTo: 65_536)
    let body = try JSONValue.parse(Array(buffer.readableBytesView))
    guard let cred = body.objectValue?["cred"] else { throw HTTPError(.badRequest) }
    let response = try AuthenticationResponseJSON(json: cred)
    let verified = try relyingParty.verifyAuthentication(
        response, expectedChallenge: bareChallenge, credential: bareRecord, expectedUser: .identified(userHandle: nil))
    let signed = try await bareIssuer.sign(
        SignedPasskeySubject(
            userID: "bench", username: "bench", externalUserID: nil, credentialID: verified.credentialID, ceremony: .authentication,
            userVerified: verified.userVerified))
    let answer: JSONValue = [
        "verified": true, "credentialId": .string(Base64URL.encode(verified.credentialID)), "isAnonymous": false,
        "signedPasskeyData": .string(signed.token),
    ]
    return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: answer.serializedBytes)))
}

let port = PortBox()
// Request logs at warning level: one line per request to a terminal would measure the terminal, on both paths alike.
var logger = Logger(label: "passkey-server-bench")
logger.logLevel = .warning
let app = Application(
    router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: "bench"),
    onServerRunning: { channel in port.set(channel.localAddress?.port) }, logger: logger)
let serverTask = Task { try await app.runService() }
var waited = 0
while port.get() == nil, waited < 200 {
    try await Task.sleep(for: .milliseconds(25))
    waited += 1
}
guard let serverPort = port.get() else { throw BenchError(description: "the server did not start") }

// MARK: - Clients

let clients = (0..<connections).map { _ in TestClient(host: "127.0.0.1", port: serverPort) }
for client in clients { client.connect() }
let setup = clients[0]

// One registered passkey that behaves like a synced one (counter always 0), so concurrent sign-ins never conflict.
let options = try json(try await request(setup, .get, "/generate-registration-options?username=bench"))
let device: TestAuthenticator = {
    var device = authenticator
    device.userHandle = options["user"]?.objectValue?["id"]?.stringValue.flatMap(Base64URL.decode) ?? []
    return device
}()
let creationClientData = TestAuthenticator.clientData(
    type: "webauthn.create", challenge: options["challenge"]?.stringValue ?? "", origin: "http://localhost:8080")
let registrationAuthData = device.authData(for: "create") { $0.rpID = "localhost" }.build()
let registration = try await request(
    setup, .post, "/verify-registration",
    ["challengeKey": options["challengeKey"] ?? nil, "cred": device.registration(authData: registrationAuthData, clientData: creationClientData).json])
guard registration.status == .ok else { throw BenchError(description: "registration failed: \(String(buffer: registration.body ?? ByteBuffer()))") }

let signInAuthData = device.authData(for: "get") { $0.rpID = "localhost" }.build()
func signedBody(challenge: String, key: JSONValue?, device: TestAuthenticator, authData signInAuthData: [UInt8]) throws -> JSONValue {
    let clientData = TestAuthenticator.clientData(type: "webauthn.get", challenge: challenge, origin: "http://localhost:8080")
    return ["challengeKey": key ?? nil, "cred": try device.assertion(authData: signInAuthData, clientData: clientData).json]
}
/// `count` bare sign-ins, each with a signature of its own (ECDSA signatures are randomized): the stored path verifies a
/// fresh signature per request, and so does the bare one (verifying one signature over and over ran a little faster, the
/// same inverse and the same bytes each time).
func bareSignIns(_ count: Int) throws -> [JSONValue] {
    try (0..<count).map { _ in try signedBody(challenge: bareChallenge, key: nil, device: device, authData: signInAuthData) }
}

/// Sends `bodies` to `path` over every connection, back to back.
func drive(_ path: String, _ bodies: [JSONValue]) async throws -> Phase {
    let clients = clients
    let clock = ContinuousClock()
    let cpuStart = processCPUSeconds()
    let switchesStart = processContextSwitches()
    let start = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for (index, client) in clients.enumerated() {
            let mine = stride(from: index, to: bodies.count, by: clients.count).map { bodies[$0] }
            group.addTask {
                for body in mine {
                    let response = try await request(client, .post, path, body)
                    guard response.status == .ok else {
                        throw BenchError(description: "\(path) answered \(response.status.code): \(String(buffer: response.body ?? ByteBuffer()))")
                    }
                }
            }
        }
        try await group.waitForAll()
    }
    let elapsed = clock.now - start
    let cpuEnd = processCPUSeconds()
    let switchesEnd = processContextSwitches()
    if ProcessInfo.processInfo.environment["PASSKEY_BENCH_MARKS"] != nil {
        // CLOCK_MONOTONIC bounds of the phase, for `perf record -k CLOCK_MONOTONIC` and `perf report --time A,B`.
        let end = monotonicSeconds()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        FileHandle.standardError.write(Data("phase \(path): --time \(String(format: "%.6f,%.6f", end - seconds, end))\n".utf8))
    }
    return Phase(
        rate: Double(bodies.count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18),
        cpuMicroseconds: (cpuEnd.total - cpuStart.total) * 1e6 / Double(bodies.count),
        systemMicroseconds: (cpuEnd.system - cpuStart.system) * 1e6 / Double(bodies.count),
        switches: (
            Double(switchesEnd.voluntary - switchesStart.voluntary) / Double(bodies.count),
            Double(switchesEnd.involuntary - switchesStart.involuntary) / Double(bodies.count)))
}

/// Fresh sign-in requests for the SQLite path: options from the server (stored challenges), then signed.
func freshSignIns(_ count: Int) async throws -> [JSONValue] {
    let device = device
    let signInAuthData = signInAuthData
    let clients = clients
    return try await withThrowingTaskGroup(of: [JSONValue].self) { group in
        for (index, client) in clients.enumerated() {
            let share = count / clients.count + (index < count % clients.count ? 1 : 0)
            group.addTask {
                var bodies: [JSONValue] = []
                for _ in 0..<share {
                    let options = try json(try await request(client, .get, "/generate-authentication-options"))
                    bodies.append(try signedBody(challenge: options["challenge"]?.stringValue ?? "", key: options["challengeKey"], device: device, authData: signInAuthData))
                }
                return bodies
            }
        }
        return try await group.reduce(into: [JSONValue]()) { $0 += $1 }
    }
}

// `--only parts`: what the storage path's pieces cost one by one, in process CPU per operation.
if only == "parts" {
    func measure(_ name: String, _ count: Int, _ body: () async throws -> Void) async rethrows {
        let start = processCPUSeconds()
        try await body()
        let each = (processCPUSeconds().total - start.total) * 1e6 / Double(count)
        print("\(name.padding(toLength: 58, withPad: " ", startingAt: 0)) \(String(format: "%7.1f", each)) µs CPU each")
    }
    let n = requests
    let lanes = connections
    let credentialID = authenticator.credentialID
    guard let stored = try await repository.credential(id: credentialID) else { throw BenchError(description: "the bench passkey is missing") }
    let challenges = (0..<n).map { index in
        ChallengeRecord(
            key: "parts-\(index)", challenge: "parts-challenge-\(index)", ceremony: .authentication, createdAt: Date(),
            expiresAt: Date().addingTimeInterval(600))
    }
    try await measure("SQLite: save a challenge (\(connections) concurrent)", n) {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<lanes {
                group.addTask { for record in challenges[lane...].striding(by: lanes) { try await repository.saveChallenge(record) } }
            }
            try await group.waitForAll()
        }
    }
    try await measure("SQLite: sign-in lookup (challenge, credential, owner)", n) {
        for record in challenges { _ = try await repository.lookUpSignIn(challenge: .key(record.key), credentialID: credentialID, now: Date()) }
    }
    try await measure("SQLite: sign-in lookup (\(connections) concurrent)", n) {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    for record in challenges[lane...].striding(by: lanes) {
                        _ = try await repository.lookUpSignIn(challenge: .key(record.key), credentialID: credentialID, now: Date())
                    }
                }
            }
            try await group.waitForAll()
        }
    }
    try await measure("SQLite: record sign-in consuming the challenge (\(connections) concurrent)", n) {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    for record in challenges[lane...].striding(by: lanes) {
                        try await repository.recordSignIn(
                            credentialID: credentialID, expectedSignCount: stored.signCount, newSignCount: stored.signCount, backupState: false,
                            at: Date(), spending: .stored(key: record.key))
                    }
                }
            }
            try await group.waitForAll()
        }
    }
    // The sign-in route's storage work as it runs: lookup, decision and write in one writer job (the decision here
    // checks no signature, so this is the storage's share alone).
    let more = challenges.map { record in
        var copy = record
        copy.key = "whole-" + record.key
        copy.challenge = "whole-" + record.challenge
        return copy
    }
    for record in more { try await repository.saveChallenge(record) }
    try await measure("SQLite: whole sign-in in the writer (\(connections) concurrent)", n) {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    for record in more[lane...].striding(by: lanes) {
                        let accepted = try await repository.completeSignIn(challenge: .key(record.key), credentialID: credentialID, now: Date()) { lookup in
                            guard let stored = lookup.credential, lookup.challenge != nil else { return (SignInWrite.burn, false) }
                            return (SignInWrite.record(expectedSignCount: stored.signCount, newSignCount: stored.signCount, backupState: false, at: Date()), true)
                        }
                        guard accepted else { throw BenchError(description: "a whole sign-in found no challenge or passkey") }
                    }
                }
            }
            try await group.waitForAll()
        }
    }
    let issuer = TokenIssuer(repository: InMemoryRepository(), issuer: "http://localhost:8080", audience: "localhost", lifetime: 300)
    try await measure("signedPasskeyData: sign (ES256, jwt-kit)", n) {
        for _ in 0..<n {
            _ = try await issuer.sign(
                SignedPasskeySubject(
                    userID: "u", username: "bench", externalUserID: nil, credentialID: credentialID, ceremony: .authentication, userVerified: true))
        }
    }
    let metrics = CeremonyMetrics()
    await measure("metrics: record one ceremony (counter and histogram)", n) {
        for _ in 0..<n { metrics.record(ceremony: "authentication", step: "verify", code: nil, duration: .microseconds(500)) }
    }
    exit(0)
}

// Warm-up.
_ = try await drive("/bench/bare-verify", try bareSignIns(min(500, requests)))
_ = try await drive("/verify-authentication", try await freshSignIns(min(500, requests)))

print("passkey-server-bench: \(requests) sign-ins per path per round, \(connections) connections, \(rounds) rounds (\(storedName == "SQLite" ? "SQLite, synchronous=FULL" : storedName))")
var bare: [Phase] = []
var stored: [Phase] = []
for round in 1...rounds {
    // The two paths alternate in slices, so that drift on a shared machine (frequency, neighbours) hits both alike.
    let bodies = only == "bare" ? [] : try await freshSignIns(requests)
    let bareBodies = only == "sqlite" ? [] : try bareSignIns(requests)
    var storedTotal = Totals()
    var bareTotal = Totals()
    for start in stride(from: 0, to: requests, by: slice) {
        let count = min(slice, requests - start)
        if only != "bare" { storedTotal.add(try await drive("/verify-authentication", Array(bodies[start..<(start + count)])), count) }
        if only != "sqlite" { bareTotal.add(try await drive("/bench/bare-verify", Array(bareBodies[start..<(start + count)])), count) }
    }
    let storedPhase = storedTotal.phase
    let barePhase = bareTotal.phase
    stored.append(storedPhase)
    bare.append(barePhase)
    switch only {
    case "sqlite": print("  round \(round): \(storedName) \(Int(storedPhase.rate))/s, \(storedPhase.cpuText) per sign-in, \(storedPhase.switchesText)")
    case "bare": print("  round \(round): bare \(Int(barePhase.rate))/s, \(barePhase.cpuText) per sign-in, \(barePhase.switchesText)")
    default:
        print(
            "  round \(round): bare \(Int(barePhase.rate))/s, \(storedName) \(Int(storedPhase.rate))/s (\(String(format: "%.3f", storedPhase.rate / barePhase.rate))×);"
                + " per sign-in bare \(barePhase.cpuText), \(storedName) \(storedPhase.cpuText);"
                + " context switches bare \(barePhase.switchesText), \(storedName) \(storedPhase.switchesText)")
    }
}
extension ArraySlice {
    /// Every `step`-th element from the start.
    func striding(by step: Int) -> [Element] { stride(from: startIndex, to: endIndex, by: step).map { self[$0] } }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
print("")
if only != "sqlite" {
    print("bare verification over HTTP (no storage)          \(Int(median(bare.map(\.rate)))) sign-ins/s, \(Int(median(bare.map(\.cpuMicroseconds)))) µs CPU each (\(Int(median(bare.map(\.systemMicroseconds)))) in the kernel)")
}
if only != "bare" {
    print("POST /verify-authentication with \(storedName.padding(toLength: 18, withPad: " ", startingAt: 0))\(Int(median(stored.map(\.rate)))) sign-ins/s, \(Int(median(stored.map(\.cpuMicroseconds)))) µs CPU each (\(Int(median(stored.map(\.systemMicroseconds)))) in the kernel)")
}
if only == nil {
    print("ratio (median of rounds)                          \(String(format: "%.3f", median(zip(stored, bare).map { $0.rate / $1.rate })))×")
    print("CPU ratio, bare / \(storedName) (median of rounds)\(String(repeating: " ", count: max(1, 13 - storedName.count)))\(String(format: "%.3f", median(zip(bare, stored).map { $0.cpuMicroseconds / $1.cpuMicroseconds })))×")
}

for client in clients { try? await client.shutdown() }
serverTask.cancel()
await postgres?.shutdown()
cluster?.destroy()
try? FileManager.default.removeItem(at: folder)
exit(0)
