import Foundation
import HummingbirdTesting
import NIOCore
import PasskeyTestSupport
import PasskeyWire
import Testing

/// `passkey-server export` and `import` between real server processes: a passkey registered on one database signs in
/// from the other, as the same account, with its counter, and tokens keep their signing key.
@Suite("Moving a deployment to another database", .serialized)
struct MoveDatabaseTests {
    func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await onOwnThread { try runProgram(ServerProcess.executable, arguments) }
    }

    /// One request to a server process: its status and JSON body.
    func call(_ port: Int, _ path: String, body: JSONValue? = nil) async throws -> HTTPAnswer {
        let client = TestClient(host: "127.0.0.1", port: port)
        client.connect()
        defer { Task { try? await client.shutdown() } }
        let request =
            body.map {
                TestClient.Request(
                    path, method: .post, authority: "localhost", headers: [.contentType: "application/json"], body: ByteBuffer(bytes: $0.serializedBytes))
            } ?? TestClient.Request(path, method: .get, authority: "localhost")
        let response = try await client.execute(request)
        let json = try response.body.map { try JSONValue.parse(Array($0.readableBytesView)) } ?? .null
        return HTTPAnswer(status: Int(response.status.code), json: json)
    }

    func register(_ device: inout TestAuthenticator, username: String, port: Int) async throws -> HTTPAnswer {
        let options = try await call(port, "/generate-registration-options?username=\(username)")
        let challenge = try #require(options["challenge"]?.stringValue)
        device.userHandle = try #require(options["user"]?.objectValue?["id"]?.stringValue.flatMap(Base64URL.decode))
        let clientData = TestAuthenticator.clientData(type: "webauthn.create", challenge: challenge)
        return try await call(
            port, "/verify-registration",
            body: ["username": .string(username), "challengeKey": options["challengeKey"] ?? .null, "cred": device.registration(clientData: clientData).json])
    }

    /// A usernameless sign-in with the authenticator's counter at `signCount`.
    func signIn(_ device: TestAuthenticator, signCount: UInt32, port: Int) async throws -> HTTPAnswer {
        try await call(port, "/verify-authentication", body: try await signInBody(device, signCount: signCount, port: port))
    }

    /// The body of a usernameless sign-in's verification, answering options from the server at `port`.
    func signInBody(_ device: TestAuthenticator, signCount: UInt32, port: Int) async throws -> JSONValue {
        let options = try await call(port, "/generate-authentication-options")
        let challenge = try #require(options["challenge"]?.stringValue)
        let clientData = TestAuthenticator.clientData(type: "webauthn.get", challenge: challenge)
        let assertion = try device.assertion(authData: device.authData(for: "get") { $0.signCount = signCount }.build(), clientData: clientData)
        return ["cred": assertion.json, "challengeKey": options["challengeKey"] ?? .null]
    }

    func keyIDs(_ port: Int) async throws -> [String] {
        try await call(port, "/.well-known/jwks.json")["keys"]?.arrayValue?.compactMap { $0.objectValue?["kid"]?.stringValue } ?? []
    }

    @Test("SQLite to SQLite or PostgreSQL: the passkey signs in as the same account, its counter moved along, the JWKS kept its key", arguments: DurableStore.available)
    func move(target: DurableStore) async throws {
        let source = try DurableStore.sqlite.makeDatabase()
        let destination = try target.makeDatabase()
        var device = try TestAuthenticator()
        let old = try await ServerProcess.start(database: source, port: try LocalPorts.free())
        let registered: HTTPAnswer
        let keys: [String]
        let fakeIDs: JSONValue?
        let usedOnTheOldServer: JSONValue
        do {
            registered = try await register(&device, username: "ann", port: old.port)
            #expect(registered.status == 200, "\(registered.json)")
            usedOnTheOldServer = try await signInBody(device, signCount: 5, port: old.port)
            let first = try await call(old.port, "/verify-authentication", body: usedOnTheOldServer)
            #expect(first.status == 200 && first["username"] == "ann", "\(first.json)")
            keys = try await keyIDs(old.port)
            fakeIDs = try await call(old.port, "/generate-authentication-options?username=nobody")["allowCredentials"]
            #expect(fakeIDs?.arrayValue?.isEmpty == false)
        } catch {
            old.stop()
            throw error
        }
        old.stop()

        let file = temporaryPath("passkey-move", extension: "jsonl").path
        let exported = try await run(["export", "--include-secrets", "--output", file, "--database", source, "--rp-id", "example.com"])
        #expect(exported.status == 0, "\(exported.output)")
        // Two secrets on the old server; the one that seals ceremonies in progress stays there.
        #expect(exported.output.contains("exported 1 account, 1 passkey, 1 signing key, 1 secret to \(file)"), "\(exported.output)")
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600, "the file holds a private key")
        let again = try await run(["export", "--output", file, "--database", source, "--rp-id", "example.com"])
        #expect(again.status != 0 && again.output.contains("it exists already (an export never overwrites a file)"), "\(again.output)")

        // The file carries the signing key and a secret: without --include-secrets it is refused before anything is written.
        let withoutFlag = try await run(["import", file, "--database", destination, "--rp-id", "example.com"])
        #expect(withoutFlag.status != 0 && withoutFlag.output.contains("pass import --include-secrets"), "\(withoutFlag.output)")
        let otherRP = try await run(["import", file, "--include-secrets", "--database", destination, "--rp-id", "other.example"])
        #expect(otherRP.status != 0 && otherRP.output.contains("made for the RP ID example.com, and this server's is other.example"), "\(otherRP.output)")
        let imported = try await run(["import", file, "--include-secrets", "--database", destination, "--rp-id", "example.com"])
        #expect(imported.status == 0 && imported.output.contains("imported 1 account, 1 passkey, 1 signing key, 1 secret"), "\(imported.output)")
        // An export cut short (here: without its end line) is refused whole.
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        let cut = file + ".cut"
        try (lines.dropLast().joined(separator: "\n") + "\n").write(toFile: cut, atomically: true, encoding: .utf8)
        let cutShort = try await run(["import", cut, "--include-secrets", "--database", try target.makeDatabase(), "--rp-id", "example.com"])
        #expect(cutShort.status != 0 && cutShort.output.contains("it was cut short"), "\(cutShort.output)")

        let twice = try await run(["import", file, "--include-secrets", "--database", destination, "--rp-id", "example.com"])
        #expect(twice.status != 0 && twice.output.contains("nothing was imported: an account with the user id"), "\(twice.output)")

        let new = try await ServerProcess.start(database: destination, port: try LocalPorts.free())
        defer { new.stop() }
        // A sign-in the old server took, sent again within its minute: its challenge was sealed with the old server's
        // key, which did not move, so it does not open here (the new database has no record that it was spent).
        let replayed = try await call(new.port, "/verify-authentication", body: usedOnTheOldServer)
        #expect(replayed.status == 400 && replayed["error"] == "challenge_invalid", "\(replayed.json)")
        let signedIn = try await signIn(device, signCount: 6, port: new.port)
        #expect(signedIn.status == 200, "\(signedIn.json)")
        #expect(signedIn["username"] == "ann" && signedIn["userId"] == registered["userId"], "the same account: \(signedIn.json)")
        #expect(try await keyIDs(new.port) == keys, "the signing key moved: backends' cached JWKS stays valid")
        #expect(
            try await call(new.port, "/generate-authentication-options?username=nobody")["allowCredentials"] == fakeIDs,
            "the secret moved: an unknown username gets the same made-up passkey IDs as before the move")
        // The counter came along: an assertion whose counter is not above the last one is refused.
        let replayedCounter = try await signIn(device, signCount: 6, port: new.port)
        #expect(replayedCounter.status == 400 && replayedCounter["error"] == "counter_regressed", "\(replayedCounter.json)")
    }

    @Test("a hand-made file from another server: bad lines are all listed and nothing is written; a dry run writes nothing; passkeys may come before their accounts")
    func handMade() async throws {
        let database = try DurableStore.sqlite.makeDatabase()
        let device = try TestAuthenticator()
        let key = Base64URL.encode(device.key.coseKey.encoded)
        let file = temporaryPath("passkey-import", extension: "jsonl").path
        let passkey = #"{"type":"passkey","id":""# + Base64URL.encode(device.credentialID) + #"","userId":"legacy-7","backupEligible":false,"publicKey":""# + key + #""}"#
        let user = #"{"type":"user","id":"legacy-7","userHandle":""# + Base64URL.encode(device.userHandle) + #"","username":"bo"}"#
        try ([passkey, "", #"{"type":"user","id":"x"}"#, "not json", user].joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let refused = try await run(["import", file, "--database", database])
        #expect(refused.status != 0, "\(refused.output)")
        #expect(refused.output.contains("nothing was imported: 2 problems in the file:"), "\(refused.output)")
        #expect(refused.output.contains("line 3: \"userHandle\": missing") && refused.output.contains("line 4: invalid JSON"), "\(refused.output)")

        try ([passkey, user].joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let dry = try await run(["import", file, "--dry-run", "--database", database])
        #expect(dry.status == 0 && dry.output.contains("would import 1 account, 1 passkey: the file has no problems, and there is no database yet"), "\(dry.output)")
        let imported = try await run(["import", file, "--database", database])
        #expect(imported.status == 0 && imported.output.contains("imported 1 account, 1 passkey"), "\(imported.output)")
        // A dry run against a database checks for conflicts too, and writes nothing.
        let conflicting = try await run(["import", file, "--dry-run", "--database", database])
        #expect(conflicting.status == 1 && conflicting.output.contains("the import would fail, and write nothing: an account with the user id legacy-7 exists"), "\(conflicting.output)")
        let other = try DurableStore.sqlite.makeDatabase()
        // A dry run changes nothing, not even the schema: an empty database file cannot be checked against.
        let otherPath = String(other.dropFirst("sqlite:".count))
        try FileManager.default.createDirectory(atPath: (otherPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: otherPath, contents: Data()))
        let unmigrated = try await run(["import", file, "--dry-run", "--database", other])
        #expect(unmigrated.status == 1 && unmigrated.output.contains("the database could not be checked") && unmigrated.output.contains("run passkey-server migrate first"), "\(unmigrated.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: otherPath)).isEmpty, "not migrated by the dry run")
        #expect(try await run(["migrate", "--database", other]).status == 0)
        let clear = try await run(["import", file, "--dry-run", "--database", other])
        #expect(clear.status == 0 && clear.output.contains("nothing in the database conflicts with it"), "\(clear.output)")
        #expect(try await run(["users", "list", "--database", other]).output.contains("no accounts"), "a dry run writes nothing")

        // An empty database's export imports as nothing, successfully: a scripted move of a new deployment goes on.
        let empty = try DurableStore.sqlite.makeDatabase()
        #expect(try await run(["migrate", "--database", empty]).status == 0)
        let emptyFile = file + ".empty"
        let exported = try await run(["export", "--output", emptyFile, "--database", empty])
        #expect(exported.status == 0 && exported.output.contains("the file does not say the RP ID"), "\(exported.output)")
        let nothing = try await run(["import", emptyFile, "--database", try DurableStore.sqlite.makeDatabase()])
        #expect(nothing.status == 0 && nothing.output.contains("nothing to import: the file is the export of an empty database"), "\(nothing.output)")

        let server = try await ServerProcess.start(database: database, port: try LocalPorts.free())
        defer { server.stop() }
        let signedIn = try await signIn(device, signCount: 1, port: server.port)
        #expect(signedIn.status == 200 && signedIn["username"] == "bo" && signedIn["userId"] == "legacy-7", "\(signedIn.json)")
    }
}
