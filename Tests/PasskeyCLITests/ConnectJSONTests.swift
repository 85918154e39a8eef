import Foundation
import PasskeyWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `append --json` and `passkeys list --json` print what the server answered (docs/connect.md), not the SDK's subset.
@Suite("passkey append / passkeys --json against a real passkey-server", .serialized)
struct ConnectJSONTests {
    /// A connect token minted as an app's backend would (POST /connect/tokens with an API key).
    static func token(_ type: String, server: ServerProcess, apiKey: String) async throws -> String {
        var request = URLRequest(url: try #require(URL(string: "\(server.url)/connect/tokens")))
        request.httpMethod = "POST"
        request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(
            JSONValue.object(["type": .string(type), "user": ["id": "app-user-1", "name": "ann@example.com", "displayName": "Ann"]]).serializedBytes)
        let (data, _) = try await URLSession.shared.data(for: request)
        return try #require(try JSONValue.parse(Array(data)).objectValue?["token"]?.stringValue, "\(String(decoding: data, as: UTF8.self))")
    }

    @Test("append --json has userId, username, credentialId and signedPasskeyData; list --json has aaguid, backupEligible, algorithm")
    func fullAnswers() async throws {
        let folder = try privateDirectory()
        let database = "sqlite:\(folder)/passkey.sqlite"
        let serverBinary = CLIRun.serverExecutable
        let created = try CLIRun.runProgram(serverBinary, ["api-keys", "create", "--name", "test backend", "--database", database])
        #expect(created.status == 0, "\(created.stderr)")
        let apiKey = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServerProcess(database: database)
        defer { server.stop() }
        try await server.waitUntilHealthy()

        let store = try privateFile("credentials.json")
        let appendToken = try await Self.token("passkey-append", server: server, apiKey: apiKey)
        let appended = try CLIRun.run(["append", "--server", server.url, "--token", appendToken, "--store", store, "--json"])
        #expect(appended.status == 0, "\(appended.stdout)\(appended.stderr)")
        let answer = try #require(try JSONValue.parse(appended.stdout).objectValue)
        #expect(answer["ok"] == true && answer["verified"] == true)
        #expect(answer["username"] == "ann@example.com")
        #expect(answer["userId"]?.stringValue?.isEmpty == false)
        #expect(answer["signedPasskeyData"]?.stringValue?.split(separator: ".").count == 3)
        let passkey = try #require(answer["passkey"]?.objectValue)
        #expect(answer["credentialId"] == passkey["id"])

        let listToken = try await Self.token("passkey-list", server: server, apiKey: apiKey)
        let list = try CLIRun.run(["passkeys", "list", "--server", server.url, "--token", listToken, "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        let listed = try #require(try JSONValue.parse(list.stdout).objectValue?["passkeys"]?.arrayValue?.first?.objectValue)
        #expect(listed["id"] == passkey["id"])
        #expect(listed["aaguid"]?.stringValue?.count == 36, "\(list.stdout)")
        #expect(listed["backupEligible"] == false)
        #expect(listed["algorithm"] != nil && listed["algorithm"] != .null, "\(list.stdout)")
        #expect(listed["deviceBound"] == true && listed["synced"] == false)
    }
}
