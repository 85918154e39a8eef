import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import PasskeyTestSupport
import PasskeyWire
import Testing

@Suite("passkey doctor against a real passkey-server", .serialized)
struct DoctorCommandTests {
    static let appID = "ABCDE12345.com.example.app"

    /// The findings of a `--json` run, by check id.
    struct Report {
        let status: Int32
        let ok: Bool?
        let findings: [(check: String, status: String, message: String, fix: String?)]

        init(_ run: CLIRun) throws {
            status = run.status
            let object = try JSONValue.parse(run.stdout).objectValue
            ok = object?["ok"]?.boolValue
            findings = (object?["findings"]?.arrayValue ?? []).compactMap { value in
                guard let item = value.objectValue, let check = item["check"]?.stringValue, let status = item["status"]?.stringValue,
                    let message = item["message"]?.stringValue
                else { return nil }
                return (check, status, message, item["fix"]?.stringValue)
            }
        }

        func statuses(_ check: String) -> [String] { findings.filter { $0.check == check }.map(\.status) }
        func messages(_ check: String) -> [String] { findings.filter { $0.check == check }.map(\.message) }
        var problems: [String] { findings.filter { $0.status == "problem" }.map(\.check) }
    }

    static func doctor(_ server: ServerProcess, _ extra: [String] = []) throws -> CLIRun {
        try CLIRun.run(["doctor", "--domain", "example.com", "--app-id", appID, "--base-url", server.url] + extra)
    }

    @Test("a correct configuration: the app is associated, the files are JSON, the iOS origin is accepted; exit 0")
    func correct() async throws {
        let server = try ServerProcess(arguments: [
            "--rp-id", "example.com", "--origin", "https://example.com", "--apple-app-id", Self.appID,
            "--android-app", "com.example.app=" + Array(repeating: "AB", count: 32).joined(separator: ":"),
            "--manage-url", "https://example.com/account/passkeys",
        ])
        defer { server.stop() }
        try await server.waitUntilHealthy()

        let run = try Self.doctor(server, ["--rp-id", "example.com", "--android-package", "com.example.app", "--json"])
        let report = try Report(run)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(report.ok == true)
        #expect(report.problems.isEmpty)
        #expect(report.statuses("rp-id") == ["ok"])
        #expect(report.statuses("aasa") == ["ok"])
        #expect(report.statuses("aasa-app-id") == ["ok"])
        #expect(report.messages("aasa-app-id") == ["webcredentials.apps lists \(Self.appID)"])
        #expect(report.statuses("assetlinks") == ["ok"] && report.statuses("assetlinks-app") == ["ok"])
        #expect(report.statuses("webauthn") == ["ok"])
        #expect(report.messages("webauthn").first?.contains("https://example.com") == true)
        #expect(report.statuses("base-url") == ["info"])
        #expect(report.statuses("passkey-endpoints") == ["ok"])
        #expect(report.messages("passkey-endpoints") == ["passkey-endpoints names manage https://example.com/account/passkeys"])

        // Text output says the same to a person.
        let text = try Self.doctor(server)
        #expect(text.status == 0)
        #expect(text.stdout.contains("✓ [aasa-app-id] webcredentials.apps lists \(Self.appID)"), "\(text.stdout)")
        #expect(text.stdout.contains("no problems found"))
    }

    @Test("no app configured: webcredentials.apps is empty and the fix names --apple-app-id; the iOS origin is missing too; exit 1")
    func noAppID() async throws {
        let server = try ServerProcess(arguments: ["--rp-id", "example.com", "--origin", "https://www.example.com"])
        defer { server.stop() }
        try await server.waitUntilHealthy()

        let run = try Self.doctor(server, ["--json"])
        let report = try Report(run)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(report.ok == false)
        #expect(report.problems == ["aasa-app-id"])
        #expect(report.messages("aasa-app-id") == ["webcredentials.apps is empty: no app may use passkeys for example.com"])
        #expect(report.findings.first { $0.check == "aasa-app-id" }?.fix?.contains("--apple-app-id \(Self.appID)") == true)
        // passkey-server lists the origins it accepts: https://example.com (what iOS reports) is not among them.
        #expect(report.statuses("webauthn") == ["warning"])
        #expect(report.findings.first { $0.check == "webauthn" }?.fix == "if this is passkey-server, add --origin https://example.com, or app sign-ins fail with origin_mismatch")
        // No Android app asked for: an empty assetlinks.json is fine.
        #expect(!report.statuses("assetlinks").contains("problem"))

        let text = try Self.doctor(server)
        #expect(text.status == 1)
        #expect(text.stdout.contains("✗ [aasa-app-id] webcredentials.apps is empty"), "\(text.stdout)")
        #expect(text.stdout.contains("fix: add \(Self.appID) to webcredentials.apps"))
        #expect(text.stdout.contains("1 problem found"))
    }

