import Foundation
import HTTPTypes
import PasskeyServer
import PasskeyStoragePostgres
import PasskeyTestSupport
import PasskeyWire
import Testing

/// Two `passkey-server` processes on different ports sharing one PostgreSQL database, as behind a load balancer: every
/// ceremony can start on one and finish on the other, and a challenge is used once across both.
@Suite("Several instances on one PostgreSQL", .enabled(if: TestPostgres.enabled, "PASSKEY_TEST_POSTGRES_URL is not set"))
struct MultiInstanceTests {
    @Test("options on one instance, verification on the other; one challenge posted to both at once succeeds once", .timeLimit(.minutes(3)))
    func crossInstanceCeremonies() async throws {
        let url = try #require(TestPostgres.freshURL(), Comment(rawValue: TestPostgres.missingMessage))
        let ports = try LocalPorts.free(2)
        // Both start (and migrate) at the same time: the advisory lock lets one migrate and the other wait.
        async let startA = ServerProcess.start(database: url, port: ports[0], extraArguments: ["--options-per-minute", "10000"])
        async let startB = ServerProcess.start(database: url, port: ports[1], extraArguments: ["--options-per-minute", "10000"])
        let (serverA, serverB) = try await (startA, startB)
        defer {
            serverA.stop()
            serverB.stop()
        }
        let a = ProcessClient(port: serverA.port)
        let b = ProcessClient(port: serverB.port)

        // Registration options from A, verification on B.
        var ann = try CeremonyDriver(credentialID: Array("ann-passkey".utf8) + [UInt8](repeating: 1, count: 8))
        let registration = try await ann.registrationBody(from: a, username: "ann").get()
        let registered = await b.call(.post, "/verify-registration", json: registration)
        #expect(registered.status == 200, "\(registered.json.serialized())")
        #expect(registered["verified"] == true && registered["username"] == "ann")
        let annID = registered["userId"]?.stringValue

        // The account is visible from both: A refuses the same username.
        #expect(await a.call(.get, "/generate-registration-options?username=ann")["error"] == "username_taken")

        // Sign-in options from B, verification on A.
        let signIn = try await ann.authenticationBody(from: b, username: "ann", signCount: 1).get()
        let signedIn = await a.call(.post, "/verify-authentication", json: signIn)
        #expect(signedIn.status == 200, "\(signedIn.json.serialized())")
        #expect(signedIn["userId"]?.stringValue == annID)

        // Signing keys live in the database: both instances publish the same JWKS, and a token signed by A verifies
        // once across both (its jti is recorded in the shared database).
        let jwksA = await a.call(.get, "/.well-known/jwks.json")
        let jwksB = await b.call(.get, "/.well-known/jwks.json")
        #expect(jwksA["keys"]?.arrayValue?.count == 1)
        #expect(jwksA.json == jwksB.json)
        let storage = try await PostgresRepository.connect(try PostgresConfiguration(url: url))
        let apiKey = try await Administration.createAPIKey(name: "backend", repository: storage).secret
        await storage.shutdown()
        let backend: HTTPFields = [.authorization: "Bearer \(apiKey)"]
        let token = signedIn["signedPasskeyData"] ?? nil
        let verified = await b.call(.post, "/connect/verify", json: ["signedPasskeyData": token], headers: backend)
        #expect(verified["success"] == true, "\(verified.json.serialized())")
        #expect(verified["userId"]?.stringValue == annID)
        #expect(await a.call(.post, "/connect/verify", json: ["signedPasskeyData": token], headers: backend)["error"] == "token_replayed")

        // One sign-in answer posted to both instances at once, five times: exactly one success each time.
        for round in 0..<5 {
            let body = try await ann.authenticationBody(from: round.isMultiple(of: 2) ? a : b, username: nil, signCount: UInt32(2 + round)).get()
            let answers = await Self.postToBoth("/verify-authentication", body, a, b)
            #expect(answers.filter { $0.status == 200 }.count == 1, "round \(round): \(answers.map(\.status))")
            #expect(answers.filter { $0.status != 200 }.allSatisfy { $0["error"] == "challenge_invalid" }, "round \(round): \(answers.map { $0.json.serialized() })")
        }

        // The same for registrations: one answer to both, one account.
        for round in 0..<5 {
            var device = try CeremonyDriver(credentialID: Array("race-\(round)".utf8) + [UInt8](repeating: 2, count: 12))
            let body = try await device.registrationBody(from: round.isMultiple(of: 2) ? b : a, username: "racer\(round)").get()
            let answers = await Self.postToBoth("/verify-registration", body, a, b)
            #expect(answers.filter { $0.status == 200 }.count == 1, "round \(round): \(answers.map(\.status))")
            #expect(answers.filter { $0.status != 200 }.allSatisfy { $0["error"] == "challenge_invalid" }, "round \(round): \(answers.map { $0.json.serialized() })")
        }
        await a.close()
        await b.close()
    }

    /// Posts `body` to `path` on both instances concurrently, from fresh connections.
    static func postToBoth(_ path: String, _ body: JSONValue, _ a: ProcessClient, _ b: ProcessClient) async -> [HTTPAnswer] {
        async let first = a.call(.post, path, json: body)
        async let second = b.call(.post, path, json: body)
        return await [first, second]
    }
}
