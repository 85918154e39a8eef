import Foundation
import Testing

@Suite("passkey-server admin invite")
struct AdminInviteCommandTests {
    @Test("prints a one-time setup link for the server's database; the running server accepts it, not a made-up one")
    func invite() async throws {
        let folder = try privateDirectory()
        let database = "sqlite:\(folder)/passkey.sqlite"
        let serverBinary = CLIRun.serverExecutable
        let invited = try CLIRun.runProgram(serverBinary, ["admin", "invite", "--hours", "2", "--database", database])
        #expect(invited.status == 0, "\(invited.stderr)")
        let link = invited.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(link.hasPrefix("http://localhost:8080/dashboard/setup?token=pai_"), "\(link)")
        #expect(invited.stderr.contains("not shown again"))
        let refused = try CLIRun.runProgram(serverBinary, ["admin", "invite", "--hours", "0", "--database", database])
        #expect(refused.status != 0)

        let server = try ServerProcess(database: database)
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let token = String(link.split(separator: "=").last ?? "")
        let accepted = await ServerProcess.status(of: try #require(URL(string: "\(server.url)/dashboard/setup?token=\(token)")))
        #expect(accepted == 200)
        let madeUp = await ServerProcess.status(of: try #require(URL(string: "\(server.url)/dashboard/setup?token=pai_madeup")))
        #expect(madeUp == 404)
        let locked = await ServerProcess.status(of: try #require(URL(string: "\(server.url)/dashboard/api/users")))
        #expect(locked == 401)
    }
}