    @Test("another app configured: the near miss is named (other team ID), the RP ID mismatch and a missing Android app are problems")
    func differentAppID() async throws {
        let server = try ServerProcess(arguments: ["--rp-id", "example.com", "--origin", "https://example.com", "--apple-app-id", "ZZZZZ99999.com.example.app"])
        defer { server.stop() }
        try await server.waitUntilHealthy()

        let report = try Report(try Self.doctor(server, ["--json", "--rp-id", "auth.example.org", "--android-package", "com.example.app"]))
        #expect(report.status == 1)
        #expect(Set(report.problems) == ["rp-id", "aasa-app-id", "assetlinks-app"])
        #expect(
            report.messages("aasa-app-id") == [
                "webcredentials.apps does not list \(Self.appID) (it lists ZZZZZ99999.com.example.app: another team ID for the same bundle)"
            ])
        #expect(report.messages("rp-id") == ["the RP ID auth.example.org is neither example.com nor a parent domain of it"])
        #expect(report.messages("assetlinks-app") == ["assetlinks.json does not list the Android app com.example.app"])

        // Checking the subdomain of the RP ID: iOS looks at the RP ID's domain, and says so.
        let sub = try Report(try CLIRun.run(["doctor", "--domain", "www.example.com", "--app-id", "ZZZZZ99999.com.example.app", "--rp-id", "example.com", "--base-url", server.url, "--json"]))
        #expect(sub.problems == ["rp-id"])
        #expect(sub.findings.first { $0.check == "rp-id" }?.fix?.contains("webcredentials:example.com") == true)
    }

    @Test("an unreachable server is a network error (exit 3); malformed arguments are usage errors (exit 2)")
    func unreachableAndUsage() throws {
        let port = try LocalPorts.free()
        let base = "http://127.0.0.1:\(port)"
        let run = try CLIRun.run(["doctor", "--domain", "example.com", "--app-id", Self.appID, "--base-url", base, "--json", "--timeout", "5"])
        #expect(run.status == 3, "\(run.stdout)\(run.stderr)")
        let failure = try JSONValue.parse(run.stdout).objectValue
        #expect(failure?["ok"] == false && failure?["error"] == "network")
        // In words, not Foundation's "NSURLErrorDomain error -1004".
        #expect(failure?["message"]?.stringValue == "cannot reach \(base) (connection refused)", "\(run.stdout)")
        let text = try CLIRun.run(["doctor", "--domain", "example.com", "--app-id", Self.appID, "--base-url", base, "--timeout", "5"])
        #expect(text.status == 3)
        #expect(text.stderr.hasPrefix("passkey doctor: cannot reach \(base) ("), "\(text.stderr)")
        #expect(!text.stdout.contains("fix: serve"))

        for arguments in [
            ["doctor", "--domain", "https://example.com/", "--app-id", Self.appID],
            ["doctor", "--domain", "example.com", "--app-id", "com.example.app"],
            ["doctor", "--domain", "example.com"],
            ["doctor", "--domain", "example.com", "--app-id", Self.appID, "--base-url", "ftp://x"],
            ["doctor", "--domain", "example.com", "--app-id", Self.appID, "--android-fingerprint", "AB"],
        ] {
            let usage = try CLIRun.run(arguments)
            #expect(usage.status == 2, "\(arguments): \(usage.stderr)")
        }
        #expect(try CLIRun.run(["doctor", "--domain", "example.com", "--app-id", "com.example.app"]).stderr.contains("10-character team ID"))
        #expect(try CLIRun.run(["doctor", "--domain", "example.com.", "--app-id", Self.appID]).stderr.contains("without a trailing dot"))
        #expect(
            try CLIRun.run(["doctor", "--domain", "example.com"]).stderr.hasPrefix(
                "Error: give --app-id TEAMID.bundle.id (iOS), --android-package PACKAGE (Android), or both\n"))
        let fingerprint = Array(repeating: "AB", count: 32).joined(separator: ":")
        for bad in ["zz", String(fingerprint.dropLast(3)), fingerprint.replacingOccurrences(of: "AB", with: "ZZ"), fingerprint + ":AB"] {
            let refused = try CLIRun.run(
                ["doctor", "--domain", "example.com", "--android-package", "com.example.app", "--android-fingerprint", bad])
            #expect(refused.status == 2)
            #expect(
                refused.stderr.hasPrefix(
                    "Error: --android-fingerprint must be a SHA-256 fingerprint, 32 hex byte pairs separated by colons (AB:CD:…), got \(bad)\n"),
                "\(refused.stderr)")
        }
    }

    @Test("an Android-only check needs no --app-id and does not check the Apple file")
    func androidOnly() async throws {
        let fingerprint = Array(repeating: "AB", count: 32).joined(separator: ":")
        let server = try ServerProcess(arguments: ["--rp-id", "example.com", "--origin", "https://example.com", "--android-app", "com.example.app=" + fingerprint])
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let run = try CLIRun.run([
            "doctor", "--domain", "example.com", "--base-url", server.url, "--android-package", "com.example.app",
            "--android-fingerprint", fingerprint.lowercased(), "--json",
        ])
        let report = try Report(run)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(report.statuses("assetlinks-app") == ["ok"])
        #expect(report.messages("aasa") == ["no --app-id: apple-app-site-association is not checked"])
        #expect(report.statuses("aasa-app-id").isEmpty)
    }
}

