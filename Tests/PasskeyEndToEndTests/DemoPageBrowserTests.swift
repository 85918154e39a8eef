import Foundation
import PasskeyWire
import Testing

/// The demo page in a real browser: headless Chromium driven through WebDriver (chromedriver), with a DevTools
/// virtual authenticator, against a real `passkey-server` process on `http://localhost:<port>` with SQLite.
///
/// Needs `chromium` and `chromedriver` on PATH (Debian: `apt-get install chromium chromium-driver`). Without them the
/// test is skipped locally; on CI (`CI=true`) it runs anyway and fails, so a missing browser never turns it off silently.
@Suite("Demo page in headless Chromium")
struct DemoPageBrowserTests {
    static let chromium = Executables.which("chromium")
    static let chromedriver = Executables.which("chromedriver")
    static let available = chromium != nil && chromedriver != nil
    static let required = ProcessInfo.processInfo.environment["CI"] == "true"

    @Test(
        "registers and signs in with a username, without one, anonymously, and through AutoFill",
        .enabled(if: available || required, "chromium and chromedriver are not on PATH (apt-get install chromium chromium-driver)"),
        .timeLimit(.minutes(2)))
    func demoPageCeremonies() async throws {
        try await BrowserRun.demoPage { page, database in try await Self.scenario(page, database: database) }
    }

