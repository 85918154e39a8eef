import Foundation
import PasskeyWire
import Testing

/// The admin dashboard in headless Chromium against a real `passkey-server` process: the setup link the server prints
/// registers the admin's passkey (virtual authenticator), a user registers on the demo page in another tab, and the
/// event shows in the live log. Screenshots of the overview, users, user, settings and live-log pages go to
/// `build-artifacts/screenshots/` at the package root (`.ci/run` prints the path).
@Suite("Dashboard in headless Chromium")
struct DashboardBrowserTests {
    static let required = ProcessInfo.processInfo.environment["CI"] == "true"

    /// `build-artifacts/screenshots/` next to Package.swift.
    static var screenshots: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("build-artifacts/screenshots")
    }

    @Test(
        "admin setup through the printed link, a user ceremony in another tab appears in the live log, screenshots",
        .enabled(if: DemoPageBrowserTests.available || required, "chromium and chromedriver are not on PATH"),
        .timeLimit(.minutes(2)))
    func dashboard() async throws {
        guard let chromium = DemoPageBrowserTests.chromium, let chromedriver = DemoPageBrowserTests.chromedriver else {
            Issue.record("CI=true but chromium or chromedriver is not on PATH: .ci/run installs chromium and chromium-driver")
            return
        }
        let run = try BrowserRun(chromium: chromium, chromedriver: chromedriver, serverArguments: ["--webhook-allow-host", "127.0.0.1"])
        await run.run { page in
            try await Self.scenario(page, serverOutput: { run.server?.output() ?? "" })
        }
    }

    static func scenario(_ page: DemoPage, serverOutput: () -> String) async throws {
        let driver = page.driver
        // The server printed a one-time setup link at start (no admin yet).
        let output = serverOutput()
        let marker = "/dashboard/setup?token="
        guard let range = output.range(of: marker) else { throw ScenarioFailure(description: "no setup link printed:\n\(output)", sourceLocation: #_sourceLocation) }
        let token = output[range.upperBound...].prefix { !$0.isWhitespace }
        try check(token.hasPrefix("pai_"), "the setup token: \(token)")

        // Without a session the dashboard sends the browser to sign-in.
        try await driver.navigate(to: page.origin + "/dashboard")
        try check(try await currentURL(driver).hasSuffix("/dashboard/login"), "redirected to sign-in")

        // Set up the admin: a passkey on the virtual authenticator, then the overview.
        try await driver.navigate(to: page.origin + marker + token)
        try await driver.element("#create-admin").click()
        try await waitFor("the overview after setup") { try await currentURL(driver) == page.origin + "/dashboard" }
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)

        // The live log, listening.
        try await driver.navigate(to: page.origin + "/dashboard/log")
        try await waitFor("the live stream to connect") { try await driver.element("#live").property("textContent") == "live" }
        let logTab = try await driver.command("GET", "window").stringValue ?? ""

        // A user registers on the demo page in another tab.
        let newTab = try await driver.command("POST", "window/new", ["type": "tab"])
        let demoTab = newTab.objectValue?["handle"]?.stringValue ?? ""
        try await driver.command("POST", "window", ["handle": .string(demoTab)])
        // Virtual authenticators belong to one tab (DevTools target): the user's is another one.
        _ = try await driver.addVirtualAuthenticator(BrowserRun.authenticatorOptions)
        let ann = try await page.register(username: "ann")
        try check(ann["verified"] == true, "the user's registration: \(ann.resultText)")

        // Back in the log tab, the event is there without a reload.
        try await driver.command("POST", "window", ["handle": .string(logTab)])
        try await waitFor("the registration in the live log") {
            let text = try await driver.element("#events").text()
            return text.contains("registration.verify") && text.contains("ann")
        }
        try await driver.screenshot().write(to: screenshots.appendingPathComponent("live-log.png"))

        try await driver.navigate(to: page.origin + "/dashboard/users")
        try check(try await driver.element("table.users").text().contains("ann"), "ann in the users list")
        try await driver.screenshot().write(to: screenshots.appendingPathComponent("users.png"))
        try await driver.element("table.users a").click()
        try await waitFor("ann's page") { try await driver.element("table.passkeys").text().contains("device-bound") }
        let passkeys = try await driver.element("table.passkeys").text()
        try check(passkeys.contains("ES256") && !passkeys.contains("SQL"), "ann's passkey row: \(passkeys)")
        try await driver.screenshot().write(to: screenshots.appendingPathComponent("user.png"))
        // A recovery link for ann: its URL and a QR code of it, drawn on the page (the admin's check is fresh).
        try await driver.element("#make-link").click()
        try await waitFor("the link and its QR code") {
            let url = try await driver.element("#link-url").property("value")
            let drawn = try await driver.element("#link-qr svg path").property("tagName")
            return url.hasPrefix(page.origin + "/#link=pal_") && drawn.lowercased() == "path"
        }
        try await driver.command("POST", "execute/sync", ["script": "document.getElementById('link-qr').scrollIntoView()", "args": []])
        try await driver.screenshot().write(to: screenshots.appendingPathComponent("user-link.png"))
        try await driver.navigate(to: page.origin + "/dashboard/settings")
        try check(try await driver.element("main").text().contains("apple-app-site-association"), "the .well-known previews")
        try await driver.screenshot().write(to: screenshots.appendingPathComponent("settings.png"))

        // A webhook endpoint added from the Webhooks page: its secret is shown once, then it is listed without it.
        try await driver.navigate(to: page.origin + "/dashboard/webhooks")
        try await driver.element("#endpoint-url").type("http://127.0.0.1:9/passkey-hooks")
        try await driver.element("#endpoint-description").type("billing")
        try await driver.element("input[value='user.deleted']").click()
        try await driver.element("#add-endpoint").click()
        var secret = ""
        try await waitFor("the new endpoint's secret") {
            secret = try await driver.element("#endpoint-secret").property("value")
            return secret.hasPrefix("whsec_")
        }
        try await driver.navigate(to: page.origin + "/dashboard/webhooks")
        let endpoints = try await driver.element("table.endpoints").text()
        try check(endpoints.contains("/passkey-hooks") && endpoints.contains("user.deleted") && !endpoints.contains(secret), "the endpoint row: \(endpoints)")
        try await driver.screenshot().write(to: screenshots.appendingPathComponent("webhooks.png"))

        try await driver.navigate(to: page.origin + "/dashboard")
        try check(try await driver.element(".stats").text().contains("Users"), "the overview's totals")
        try await driver.screenshot().write(to: screenshots.appendingPathComponent("overview.png"))
        print("Dashboard screenshots: \(screenshots.path)")
    }

    static func currentURL(_ driver: WebDriver) async throws -> String {
        try await driver.command("GET", "url").stringValue ?? ""
    }

    /// Polls `condition` every 100 ms for at most 10 s.
    static func waitFor(_ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if (try? await condition()) == true { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ScenarioFailure(description: "\(what): not within 10 s", sourceLocation: sourceLocation)
    }
}
