import Foundation
import PasskeyTestSupport
import PasskeyWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The example app backend (Examples/connect-backend/backend.py) against a real passkey-server, with the CLI as the app.
///
/// The backend verifies signedPasskeyData with joserfc against the server's JWKS fetched over HTTP, an implementation
/// of JWS/JWT we did not write. Without `python3 -m pip install joserfc` the test is skipped locally; on CI
/// (`CI=true`) it fails instead.
@Suite("Connect: the example app backend, the CLI and passkey-server together", .serialized)
struct ConnectCommandsTests {
    static let required = ProcessInfo.processInfo.environment["CI"] == "true"
    static let available: Bool = {
        guard let run = try? CLIRun.runProgram("/usr/bin/env", ["python3", "-c", "import joserfc"]) else { return false }
        return run.status == 0
    }()

    /// Examples/connect-backend/backend.py in this checkout.
    static var backendScript: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples/connect-backend/backend.py").path
    }

    @Test(
        "append with a backend-minted token, sign in, and the backend verifies signedPasskeyData with joserfc and once online",
        .enabled(if: available || required, "python3 with joserfc is not installed"))
    func exampleBackend() async throws {
        try #require(Self.available, "CI=true but `python3 -c 'import joserfc'` fails: run .ci/run's install step")
        let folder = try privateDirectory()
        let database = "sqlite:\(folder)/passkey.sqlite"
        let serverBinary = CLIRun.serverExecutable

        // The operator creates an API key for the backend; it is printed once.
        let created = try CLIRun.runProgram(serverBinary, ["api-keys", "create", "--name", "example backend", "--database", database])
        #expect(created.status == 0, "\(created.stderr)")
        let apiKey = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(apiKey.hasPrefix("pks_"))
        #expect(created.stderr.contains("not shown again"))
        let listed = try CLIRun.runProgram(serverBinary, ["api-keys", "list", "--database", database])
        #expect(listed.stdout.contains("example backend") && !listed.stdout.contains(apiKey), "lists never show the secret")

        let server = try ServerProcess(database: database)
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let backend = try BackendProcess(script: Self.backendScript, passkeyServer: server.url, apiKey: apiKey)
        defer { backend.stop() }
        try await backend.waitUntilUp()

        // The app's old login, then a passkey-append token from the backend for the signed-in user.
        let session = try #require(try await backend.post("/login", ["username": "ann@example.com", "password": "correct horse battery staple"]).json["session"]?.stringValue)
        let appendToken = try #require(try await backend.post("/passkeys/token", ["type": "passkey-append"], session: session).json["token"]?.stringValue)
        let store = try privateFile("credentials.json")
        let appended = try CLIRun.run(["append", "--server", server.url, "--token", appendToken, "--store", store, "--json"])
        #expect(appended.status == 0, "\(appended.stdout)\(appended.stderr)")
        let passkeyID = try #require(try JSONValue.parse(appended.stdout).objectValue?["passkey"]?.objectValue?["id"]?.stringValue)
        let reused = try CLIRun.run(["append", "--server", server.url, "--token", appendToken, "--store", store])
        #expect(reused.status == 1)
        #expect(reused.stderr.contains("connect_token_invalid"))

        // A passkey sign-in; the backend exchanges signedPasskeyData for its own session, once.
        let login = try CLIRun.run(["login", "--server", server.url, "--store", store, "--json"])
        #expect(login.status == 0, "\(login.stderr)")
        let signed = try #require(try JSONValue.parse(login.stdout).objectValue?["signedPasskeyData"]?.stringValue)
        let exchanged = try await backend.post("/passkeys/login", ["signedPasskeyData": .string(signed)])
        #expect(exchanged.status == 200, "\(exchanged.json)")
        #expect(exchanged.json["userId"] == "app-user-1")
        #expect(exchanged.json["amr"] == ["fido", "mfa"])
        let me = try await backend.get("/me", session: try #require(exchanged.json["session"]?.stringValue))
        #expect(me.json["username"] == "ann@example.com")
        let replay = try await backend.post("/passkeys/login", ["signedPasskeyData": .string(signed)])
        #expect(replay.status == 401)
        #expect(replay.json["error"] == "token_replayed")
        // The token the append answered with is a registration's: not a sign-in, and the backend says so.
        let appendSigned = try #require(try JSONValue.parse(appended.stdout).objectValue?["signedPasskeyData"]?.stringValue)
        let notSignIn = try await backend.post("/passkeys/login", ["signedPasskeyData": .string(appendSigned)])
        #expect(notSignIn.status == 401 && notSignIn.json["error"] == "not_a_sign_in", "\(notSignIn.json)")
        // A token whose payload was changed fails joserfc's signature check before the server is asked.
        var parts = signed.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array(#"{"sub":"x","aud":"localhost","exp":4102444800,"external_user_id":"app-user-1"}"#.utf8))
        let forged = try await backend.post("/passkeys/login", ["signedPasskeyData": .string(parts.joined(separator: "."))])
        #expect(forged.status == 401)
        #expect(forged.json["detail"] == "BadSignatureError")

        // Manage with list and delete tokens.
        let listToken = try #require(try await backend.post("/passkeys/token", ["type": "passkey-list"], session: session).json["token"]?.stringValue)
        let renamed = try CLIRun.run(["passkeys", "rename", passkeyID, "Laptop", "--server", server.url, "--token", listToken])
        #expect(renamed.status == 0, "\(renamed.stderr)")
        let list = try CLIRun.run(["passkeys", "list", "--server", server.url, "--token", listToken, "--json"])
        #expect(try JSONValue.parse(list.stdout).objectValue?["rpId"] == "localhost", "the server's rpId and user, passed on: \(list.stdout)")
        #expect(try JSONValue.parse(list.stdout).objectValue?["user"]?.objectValue?["name"] == "ann@example.com", "\(list.stdout)")
        let passkeys = try JSONValue.parse(list.stdout).objectValue?["passkeys"]?.arrayValue ?? []
        #expect(passkeys.compactMap { $0.objectValue?["name"]?.stringValue } == ["Laptop"])
        let wrongType = try CLIRun.run(["passkeys", "delete", passkeyID, "--server", server.url, "--token", listToken])
        #expect(wrongType.status == 1)
        #expect(wrongType.stderr.contains("connect_token_wrong_type"))
        let deleteToken = try #require(try await backend.post("/passkeys/token", ["type": "passkey-delete"], session: session).json["token"]?.stringValue)
        #expect(try CLIRun.run(["passkeys", "delete", passkeyID, "--server", server.url, "--token", deleteToken]).status == 0)
        #expect(try CLIRun.run(["passkeys", "list", "--server", server.url, "--token", listToken]).stdout.contains("no passkeys"))

        // Revoking the backend's key stops it at once.
        let keyID = try #require(listed.stdout.split(separator: " ").first.map(String.init))
        #expect(try CLIRun.runProgram(serverBinary, ["api-keys", "revoke", keyID, "--database", database]).status == 0)
        let refused = try await backend.post("/passkeys/token", ["type": "passkey-list"], session: session)
        #expect(refused.status == 401)
        #expect(refused.json["error"] == "api_key_revoked")
    }
}

/// The example backend as a Python process on a free port.
final class BackendProcess: @unchecked Sendable {
    let process = Process()
    let port: Int

    /// `settings`: more of backend.py's environment (`PASSKEY_AUDIENCE`, `PASSKEY_ISSUER` for a server on another RP ID).
    init(script: String, passkeyServer: String, apiKey: String, settings: [String: String] = [:]) throws {
        port = try LocalPorts.free()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--port", "\(port)"]
        var environment = ProcessInfo.processInfo.environment
        environment["PASSKEY_SERVER_URL"] = passkeyServer
        environment["PASSKEY_API_KEY"] = apiKey
        environment.merge(settings) { _, new in new }
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    func waitUntilUp() async throws {
        for _ in 0..<100 {
            if !process.isRunning { throw CLITestError("backend.py exited with status \(process.terminationStatus)") }
            if (try? await get("/me").status) == 401 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw CLITestError("backend.py did not start")
    }

    struct Answer {
        var status: Int
        var json: JSONObject
    }

    func post(_ path: String, _ body: JSONValue, session: String? = nil) async throws -> Answer {
        try await send("POST", path, body: body, session: session)
    }

    func get(_ path: String, session: String? = nil) async throws -> Answer { try await send("GET", path, body: nil, session: session) }

    func send(_ method: String, _ path: String, body: JSONValue?, session: String?) async throws -> Answer {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
        request.httpMethod = method
        request.timeoutInterval = 10
        if let body { request.httpBody = Data(body.serializedBytes) }
        if let session { request.setValue(session, forHTTPHeaderField: "X-Session") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return Answer(status: status, json: (try? JSONValue.parse(Array(data)))?.objectValue ?? [:])
    }

    /// SIGKILL: a child of the test runner may inherit a blocked SIGTERM, and the backend holds nothing to flush.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