    @Test(
        "AutoFill that gets no fresh options waits longer each time, instead of asking again at once",
        .enabled(if: available || required, "chromium and chromedriver are not on PATH (apt-get install chromium chromium-driver)"),
        .timeLimit(.minutes(2)))
    func autoFillBacksOff() async throws {
        // Challenges of 2 s, so AutoFill renews its request every second; two options a minute per client, so from the
        // third renewal on the server refuses (429). An authenticator that does not consent keeps the conditional
        // request pending, as while a person has not picked a passkey yet.
        guard case .object(var waiting) = BrowserRun.authenticatorOptions else { return }
        waiting["isUserConsenting"] = false
        try await BrowserRun.demoPage(serverArguments: ["--challenge-ttl", "2", "--options-per-minute", "2"], authenticator: .object(waiting)) { page, _ in
            try await page.driver.navigate(to: page.origin + "/")
            try await Task.sleep(for: .seconds(8))
            let port = try #require(page.origin.split(separator: ":").last.flatMap { Int($0) })
            let metrics = String(decoding: try await LoopbackHTTP.request("GET", port: port, path: "/metrics", timeout: 5).body, as: UTF8.self)
            func count(_ result: String, _ code: String) -> Int {
                let prefix = "passkey_ceremonies_total{ceremony=\"authentication\",step=\"options\",result=\"\(result)\",code=\"\(code)\"} "
                return metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) } ?? 0
            }
            // Two options, two renewals refused, then waits of 5 and 10 s: a handful, never a request per millisecond.
            try check(count("success", "none") == 2, "options given: \(count("success", "none"))")
            let refused = count("failure", "rate_limited")
            try check((1...3).contains(refused), "AutoFill asked \(refused) times in 8 s after the server refused it")
        }
    }

    @Test(
        "a browser or web view without WebAuthn: the page says so, its buttons stay off, and no ceremony starts",
        .enabled(if: available || required, "chromium and chromedriver are not on PATH (apt-get install chromium chromium-driver)"),
        .timeLimit(.minutes(2)))
    func withoutWebAuthn() async throws {
        try await BrowserRun.demoPage { page, _ in
            // As a WKWebView without passkeys for this domain, or an old engine: no PublicKeyCredential, no create/get.
            let script = "delete window.PublicKeyCredential; Object.defineProperty(navigator, 'credentials', { value: undefined });"
            try await page.driver.command("POST", "goog/cdp/execute", ["cmd": "Page.addScriptToEvaluateOnNewDocument", "params": ["source": .string(script)]])
            try await page.driver.navigate(to: page.origin + "/")
            let status = try await page.driver.element("#status").text()
            try check(status.contains("not available here"), "the page names the missing WebAuthn: \(status)")
            let buttons = try await page.driver.command(
                "POST", "execute/sync", ["script": "return [...document.querySelectorAll('button')].map((b) => b.disabled)", "args": []])
            let states = buttons.arrayValue ?? []
            try check(!states.isEmpty && states.allSatisfy { $0 == true }, "every button is off: \(buttons.serialized())")
            let port = try #require(page.origin.split(separator: ":").last.flatMap { Int($0) })
            let metrics = String(decoding: try await LoopbackHTTP.request("GET", port: port, path: "/metrics", timeout: 5).body, as: UTF8.self)
            let optionsGiven = metrics.split(separator: "\n").filter { $0.contains("step=\"options\",result=\"success\"") && !$0.hasSuffix(" 0") }
            try check(optionsGiven.isEmpty, "no options were fetched (AutoFill did not start): \(optionsGiven)")
        }
    }

    static func scenario(_ page: DemoPage, database: URL) async throws {
        // (a) Register with a username. It has a space: the page's URLSearchParams writes it as "+" in the query.
        let ann = try await page.register(username: "Ann.Lee")
        try check(ann["verified"] == true, "registration not verified: \(ann.resultText)")
        try check(ann["username"] == "Ann.Lee", "registered username: \(ann.resultText)")
        try check(ann["isAnonymous"] == false, "a registration with a username is not anonymous: \(ann.resultText)")
        let annUserID = ann["userId"]?.stringValue ?? ""
        let annCredentialID = ann["credentialId"]?.stringValue ?? ""
        try check(!annUserID.isEmpty && !annCredentialID.isEmpty, "registration returns userId and credentialId: \(ann.resultText)")

        // The passkey is a resident (discoverable) credential for RP ID localhost on the virtual authenticator.
        let afterAnn = try await page.storedCredentials()
        try check(afterAnn.count == 1, "the authenticator holds one credential: \(afterAnn.map { JSONValue.object($0).serialized() })")
        let annStored = afterAnn[0]
        try check(base64URL(annStored["credentialId"]?.stringValue ?? "") == annCredentialID,
                  "the authenticator's credential is the one the server stored: \(JSONValue.object(annStored).serialized())")
        try check(annStored["isResidentCredential"] == true, "Ann's credential is resident: \(JSONValue.object(annStored).serialized())")
        try check(annStored["rpId"] == "localhost", "Ann's credential is for RP ID localhost: \(JSONValue.object(annStored).serialized())")

        // (b) Sign in with the username: the server sends allowCredentials.
        let withName = try await page.signIn(username: "ann.lee")  // any case
        try check(withName["verified"] == true, "sign-in with a username not verified: \(withName.resultText)")
        try check(withName["userId"]?.stringValue == annUserID, "signed in as another user: \(withName.resultText)")
        try check(withName["username"] == "Ann.Lee" && withName["credentialId"]?.stringValue == annCredentialID,
                  "sign-in with a username reports Ann's account and passkey: \(withName.resultText)")

        // (c) Sign in without a username: the authenticator finds the discoverable credential and returns its user handle.
        let discoverable = try await page.signInWithoutUsername()
        try check(discoverable["verified"] == true, "sign-in without a username not verified: \(discoverable.resultText)")
        try check(discoverable["userId"]?.stringValue == annUserID, "discoverable sign-in found another user: \(discoverable.resultText)")
        try check(discoverable["username"] == "Ann.Lee", "discoverable sign-in reports Ann: \(discoverable.resultText)")

        // (d) Anonymous: register with the username field empty.
        let anonymous = try await page.register(username: nil)
        try check(anonymous["verified"] == true, "anonymous registration not verified: \(anonymous.resultText)")
        try check(anonymous["isAnonymous"] == true, "registration without a username is anonymous: \(anonymous.resultText)")
        try check(
            anonymous["username"]?.stringValue?.hasPrefix("anonymous-") == true, "an anonymous account is named by its passkey's name: \(anonymous.resultText)")
        let anonymousUserID = anonymous["userId"]?.stringValue ?? ""
        let anonymousCredentialID = anonymous["credentialId"]?.stringValue ?? ""
        try check(!anonymousUserID.isEmpty && anonymousUserID != annUserID, "the anonymous account is a new user: \(anonymous.resultText)")
        try check(!anonymousCredentialID.isEmpty && anonymousCredentialID != annCredentialID, "the anonymous account has its own passkey: \(anonymous.resultText)")

        let both = try await page.storedCredentials()
        try check(both.count == 2, "the authenticator holds two credentials: \(both.map { JSONValue.object($0).serialized() })")
        try check(both.allSatisfy { $0["isResidentCredential"] == true }, "both credentials are resident: \(both.map { JSONValue.object($0).serialized() })")
        try check(Set(both.compactMap { $0["credentialId"]?.stringValue }.map(base64URL)) == [annCredentialID, anonymousCredentialID],
                  "the authenticator holds Ann's and the anonymous passkey: \(both.map { JSONValue.object($0).serialized() })")

        // With two discoverable credentials for localhost, Chromium's virtual authenticator would pick one at random.
        // Remove Ann's, so a sign-in without a username must be the anonymous account.
        try await page.removeCredential(annStored["credentialId"]?.stringValue ?? annCredentialID)
        let remaining = try await page.storedCredentials()
        try check(remaining.compactMap { $0["credentialId"]?.stringValue }.map(base64URL) == [anonymousCredentialID],
                  "only the anonymous passkey is left: \(remaining.map { JSONValue.object($0).serialized() })")

        let anonymousSignIn = try await page.signInWithoutUsername()
        try check(anonymousSignIn["verified"] == true, "anonymous sign-in not verified: \(anonymousSignIn.resultText)")
        try check(anonymousSignIn["userId"]?.stringValue == anonymousUserID, "anonymous sign-in found another user: \(anonymousSignIn.resultText)")
        try check(anonymousSignIn["isAnonymous"] == true && anonymousSignIn["username"] == anonymous["username"],
                  "the anonymous account signs in without a username, and is named by its passkey's name: \(anonymousSignIn.resultText)")
        // The name its passkey carries finds it: a sign-in by that name is the anonymous account's.
        let anonymousName = anonymous["username"]?.stringValue ?? ""
        let byName = try await page.signIn(username: anonymousName)
        try check(byName["verified"] == true && byName["userId"]?.stringValue == anonymousUserID, "a sign-in by the passkey's name: \(byName.resultText)")
        try check(anonymousSignIn["credentialId"]?.stringValue == anonymousCredentialID, "signed in with the anonymous passkey: \(anonymousSignIn.resultText)")

        // (e) AutoFill: the page's conditional request (mediation "conditional", empty allowCredentials) is answered by
        // the one passkey left, with no button pressed.
        let autoFill = try await page.signInWithAutoFill()
        try check(autoFill.status.contains("(AutoFill)"), "the page reports an AutoFill sign-in: \(autoFill.status)")
        try check(autoFill["verified"] == true, "AutoFill sign-in not verified: \(autoFill.resultText)")
        try check(autoFill["userId"]?.stringValue == anonymousUserID && autoFill["credentialId"]?.stringValue == anonymousCredentialID,
                  "AutoFill signed in with the anonymous passkey: \(autoFill.resultText)")

        // Everything above went through the server's SQLite database.
        let size = (try? FileManager.default.attributesOfItem(atPath: database.path)[.size] as? Int) ?? 0
        try check(size > 0, "passkey-server created its SQLite database at \(database.path)")
    }
}