/// What a misconfigured proxy or web server in front of the passkey server does, served in process.
@Suite("passkey doctor against a misconfigured web server", .serialized)
struct DoctorMisconfiguredServerTests {
    static let appID = DoctorCommandTests.appID

    /// Runs `passkey` on a thread of its own: waiting for the process must not block the concurrency pool that serves
    /// the in-process server's requests.
    static func doctor(_ arguments: [String]) async throws -> DoctorCommandTests.Report {
        try DoctorCommandTests.Report(try await doctorRun(arguments))
    }

    static func doctorRun(_ arguments: [String]) async throws -> CLIRun {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<CLIRun, any Error>) in
            Thread { continuation.resume(with: Result { try CLIRun.run(["doctor", "--domain", "example.com", "--app-id", appID] + arguments) }) }.start()
        }
    }

    static func serve(_ configure: (Router<BasicRequestContext>) -> Void, _ body: @escaping @Sendable (String) async throws -> Void) async throws {
        let router = Router()
        configure(router)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await body("http://127.0.0.1:\(port)")
        }
    }

    static func response(_ status: HTTPResponse.Status, _ contentType: String?, _ body: String) -> Response {
        var headers = HTTPFields()
        if let contentType { headers[.contentType] = contentType }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    @Test("a redirect, an HTML page from a single-page-app fallback, and a missing related-origins file, each with its fix")
    func redirectAndHTML() async throws {
        try await Self.serve({ router in
            router.get(".well-known/apple-app-site-association") { _, _ in
                var headers = HTTPFields()
                headers[.location] = "https://www.example.com/.well-known/apple-app-site-association"
                return Response(status: .movedPermanently, headers: headers)
            }
            router.get(".well-known/assetlinks.json") { _, _ in Self.response(.ok, "text/html; charset=utf-8", "<!doctype html><html><body>app</body></html>") }
            router.get(".well-known/webauthn") { _, _ in Self.response(.notFound, "text/plain", "not found") }
            router.get(".well-known/passkey-endpoints") { _, _ in
                Self.response(.ok, "application/json", #"{"enroll": "javascript:alert(1)", "manage": 5, "prfUsageDetails": "https://example.com/prf"}"#)
            }
        }) { base in
            let report = try await Self.doctor(["--base-url", base, "--android-package", "com.example.app", "--json"])
            #expect(report.status == 1)
            #expect(report.statuses("aasa") == ["problem"])
            #expect(report.messages("aasa").first?.contains("redirects (HTTP 301 to https://www.example.com/.well-known/apple-app-site-association)") == true)
            #expect(report.findings.first { $0.check == "aasa" }?.fix?.contains("does not follow redirects") == true)
            #expect(report.statuses("assetlinks") == ["problem"])
            #expect(report.messages("assetlinks").first?.contains("answered an HTML page (text/html)") == true)
            #expect(report.findings.first { $0.check == "assetlinks" }?.fix?.contains("single-page-app fallback") == true)
            #expect(report.statuses("webauthn") == ["info"])
            #expect(report.statuses("passkey-endpoints") == ["warning", "warning", "ok"])
            #expect(report.messages("passkey-endpoints") == [
                "passkey-endpoints' enroll is not an absolute https:// URL", "passkey-endpoints' manage is not an absolute https:// URL",
                "passkey-endpoints names prfUsageDetails https://example.com/prf",
            ])
        }
    }

    @Test("Apple's CDN copy: an older copy without the app, no copy at all, and a copy that lists it; more than five related sites")
    func appleCDN() async throws {
        let current = #"{"webcredentials": {"apps": ["\#(Self.appID)"]}}"#
        try await Self.serve({ router in
            router.get(".well-known/apple-app-site-association") { _, _ in Self.response(.ok, "application/json", current) }
            router.get("old/example.com") { _, _ in Self.response(.ok, "application/json", #"{"webcredentials": {"apps": ["ABCDE12345.com.example.other"]}}"#) }
            router.get("fresh/example.com") { _, _ in Self.response(.ok, "application/json", current) }
            router.get("html/example.com") { _, _ in Self.response(.ok, "text/html", "<!doctype html><p>login</p>") }
            router.get(".well-known/webauthn") { _, _ in
                Self.response(.ok, "application/json", #"{"origins": ["https://example.com", "https://a.org", "https://b.org", "https://c.org", "https://d.org", "https://e.org"]}"#)
            }
        }) { base in
            let old = try await Self.doctor(["--base-url", base, "--apple-cdn", base + "/old", "--json"])
            #expect(old.statuses("aasa-cdn") == ["warning"])
            #expect(old.messages("aasa-cdn") == [
                "Apple's CDN copy does not list \(Self.appID) yet, while the domain's own file does: devices still read the older copy (it lists ABCDE12345.com.example.other)"
            ])
            #expect(old.findings.first { $0.check == "aasa-cdn" }?.fix?.contains("?mode=developer") == true)
            #expect(old.status == 0, "a stale copy is a warning: the domain itself is right")
            let missing = try await Self.doctor(["--base-url", base, "--apple-cdn", base + "/none/", "--json"])
            #expect(missing.statuses("aasa-cdn") == ["warning"])
            #expect(missing.messages("aasa-cdn").first?.hasPrefix("Apple's CDN has no copy of apple-app-site-association for example.com") == true)
            let fresh = try await Self.doctor(["--base-url", base, "--apple-cdn", base + "/fresh", "--json"])
            #expect(fresh.statuses("aasa-cdn") == ["ok"])
            // A local check (--base-url) without --apple-cdn does not ask Apple.
            let broken = try await Self.doctor(["--base-url", base, "--apple-cdn", base + "/html", "--json"])
            #expect(broken.statuses("aasa-cdn") == ["warning"])
            #expect(broken.messages("aasa-cdn").first?.contains("is not JSON (text/html") == true, "\(broken.messages("aasa-cdn"))")
            let local = try await Self.doctor(["--base-url", base, "--json"])
            #expect(local.statuses("aasa-cdn") == ["info"])
            #expect(local.messages("aasa-cdn") == ["Apple's CDN copy not checked (a local --base-url check; --apple-cdn URL asks it)"])
            #expect(local.statuses("webauthn-labels") == ["warning"])
            #expect(local.messages("webauthn-labels") == [
                "the related origins name more than 5 sites (example, a, b, c, d, e): browsers may ignore https://e.org"
            ])
        }
    }

    @Test("JSON served as text/plain, an app ID that differs only in case, and a file without webcredentials")
    func contentTypeAndShape() async throws {
        try await Self.serve({ router in
            router.get(".well-known/apple-app-site-association") { _, _ in
                Self.response(.ok, "text/plain", #"{"webcredentials": {"apps": ["ABCDE12345.com.Example.App"]}}"#)
            }
            router.get(".well-known/assetlinks.json") { _, _ in Self.response(.ok, "application/json", "{}") }
        }) { base in
            let report = try await Self.doctor(["--base-url", base, "--json"])
            #expect(report.status == 1)
            #expect(report.messages("aasa") == ["apple-app-site-association is served as text/plain, not application/json"])
            #expect(report.statuses("aasa") == ["problem"])
            #expect(
                report.messages("aasa-app-id") == [
                    "webcredentials.apps does not list \(Self.appID) (it lists ABCDE12345.com.Example.App: app IDs are case-sensitive)"
                ])
            // A malformed assetlinks.json is worth a warning, not a failure, when no Android app is checked.
            #expect(report.statuses("assetlinks") == ["warning"])
            #expect(report.problems == ["aasa", "aasa-app-id"])
        }
        try await Self.serve({ router in
            router.get(".well-known/apple-app-site-association") { _, _ in Self.response(.ok, "application/json", #"{"applinks": {"details": []}}"#) }
        }) { base in
            let report = try await Self.doctor(["--base-url", base, "--json"])
            #expect(report.problems == ["aasa-webcredentials"])
            #expect(report.statuses("assetlinks") == ["info"])
        }
    }

    @Test("a server that trickles a file is given up on after --timeout in all, not only when it falls silent")
    func trickle() async throws {
        try await Self.serve({ router in
            router.get(".well-known/apple-app-site-association") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: ResponseBody { writer in
                        try await writer.write(ByteBuffer(string: "{\"webcredentials\": {\"apps\": ["))
                        for _ in 0..<40 {
                            try await Task.sleep(for: .milliseconds(250))
                            try await writer.write(ByteBuffer(string: " "))
                        }
                        try await writer.write(ByteBuffer(string: "]}}"))
                        try await writer.finish(nil)
                    })
            }
        }) { base in
            let started = ContinuousClock.now
            let report = try await Self.doctor(["--base-url", base, "--timeout", "2", "--json"])
            #expect(ContinuousClock.now - started < .seconds(8), "the 10 s trickle was cut off")
            #expect(report.messages("aasa").first?.contains("no complete answer within 2 s") == true, "\(report.findings)")
        }
    }

    @Test("hostile files: what a site serves is escaped in text output (no terminal controls, no forged lines) and read only up to 1 MiB")
    func hostileFiles() async throws {
        let forged = "\u{1b}[2J\u{1b}[31mEVIL\n✓ [aasa-app-id] all good"
        let apps = JSONValue.object(["webcredentials": ["apps": .array([.string(forged)])]]).serialized()
        let huge = "{\"pad\": \"" + String(repeating: "x", count: 3 << 20) + "\"}"
        try await Self.serve({ router in
            router.get(".well-known/apple-app-site-association") { _, _ in Self.response(.ok, "application/json", apps) }
            router.get(".well-known/assetlinks.json") { _, _ in Self.response(.ok, "application/json", huge) }
        }) { base in
            let text = try await Self.doctorRun(["--base-url", base, "--android-package", "com.example.app"])
            #expect(text.status == 1)
            #expect(!text.stdout.contains("\u{1b}"), "no escape sequence reaches the terminal")
            #expect(text.stdout.contains("\\u{1b}[2J"), "it is shown escaped: \(text.stdout)")
            #expect(!text.stdout.split(separator: "\n").contains { $0.hasPrefix("✓ [aasa-app-id] all good") }, "no forged line")
            #expect(text.stdout.utf8.count < 20_000, "a 3 MiB file is not echoed")

            let report = try await Self.doctor(["--base-url", base, "--android-package", "com.example.app", "--json"])
            #expect(report.statuses("assetlinks") == ["problem"])
            #expect(report.messages("assetlinks").first?.contains("larger than 1048576 bytes (not read further)") == true, "\(report.findings)")
        }
    }
}
