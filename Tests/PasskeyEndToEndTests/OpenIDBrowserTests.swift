import Foundation
import PasskeyTestSupport
import PasskeyWire
import Testing

/// OpenID Connect clients we did not write sign in through a real `passkey-server` process run as an OpenID Provider
/// (`--oidc-issuer`): Authlib as a confidential client (RS256) and as a public client with PKCE (ES256), pyoidc as a
/// confidential client, each verifying the ID token with its own JOSE code against the discovery document and JWKS.
/// The passkey step is headless Chromium's virtual authenticator on the provider's sign-in page; the clients are added
/// with `passkey-server oidc-clients add`. The clients are `Examples/oidc-client/oidc_client.py`.
///
/// Needs chromium, chromedriver, and the PyPI packages authlib and oic (`.ci/run` installs them); with `CI=true` their
/// absence is a failure.
@Suite("OpenID Provider with Authlib and pyoidc in headless Chromium")
struct OpenIDBrowserTests {
    static let python = Executables.which("python3")
    static let librariesAvailable: Bool = {
        guard let python else { return false }
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", "import authlib, oic, requests"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()
    static let available = DemoPageBrowserTests.available && librariesAvailable
    static let required = ProcessInfo.processInfo.environment["CI"] == "true"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/oidc-client/oidc_client.py")

    @Test(
        "Authlib (confidential RS256, public PKCE ES256) and pyoidc sign in with a passkey, verify the ID token, call userinfo and refresh",
        .enabled(if: available || required, "chromium, chromedriver or the PyPI packages authlib and oic are missing"),
        .timeLimit(.minutes(3)))
    func clientsSignIn() async throws {
        guard Self.available else {
            Issue.record("CI=true but chromium, chromedriver, python3 or the PyPI packages authlib and oic are missing: .ci/run installs them")
            return
        }
        guard let chromium = DemoPageBrowserTests.chromium, let chromedriver = DemoPageBrowserTests.chromedriver, let python = Self.python else { return }
        let run = try BrowserRun(chromium: chromium, chromedriver: chromedriver)
        run.portArguments = { port in ["--oidc-issuer", "http://localhost:\(port)"] }
        await run.run { page in
            let issuer = page.origin
            let registered = try await page.register(username: "ann")
            let userID = registered["userId"]?.stringValue ?? ""
            try check(!userID.isEmpty, "registered: \(registered.resultText)")

            for (library, isPublic, algorithm) in [("authlib", false, "RS256"), ("authlib", true, "ES256"), ("pyoidc", false, "RS256"), ("pyoidc", false, "ES256")] {
                let port = try LocalPorts.free()
                let redirect = "http://127.0.0.1:\(port)/callback"
                let (clientID, secret) = try Self.addClient(
                    run, name: "\(library) \(isPublic ? "public" : "confidential") \(algorithm)", redirect: redirect, isPublic: isPublic, algorithm: algorithm)
                var arguments = [Self.script.path, "--library", library, "--issuer", issuer, "--client-id", clientID, "--port", String(port)]
                if let secret { arguments += ["--client-secret", secret] }
                let client = try ChildProcess(
                    name: "oidc-\(library)-\(isPublic ? "public" : "confidential")-\(algorithm)", executable: python, arguments: arguments, directory: run.folder)
                defer { client.terminate() }
                let authorize = try await Self.line(of: client, "authorize")
                try check(authorize.stringValue?.hasPrefix(issuer + "/oidc/authorize?") == true, "\(library) authorizes at our endpoint: \(authorize)")
                // The sign-in page's AutoFill request is answered by the virtual authenticator's passkey; after the first
                // client, the browser session answers without a ceremony.
                try await page.driver.navigate(to: authorize.stringValue ?? "")
                let result = try await Self.line(of: client, "result").objectValue ?? [:]
                try check(result["sub"]?.stringValue == userID, "\(library): the ID token's sub is the passkey's account: \(JSONValue.object(result).serialized())")
                try check(result["aud"]?.stringValue == clientID || result["aud"]?.arrayValue?.first?.stringValue == clientID, "\(library) aud: \(JSONValue.object(result).serialized())")
                try check(result["userinfo"]?.objectValue?["sub"]?.stringValue == userID, "\(library) userinfo: \(JSONValue.object(result).serialized())")
                try check(result["alg"]?.stringValue == algorithm, "\(library) ID token alg: \(JSONValue.object(result).serialized())")
                if library == "authlib" {
                    try check(result["alg"]?.stringValue == algorithm, "\(library) ID token alg: \(JSONValue.object(result).serialized())")
                    try check(result["amr"] == ["hwk", "user", "mfa"] && result["acr"] == "urn:passkey:mfa", "amr and acr: \(JSONValue.object(result).serialized())")
                    try check(result["refreshed_sub"]?.stringValue == userID, "the refreshed ID token: \(JSONValue.object(result).serialized())")
                    try check(result["replay_error"] == "invalid_grant" && result["after_replay_status"] == 401,
                              "a reused refresh token is refused and revokes the refreshed access token: \(JSONValue.object(result).serialized())")
                } else {
                    try check(result["issuer"]?.stringValue == issuer, "pyoidc read the discovery document: \(JSONValue.object(result).serialized())")
                }
            }
            try await Self.declineThirdParty(run, page)
        }
    }

    /// A third-party client, with the browser signed in already: the page asks only for consent (its screenshot is kept
    /// with the dashboard's), and Cancel sends the browser back with `access_denied`, its `state` and `iss`.
    static func declineThirdParty(_ run: BrowserRun, _ page: DemoPage) async throws {
        // A page that answers, so the browser really arrives there (this server's own /health will do).
        let redirect = page.origin + "/health"
        let (clientID, _) = try addClient(run, name: "Someone else's app", redirect: redirect, isPublic: false, algorithm: "RS256", thirdParty: true)
        var components = URLComponents(string: page.origin + "/oidc/authorize")
        components?.queryItems = [
            URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: clientID), URLQueryItem(name: "redirect_uri", value: redirect),
            URLQueryItem(name: "scope", value: "openid profile"), URLQueryItem(name: "state", value: "third-party"),
        ]
        try await page.driver.navigate(to: components?.string ?? "")
        let consent = try await page.driver.element("#consent").text()
        try check(consent.contains("Continue as ann"), "the consent page names the signed-in account: \(consent)")
        try FileManager.default.createDirectory(at: DashboardBrowserTests.screenshots, withIntermediateDirectories: true)
        try await page.driver.screenshot().write(to: DashboardBrowserTests.screenshots.appendingPathComponent("oidc-consent.png"))
        try await page.driver.element("#decline").click()
        let deadline = ContinuousClock.now + .seconds(10)
        var location = ""
        while ContinuousClock.now < deadline {
            location = try await page.driver.command("GET", "url").stringValue ?? ""
            if location.hasPrefix(redirect) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let returned = Dictionary(
            (URLComponents(string: location)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        try check(
            returned["error"] == "access_denied" && returned["state"] == "third-party" && returned["iss"] == page.origin,
            "Cancel returns access_denied to the client: \(location)")
    }

    /// `passkey-server oidc-clients add` on the run's database; returns the client id and secret it printed.
    static func addClient(
        _ run: BrowserRun, name: String, redirect: String, isPublic: Bool, algorithm: String, thirdParty: Bool = false
    ) throws -> (String, String?) {
        guard let executable = PasskeyServerLauncher.executable else { throw LaunchError(description: "passkey-server is not built") }
        let process = Process()
        let output = Pipe()
        process.executableURL = executable
        process.arguments = ["oidc-clients", "add", name, "--redirect-uri", redirect, "--id-token-algorithm", algorithm, "--database", "sqlite:" + run.database.path]
            + (isPublic ? ["--public"] : []) + (thirdParty ? ["--third-party"] : [])
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PASSKEY_") }
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        func value(_ name: String) -> String? {
            text.split(separator: "\n").first { $0.hasPrefix(name + ": ") }.map { String($0.dropFirst(name.count + 2)) }
        }
        guard process.terminationStatus == 0, let id = value("client_id") else {
            throw LaunchError(description: "oidc-clients add failed (\(process.terminationStatus)): \(text)")
        }
        return (id, value("client_secret"))
    }

    /// Waits (at most 30 s) for the client's JSON line with member `name`; an `error` line fails the scenario.
    static func line(of client: ChildProcess, _ name: String) async throws -> JSONValue {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            for line in client.output(limit: 100_000).split(separator: "\n") {
                guard let object = (try? JSONValue.parse(String(line)))?.objectValue else { continue }
                if let error = object["error"] { throw ScenarioFailure(description: "\(client.name): \(error)\n\(client.output())", sourceLocation: #_sourceLocation) }
                if let value = object[name] { return value }
            }
            if !client.isRunning { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ScenarioFailure(description: "\(client.name) printed no \(name):\n\(client.output())", sourceLocation: #_sourceLocation)
    }
}
