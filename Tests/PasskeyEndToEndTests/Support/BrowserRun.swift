import Foundation
import PasskeyTestSupport
import PasskeyWire
import Testing

/// A check in the scenario that did not hold; the run adds the page, server and browser state to it.
struct ScenarioFailure: Error, CustomStringConvertible {
    let description: String
    let sourceLocation: SourceLocation
}

/// Fails the scenario at the first broken expectation: later steps depend on earlier ones, so going on would only
/// pile up noise. The failure is recorded with diagnostics by ``BrowserRun``.
func check(_ condition: Bool, _ message: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    if !condition { throw ScenarioFailure(description: message(), sourceLocation: sourceLocation) }
}

/// One end-to-end run: a temporary folder, a `passkey-server` process, chromedriver, a headless Chromium session with a
/// virtual authenticator. Everything it starts it stops, also when the scenario fails; on failure it keeps the folder
/// (server and chromedriver logs, a screenshot, the database) and says where it is.
final class BrowserRun {
    let chromium: URL
    let chromedriver: URL
    let folder: URL
    let database: URL
    private(set) var server: ChildProcess?
    private(set) var driverProcess: ChildProcess?
    private(set) var driverPort: Int?
    private(set) var driver: WebDriver?
    private(set) var page: DemoPage?
    /// The server's flags beyond its port and database, and the virtual authenticator's options.
    let serverArguments: [String]
    /// Flags that name the server's own port (an OpenID issuer on its origin).
    var portArguments: (Int) -> [String] = { _ in [] }
    let authenticator: JSONValue

    /// Chromium's flags: headless, and what it needs to run as root in a container.
    static let browserArguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900"]

    /// A CTAP2 platform authenticator with resident keys and user verification that always consents and verifies.
    static let authenticatorOptions: JSONValue = [
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": true, "hasUserVerification": true,
        "isUserConsenting": true, "isUserVerified": true,
    ]

    init(chromium: URL, chromedriver: URL, serverArguments: [String] = [], authenticator: JSONValue = BrowserRun.authenticatorOptions) throws {
        self.chromium = chromium
        self.chromedriver = chromedriver
        self.serverArguments = serverArguments
        self.authenticator = authenticator
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-e2e-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        database = folder.appendingPathComponent("e2e.sqlite")
    }

    /// Runs `scenario` on the demo page in a fresh ``BrowserRun`` (its database beside it). Without chromium or
    /// chromedriver on PATH (a test enabled only because `CI=true`), records that instead: CI never skips them silently.
    static func demoPage(
        serverArguments: [String] = [], authenticator: JSONValue = BrowserRun.authenticatorOptions, _ scenario: (DemoPage, URL) async throws -> Void
    ) async throws {
        guard let chromium = DemoPageBrowserTests.chromium, let chromedriver = DemoPageBrowserTests.chromedriver else {
            let missing = [DemoPageBrowserTests.chromium == nil ? "chromium" : nil, DemoPageBrowserTests.chromedriver == nil ? "chromedriver" : nil]
                .compactMap { $0 }
            let verb = missing.count == 1 ? "is" : "are"
            Issue.record("CI=true but \(missing.joined(separator: " and ")) \(verb) not on PATH: .ci/run installs chromium and chromium-driver")
            return
        }
        let run = try BrowserRun(chromium: chromium, chromedriver: chromedriver, serverArguments: serverArguments, authenticator: authenticator)
        await run.run { page in try await scenario(page, run.database) }
    }

    /// Starts everything, runs `scenario` on the demo page, records any failure with diagnostics, and cleans up.
    func run(_ scenario: (DemoPage) async throws -> Void) async {
        var failed = false
        do {
            let serverPort = try LocalPorts.free()
            server = try await PasskeyServerLauncher.start(
                port: serverPort, database: database, directory: folder, arguments: serverArguments + portArguments(serverPort))
            let (driverProcess, driverPort) = try await ChromeDriverLauncher.startOnFreePort(executable: chromedriver, directory: folder)
            self.driverProcess = driverProcess
            self.driverPort = driverPort
            let driver = try await WebDriver.newSession(port: driverPort, browser: chromium, arguments: Self.browserArguments)
            self.driver = driver
            let authenticator = try await driver.addVirtualAuthenticator(self.authenticator)
            let page = DemoPage(driver: driver, origin: "http://localhost:\(serverPort)", authenticator: authenticator)
            self.page = page
            try await scenario(page)
        } catch let failure as ScenarioFailure {
            failed = true
            Issue.record(Comment(rawValue: "\(failure.description)\n\n\(await diagnostics())"), sourceLocation: failure.sourceLocation)
        } catch {
            failed = true
            Issue.record(Comment(rawValue: "\(error)\n\n\(await diagnostics())"))
        }
        await cleanUp(keepFolder: failed)
    }

    /// The page's status and result, a screenshot, and the server's and chromedriver's output.
    func diagnostics() async -> String {
        var lines: [String] = []
        if let page {
            let status = (try? await page.driver.element("#status").text()) ?? "(unreadable)"
            let result = (try? await page.driver.element("#result").text()) ?? "(unreadable)"
            lines.append("page #status: \(status)")
            lines.append("page #result: \(result)")
        }
        if let driver {
            // Best effort: bring the result into the viewport first (WebDriver scripts are not subject to the page's CSP).
            _ = try? await driver.command("POST", "execute/sync", ["script": "document.getElementById('status')?.scrollIntoView()", "args": []])
            let file = folder.appendingPathComponent("failure.png")
            do {
                try await driver.screenshot().write(to: file)
                lines.append("screenshot: \(file.path)")
            } catch {
                lines.append("screenshot: not taken (\(error))")
            }
        }
        lines.append("kept for inspection: \(folder.path)")
        if let server { lines.append("passkey-server output:\n\(server.output())") }
        if let driverProcess { lines.append("chromedriver output (last lines):\n\(driverProcess.output(limit: 2_000))") }
        print("End-to-end test failed: screenshot and logs kept in \(folder.path)")
        return lines.joined(separator: "\n")
    }

