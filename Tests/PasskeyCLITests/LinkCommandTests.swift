import Foundation
import PasskeyTestSupport
import PasskeyWire
import Testing

/// A lost device, end to end against a real `passkey-server` process on SQLite: an operator mints a recovery link with
/// `passkey-server users link`, the person redeems it with `passkey link` (the SDK's `redeemAccountLink` over HTTP),
/// the old passkey is refused, the new one signs in, and the link works once.
@Suite("passkey link against a real server")
struct LinkCommandTests {
    func folder() throws -> String { try temporaryFolder("passkey-link") }

    @Test("mint with users link, redeem with passkey link: old passkey refused, new one signs in, the link works once, unlink revokes")
    func lostDevice() async throws {
        let folder = try folder()
        let database = "sqlite:\(folder)/passkey.sqlite"
        let server = try ServerProcess(database: database)
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let lost = "\(folder)/lost-phone.json"
        let replacement = "\(folder)/new-phone.json"

        let registered = try CLIRun.run(["register", "--server", server.url, "--username", "ann", "--store", lost, "--json"])
        #expect(registered.status == 0, "\(registered.stdout)\(registered.stderr)")

        // The operator's link, built from the server's settings; the explanation goes to standard error.
        let minted = try CLIRun.runProgram(
            CLIRun.serverExecutable, ["users", "link", "ann", "--replace-passkeys", "--port", "\(server.port)", "--database", database])
        #expect(minted.status == 0, "\(minted.stdout)\(minted.stderr)")
        let link = minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(link.hasPrefix("http://localhost:\(server.port)/#link=pal_"), "\(minted.stdout)")
        #expect(minted.stderr.contains("It works once, for 24 hours, and deletes the account's other passkeys"), "\(minted.stderr)")

        let redeemed = try CLIRun.run(["link", link, "--server", server.url, "--store", replacement, "--json"])
        #expect(redeemed.status == 0, "\(redeemed.stdout)\(redeemed.stderr)")
        let answer = try JSONValue.parse(Array(redeemed.stdout.utf8)).objectValue
        #expect(answer?["username"] == "ann" && answer?["replacedPasskeys"] == 1, "\(redeemed.stdout)")

        // The lost phone's passkey is refused; the new one signs in as ann.
        let old = try CLIRun.run(["login", "--server", server.url, "--store", lost, "--json"])
        #expect(old.status == 1, "\(old.stdout)\(old.stderr)")
        #expect((old.stdout + old.stderr).contains("passkey_deleted_on_server"), "\(old.stdout)\(old.stderr)")
        let new = try CLIRun.run(["login", "--server", server.url, "--store", replacement, "--json"])
        #expect(new.status == 0, "\(new.stdout)\(new.stderr)")
        #expect(try JSONValue.parse(Array(new.stdout.utf8)).objectValue?["username"] == "ann", "\(new.stdout)")

        // Once only, also as a bare token.
        let token = String(link[link.range(of: "#link=")!.upperBound...])
        let again = try CLIRun.run(["link", token, "--server", server.url, "--store", "\(folder)/third.json"])
        #expect(again.status == 1, "\(again.stdout)\(again.stderr)")
        #expect(again.stderr.contains("the link is unknown, already used, expired or revoked"), "\(again.stderr)")

        // A second link, revoked before use.
        let second = try CLIRun.runProgram(CLIRun.serverExecutable, ["users", "link", "ann", "--port", "\(server.port)", "--database", database])
        let unlinked = try CLIRun.runProgram(CLIRun.serverExecutable, ["users", "unlink", "ann", "--database", database])
        #expect(unlinked.status == 0 && unlinked.stdout.contains("revoked 1 link of"), "\(unlinked.stdout)\(unlinked.stderr)")
        let revoked = try CLIRun.run(["link", second.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "--server", server.url, "--store", "\(folder)/fourth.json"])
        #expect(revoked.status == 1, "\(revoked.stdout)\(revoked.stderr)")

        // Not a link at all: a usage-like refusal before anything is sent.
        let garbage = try CLIRun.run(["link", "https://example.com/reset?token=abc", "--server", server.url, "--store", "\(folder)/fifth.json"])
        #expect(garbage.status != 0 && garbage.stderr.contains("that is not a link"), "\(garbage.stdout)\(garbage.stderr)")
    }
}
