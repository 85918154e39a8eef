import Foundation
import PasskeyWire
import Testing

/// A recovery link redeemed on the demo page in headless Chromium, against a real server process.
@Suite("Recovery link in headless Chromium")
struct AccountLinkBrowserTests {
    @Test(
        "the demo page redeems a link that replaces the account's passkeys; the new passkey signs in",
        .enabled(
            if: DemoPageBrowserTests.available || DemoPageBrowserTests.required,
            "chromium and chromedriver are not on PATH (apt-get install chromium chromium-driver)"),
        .timeLimit(.minutes(2)))
    func redeemOnTheDemoPage() async throws {
        try await BrowserRun.demoPage { page, database in try await Self.scenario(page, database: database) }
    }

    static func scenario(_ page: DemoPage, database: URL) async throws {
        let port = Int(page.origin.split(separator: ":").last ?? "") ?? 0
        let apiKey = try SignalBrowserTests.makeAPIKey(database: database)
        let dora = try await page.register(username: "dora")
        let userID = dora["userId"]?.stringValue ?? ""
        let oldID = dora["credentialId"]?.stringValue ?? ""

        let minted = try await LoopbackHTTP.request(
            "POST", port: port, path: "/users/\(userID)/links?by=userId", body: Array(#"{"replacePasskeys": true}"#.utf8), bearer: apiKey,
            timeout: 10)
        let link = (try? JSONValue.parse(minted.body))?.objectValue
        let url = link?["url"]?.stringValue ?? ""
        try check(minted.status == 200 && url.hasPrefix(page.origin + "/#link=pal_"), "the backend mints a link: \(String(decoding: minted.body, as: UTF8.self))")

        // The person opens the link (AutoFill off, as for every scripted page here) and presses the button.
        try await page.driver.navigate(to: url.replacingOccurrences(of: "/#link=", with: "/?autofill=off&from=link#link="))
        try await page.driver.element("#link-button").click()
        let redeemed = try await page.outcome(of: "redeeming the link", sourceLocation: #_sourceLocation)
        try check(redeemed["verified"] == true && redeemed["userId"]?.stringValue == userID, "the link added a passkey to dora: \(redeemed.resultText)")
        try check(redeemed["replacedPasskeys"] == 1, "dora's old passkey was replaced: \(redeemed.resultText)")
        try check(redeemed.status.contains("Added a passkey to dora. Your 1 other passkey was removed."), "the page says so: \(redeemed.status)")
        let newID = redeemed["credentialId"]?.stringValue ?? ""
        try check(!newID.isEmpty && newID != oldID, "a new passkey: \(redeemed.resultText)")

        // The authenticator made the new passkey in place of the old one (same account); it signs in as dora.
        let held = try await page.credentialIDs { $0 == [newID] }
        try check(held == [newID], "the authenticator holds the new passkey only: \(held)")
        let signedIn = try await page.signInWithoutUsername()
        try check(signedIn["username"] == "dora" && signedIn["credentialId"]?.stringValue == newID, "the new passkey signs in: \(signedIn.resultText)")

        // Used once: opening it again is refused.
        try await page.driver.navigate(to: url.replacingOccurrences(of: "/#link=", with: "/?autofill=off&from=link#link="))
        try await page.driver.element("#link-button").click()
        let again = try await page.outcome(of: "the used link", expecting: "error", sourceLocation: #_sourceLocation)
        try check(again["error"] == "account_link_invalid", "a used link is refused: \(again.resultText)")
    }
}
