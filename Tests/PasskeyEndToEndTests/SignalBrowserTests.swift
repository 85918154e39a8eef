import Foundation
import PasskeyWire
import Testing

/// The WebAuthn L3 §5.1.10 signals end to end: the demo page in headless Chromium passes the server's signals to the
/// browser, and Chromium's virtual authenticator acts on them as a passkey manager would.
@Suite("Signal API in headless Chromium")
struct SignalBrowserTests {
    @Test(
        "a passkey deleted on the server leaves the authenticator at the next sign-in attempt; one still registered stays",
        .enabled(
            if: DemoPageBrowserTests.available || DemoPageBrowserTests.required,
            "chromium and chromedriver are not on PATH (apt-get install chromium chromium-driver)"),
        .timeLimit(.minutes(2)))
    func deletedPasskeysLeaveTheDevice() async throws {
        try await BrowserRun.demoPage { page, database in try await Self.scenario(page, database: database) }
    }

    static func scenario(_ page: DemoPage, database: URL) async throws {
        let port = Int(page.origin.split(separator: ":").last ?? "") ?? 0
        let apiKey = try makeAPIKey(database: database)

        // (a) A passkey the server holds: after a sign-in the page signals the account's passkeys, and it stays.
        let kept = try await page.register(username: "kept")
        let keptID = kept["credentialId"]?.stringValue ?? ""
        let signedIn = try await page.signInWithoutUsername()
        try check(signedIn["verified"] == true && signedIn["credentialId"]?.stringValue == keptID, "kept signs in: \(signedIn.resultText)")
        let accepted = signedIn["signalAllAcceptedCredentials"]?.objectValue
        try check(accepted?["allAcceptedCredentialIds"] == [.string(keptID)], "the answer lists kept's passkey: \(signedIn.resultText)")
        // The signal has no visible effect here: give it the time the removal below takes, then look.
        try await Task.sleep(for: .seconds(1))
        let afterSignIn = try await page.credentialIDs { _ in false }
        try check(afterSignIn == [keptID], "the registered passkey stays on the authenticator: \(afterSignIn)")

        // Set kept's passkey aside, so the authenticator answers the next usernameless sign-ins with the one under test
        // (with two, Chromium's virtual authenticator picks either).
        let keptCredential = try #require(try await page.storedCredentials().first)
        try await page.removeCredential(keptCredential["credentialId"]?.stringValue ?? "")

        // (b) A passkey deleted on the server from an account that still exists: passkey_deleted_on_server.
        let gone = try await page.register(username: "gone")
        let goneID = gone["credentialId"]?.stringValue ?? ""
        let goneUser = gone["userId"]?.stringValue ?? ""
        let deleted = try await LoopbackHTTP.request("DELETE", port: port, path: "/users/\(goneUser)/passkeys/\(goneID)", bearer: apiKey, timeout: 10)
        try check(deleted.status == 200 || deleted.status == 204, "the backend deletes gone's passkey: \(deleted.status) \(String(decoding: deleted.body, as: UTF8.self))")
        let refused = try await page.refusedSignInWithoutUsername()
        try check(refused["error"] == "passkey_deleted_on_server", "the server no longer holds gone's passkey: \(refused.resultText)")
        try check(refused["signalUnknownCredential"] == ["rpId": "localhost", "credentialId": .string(goneID)], "with the signal: \(refused.resultText)")
        let afterDeleted = try await page.credentialIDs { !$0.contains(goneID) }
        try check(!afterDeleted.contains(goneID), "the deleted passkey left the authenticator: \(afterDeleted)")

        // (c) A passkey whose whole account was deleted: credential_unknown, signalled too (no account holds it).
        let leaver = try await page.register(username: "leaver")
        let leaverID = leaver["credentialId"]?.stringValue ?? ""
        let removed = try await LoopbackHTTP.request(
            "DELETE", port: port, path: "/users/\(leaver["userId"]?.stringValue ?? "")?by=userId", bearer: apiKey, timeout: 10)
        try check(removed.status == 200 || removed.status == 204, "the backend deletes leaver's account: \(removed.status) \(String(decoding: removed.body, as: UTF8.self))")
        let unknown = try await page.refusedSignInWithoutUsername()
        try check(unknown["error"] == "credential_unknown", "no account holds leaver's passkey: \(unknown.resultText)")
        let afterUnknown = try await page.credentialIDs { !$0.contains(leaverID) }
        try check(!afterUnknown.contains(leaverID), "the unknown passkey left the authenticator: \(afterUnknown)")

        // Kept's passkey, back on the authenticator, still signs in.
        try await page.addCredential(keptCredential)
        let again = try await page.signInWithoutUsername()
        try check(again["verified"] == true && again["credentialId"]?.stringValue == keptID, "kept still signs in: \(again.resultText)")
        let last = try await page.credentialIDs { _ in true }
        try check(last == [keptID], "only kept's passkey is on the authenticator: \(last)")
    }

    /// A backend API key made with `passkey-server api-keys create` on the running server's database.
    static func makeAPIKey(database: URL) throws -> String {
        guard let executable = PasskeyServerLauncher.executable else { throw LaunchError(description: "passkey-server is not built") }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["api-keys", "create", "--name", "signal-test", "--database", "sqlite:" + database.path]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PASSKEY_") }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let key = output.split(whereSeparator: { $0.isWhitespace }).first(where: { $0.hasPrefix("pks_") })
        else { throw LaunchError(description: "api-keys create failed: \(output)") }
        return String(key)
    }
}