    /// Closes the browser through chromedriver (terminating chromedriver alone leaves Chromium running), then stops
    /// chromedriver and the server. The folder goes unless the run failed.
    func cleanUp(keepFolder: Bool) async {
        if let driver { await driver.delete() }
        if let driverPort, driverProcess?.isRunning == true { await WebDriver.shutdown(port: driverPort) }
        driverProcess?.terminate()
        server?.terminate()
        if !keepFolder { try? FileManager.default.removeItem(at: folder) }
    }
}

/// The demo page at `/`, driven like a person would: type, click, read the status line and the result.
struct DemoPage: Sendable {
    let driver: WebDriver
    let origin: String
    let authenticator: String

    /// What a ceremony left on the page.
    struct Outcome {
        let status: String
        let resultText: String
        let result: JSONObject

        subscript(_ name: String) -> JSONValue? { result[name] }
    }

    /// Loads the page afresh, so `#status` has no class until the next ceremony ends. AutoFill is off: the virtual
    /// authenticator would answer its conditional request at once and race the buttons (see demo.js).
    func open() async throws {
        try await driver.navigate(to: origin + "/?autofill=off")
        let status = try await driver.element("#status")
        let className = try await status.property("className")
        let text = try await status.text()
        try check(className.isEmpty, "a freshly loaded page shows no outcome yet, but #status is \(className): \(text)")
    }

    func register(username: String?, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Outcome {
        try await open()
        let field = try await driver.element("#register-username")
        try await field.clear()
        if let username { try await field.type(username) }
        try await driver.element("#register-button").click()
        return try await outcome(of: "registration", sourceLocation: sourceLocation)
    }

    func signIn(username: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Outcome {
        try await open()
        let field = try await driver.element("#signin-username")
        try await field.clear()
        try await field.type(username)
        try await driver.element("#signin-button").click()
        return try await outcome(of: "sign-in with a username", sourceLocation: sourceLocation)
    }

    func signInWithoutUsername(sourceLocation: SourceLocation = #_sourceLocation) async throws -> Outcome {
        try await open()
        try await driver.element("#signin-discoverable-button").click()
        return try await outcome(of: "sign-in without a username", sourceLocation: sourceLocation)
    }

    /// Loads the page with AutoFill on: its conditional request starts at once, and Chromium's virtual authenticator
    /// answers it with a passkey it holds, as a person picking the suggestion in the username field would.
    func signInWithAutoFill(sourceLocation: SourceLocation = #_sourceLocation) async throws -> Outcome {
        try await driver.navigate(to: origin + "/")
        return try await outcome(of: "sign-in through AutoFill", sourceLocation: sourceLocation)
    }

    /// A sign-in without a username that the server refuses: the page's error and the answer's body.
    func refusedSignInWithoutUsername(sourceLocation: SourceLocation = #_sourceLocation) async throws -> Outcome {
        try await open()
        try await driver.element("#signin-discoverable-button").click()
        return try await outcome(of: "refused sign-in without a username", expecting: "error", sourceLocation: sourceLocation)
    }

    /// Polls `#status` (every 100 ms, at most 10 s) until the page marks the ceremony `ok` or `error`; the other mark
    /// than `expecting`, or a timeout, fails the scenario.
    func outcome(of ceremony: String, expecting: String = "ok", sourceLocation: SourceLocation) async throws -> Outcome {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let status = try await driver.element("#status")
            let className = try await status.property("className")
            if className == "ok" || className == "error" {
                let statusText = try await status.text()
                let resultText = try await driver.element("#result").text()
                try check(className == expecting, "\(ceremony) ended \(className) on the page: \(statusText)", sourceLocation: sourceLocation)
                let result = (try? JSONValue.parse(resultText))?.objectValue
                try check(result != nil, "\(ceremony): #result is not a JSON object: \(resultText)", sourceLocation: sourceLocation)
                return Outcome(status: statusText, resultText: resultText, result: result ?? [:])
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ScenarioFailure(description: "\(ceremony): no outcome on the page within 10 s", sourceLocation: sourceLocation)
    }

    /// The virtual authenticator's credentials.
    func storedCredentials() async throws -> [JSONObject] {
        try await driver.credentials(authenticator: authenticator)
    }

    func removeCredential(_ credentialID: String) async throws {
        try await driver.removeCredential(credentialID, authenticator: authenticator)
    }

    func addCredential(_ credential: JSONObject) async throws {
        try await driver.addCredential(credential, authenticator: authenticator)
    }

    /// Polls the virtual authenticator (every 100 ms, at most 5 s) until `condition` holds for its credentials' IDs
    /// (base64url); returns them either way.
    func credentialIDs(eventually condition: ([String]) -> Bool) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(5)
        var ids: [String] = []
        repeat {
            ids = try await storedCredentials().compactMap { $0["credentialId"]?.stringValue }.map(base64URL)
            if condition(ids) { return ids }
            try await Task.sleep(for: .milliseconds(100))
        } while ContinuousClock.now < deadline
        return ids
    }
}

/// base64url without padding, whichever base64 alphabet the input used.
func base64URL(_ text: String) -> String {
    String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 }.filter { $0 != "=" })
}
