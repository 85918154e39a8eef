import Foundation
@testable import PasskeyCLI
import PasskeyClient
import PasskeySoftwareAuthenticator
import PasskeyWire
import Testing

@Suite("register and append keep only passkeys the server verified", .serialized)
struct RegistrationStoreTests {
    @Test("a registration the server refuses (origin_mismatch) leaves nothing in the credential file for login to pick")
    func refusedRegistrationIsNotKept() async throws {
        let server = try ServerProcess()
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let store = try privateFile("c3.json")

        let refused = try CLIRun.run(["register", "--server", server.url, "--username", "carol", "--origin", "ios", "--store", store])
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("origin_mismatch"), "\(refused.stderr)")
        let listed = try CLIRun.run(["credentials", "--store", store, "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(try JSONValue.parse(listed.stdout).objectValue?["credentials"] == .array([]))

        let login = try CLIRun.run(["login", "--server", server.url, "--store", store, "--json"])
        #expect(login.status == 1)
        #expect(try JSONValue.parse(login.stdout).objectValue?["error"] == "no_credentials")

        // The same file still takes a registration the server accepts.
        let accepted = try CLIRun.run(["register", "--server", server.url, "--username", "carol", "--store", store])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(try CLIRun.run(["login", "--server", server.url, "--store", store]).status == 0)
    }

    /// The append case: the account's new passkey has the user handle of its working one, and a save replaces that.
    @Test("a pending passkey is visible to the authenticator, replaces nothing in the file until committed")
    func pendingStore() async throws {
        let file = FileCredentialStore(fileURL: URL(fileURLWithPath: try privateFile("credentials.json")))
        let working = Self.credential(id: 1, user: 7)
        try await file.save(working)
        let pending = PendingCredentialStore(file: file)

        let replacement = Self.credential(id: 2, user: 7)
        let displaced = try await pending.save(replacement)
        #expect(displaced.map(\.id) == [working.id])
        #expect(try await pending.credentials(rpID: "localhost").map(\.id) == [replacement.id])
        #expect(try await file.allCredentials().map(\.id) == [working.id], "nothing written before the server verified it")

        try await pending.commit()
        #expect(try await file.allCredentials().map(\.id) == [replacement.id])
    }

    static func credential(id: UInt8, user: UInt8) -> StoredCredential {
        StoredCredential(
            id: Array(repeating: id, count: 16), rpID: "localhost", userHandle: [user], userName: "ann", userDisplayName: "Ann",
            algorithm: .es256, privateKey: Array(repeating: 1, count: 32), signCount: 0, backupEligible: false, backupState: false,
            createdAt: Date(timeIntervalSince1970: 1_700_000_000))
    }
}
