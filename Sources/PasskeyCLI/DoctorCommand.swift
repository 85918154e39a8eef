import ArgumentParser
import Foundation
import PasskeyClient
import PasskeyWire

/// `passkey doctor`: checks, from outside, what an iOS (and Android) app needs from the RP ID's domain before passkeys
/// can work: the association files, served the way Apple's CDN and Google require, listing the app.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check a domain's apple-app-site-association, assetlinks.json and related origins for an app.",
        discussion: """
            Fetches https://DOMAIN/.well-known/apple-app-site-association, /.well-known/assetlinks.json and \
            /.well-known/webauthn without following redirects, and checks status, content type, JSON shape, that \
            webcredentials.apps lists the app ID (with --app-id), the RP ID against the domain, and (with \
            --android-package) the Android app; give --app-id, --android-package or both. With --app-id it also \
            compares Apple's CDN copy, which devices read, and it warns when the related origins name more than five \
            sites. Every finding says what to fix. --base-url fetches from another address (for example a local \
            passkey-server at http://localhost:8080) while checking against DOMAIN; the CDN is then asked only with \
            --apple-cdn.

            Exit status: 0 no problems (warnings allowed), 1 problems found (including a file that cannot be fetched), \
            2 usage error, 3 network error (no file could be fetched: the server cannot be reached).
            """)

    @Option(name: .long, help: "The RP ID's domain, as in the entitlement webcredentials:DOMAIN (for example example.com).")
    var domain: String

    @Option(name: .customLong("app-id"), help: "The iOS app: TEAMID.bundle.id (repeatable); needed for the Apple check.")
    var appIDs: [String] = []

    @Option(name: .customLong("rp-id"), help: "The RP ID the server uses, if it may differ from --domain.")
    var rpID: String?

    @Option(name: .customLong("base-url"), help: "Fetch from this base URL instead of https://DOMAIN (for example http://localhost:8080).")
    var baseURL: String?

    @Option(
        name: .customLong("apple-cdn"),
        help: "Where Apple's CDN copies of association files are fetched from (default https://app-site-association.cdn-apple.com/a/v1; checked unless --base-url is given without it).")
    var appleCDN: String?

    @Option(name: .customLong("android-package"), help: "Also check assetlinks.json for this Android package.")
    var androidPackage: String?

    @Option(
        name: .customLong("android-fingerprint"),
        help: "A SHA-256 signing-certificate fingerprint the Android app must list, 32 hex byte pairs separated by colons (repeatable).")
    var androidFingerprints: [String] = []

    /// `.unconditional` so a negative value reaches validate() and gets the range message (see BenchCommand).
    @Option(name: .long, parsing: .unconditional, help: "Seconds to wait for each file.")
    var timeout: Double = 10

    @Flag(name: .long, help: "Print one JSON object instead of text.")
    var json = false

    func validate() throws {
        if domain.hasSuffix(".") {
            throw ValidationError("--domain takes the domain without a trailing dot (example.com, not example.com.), got \(domain)")
        }
        guard DoctorChecks.isDomain(domain.lowercased()) else {
            throw ValidationError("--domain must be a bare domain such as example.com (no scheme, port or path), got \(domain)")
        }
        // The app ID is what the Apple check looks for; an Android-only check needs only the package.
        guard !appIDs.isEmpty || androidPackage != nil else {
            throw ValidationError("give --app-id TEAMID.bundle.id (iOS), --android-package PACKAGE (Android), or both")
        }
        for appID in appIDs where !DoctorChecks.isAppID(appID) {
            throw ValidationError("--app-id must be TEAMID.bundle.id with the 10-character team ID, got \(appID)")
        }
        if let rpID, !DoctorChecks.isDomain(rpID.lowercased()) { throw ValidationError("--rp-id must be a bare domain, got \(rpID)") }
        for (flag, value) in [("--base-url", baseURL), ("--apple-cdn", appleCDN)] {
            guard let value else { continue }
            guard let url = URL(string: value), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw ValidationError("\(flag) must be an http:// or https:// URL, got \(value)")
            }
        }
        if !androidFingerprints.isEmpty, androidPackage == nil { throw ValidationError("--android-fingerprint needs --android-package") }
        for fingerprint in androidFingerprints where !DoctorChecks.isSHA256Fingerprint(fingerprint) {
            throw ValidationError(
                "--android-fingerprint must be a SHA-256 fingerprint, 32 hex byte pairs separated by colons (AB:CD:…), got \(fingerprint)")
        }
        guard timeout > 0, timeout <= 120 else {
            throw ValidationError("--timeout must be more than 0 and at most 120 seconds, got \(JSONValue.number(timeout).serialized())")
        }
    }

    func run() async throws {
        let domain = domain.lowercased()
        var trimmed = baseURL ?? "https://\(domain)"
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        let base = trimmed
        let expectations = DoctorExpectations(
            domain: domain, appIDs: appIDs, rpID: rpID, androidPackage: androidPackage, androidFingerprints: androidFingerprints)

        let timeout = timeout
        // What devices really read: Apple's CDN copy, unless the app runs with ?mode=developer. Not fetched for a
        // local --base-url check (the CDN has nothing to say about a server that is not online yet), unless asked.
        var cdn = appleCDN ?? (baseURL == nil ? DoctorChecks.appleCDN : nil)
        while cdn?.hasSuffix("/") == true { cdn?.removeLast() }
        let cdnURL = appIDs.isEmpty ? nil : cdn.map { $0 + "/" + domain }
        async let cdnCopy: Result<FetchedDocument, FetchFailure>? = if let cdnURL { await DoctorFetch.get(cdnURL, timeout: timeout) } else { nil }
        async let aasa = DoctorFetch.get(base + "/.well-known/apple-app-site-association", timeout: timeout)
        async let links = DoctorFetch.get(base + "/.well-known/assetlinks.json", timeout: timeout)
        async let related = DoctorFetch.get(base + "/.well-known/webauthn", timeout: timeout)
        async let endpoints = DoctorFetch.get(base + "/.well-known/passkey-endpoints", timeout: timeout)
        let fetched = (aasa: await aasa, links: await links, related: await related, endpoints: await endpoints)
        // No file answered at all: the server is not reachable, a network error (exit 3) like in every subcommand,
        // not three findings telling to serve the files.
        if case .failure(let failure) = fetched.aasa, case .failure = fetched.links, case .failure = fetched.related {
            throw CeremonyFailure.report(
                PasskeyError(.network, stage: .network, failure.reason), command: "doctor", json: json,
                explanation: "cannot reach \(base) (\(failure.reason))")
        }
        var findings = DoctorChecks.relyingPartyID(expectations)
        if baseURL != nil {
            findings.append(DoctorFinding("base-url", .info, "fetched from \(base); Apple's CDN fetches https://\(domain)"))
        }
        if appIDs.isEmpty {
            findings.append(DoctorFinding("aasa", .info, "no --app-id: apple-app-site-association is not checked"))
        } else {
            findings += DoctorChecks.appleAppSiteAssociation(fetched.aasa, expectations)
            if let copy = await cdnCopy {
                findings += DoctorChecks.appleCDNCopy(copy, origin: fetched.aasa, expectations)
            } else {
                findings.append(DoctorFinding("aasa-cdn", .info, "Apple's CDN copy not checked (a local --base-url check; --apple-cdn URL asks it)"))
            }
        }
        findings += DoctorChecks.assetLinks(fetched.links, expectations)
        findings += DoctorChecks.relatedOrigins(fetched.related, expectations)
        findings += DoctorChecks.passkeyEndpoints(fetched.endpoints)

        let problems = findings.filter { $0.status == .problem }.count
        if json {
            let items: [JSONValue] = findings.map { finding in
                .object([
                    "check": .string(finding.check), "status": .string(finding.status.rawValue), "message": .string(finding.message),
                    "fix": .optional(finding.fix),
                ])
            }
            print(
                JSONValue.object([
                    "ok": .bool(problems == 0), "domain": .string(domain), "appIds": .array(appIDs.map(JSONValue.string)),
                    "problems": .number(Double(problems)), "findings": .array(items),
                ]).prettyPrinted())
        } else {
            print("passkey doctor: \(domain) for \((appIDs + [androidPackage].compactMap { $0 }).joined(separator: ", "))")
            for finding in findings {
                let mark = switch finding.status {
                case .ok: "✓"
                case .info: "·"
                case .warning: "!"
                case .problem: "✗"
                }
                // Messages quote what the site served: escaped, so a hostile file cannot forge a ✓ line or drive the terminal.
                print("\(mark) [\(finding.check)] \(DisplayEscaping.escape(finding.message, limit: 2 * DoctorFinding.maximumLength))")
                if let fix = finding.fix, finding.status == .problem || finding.status == .warning {
                    print("    fix: \(DisplayEscaping.escape(fix, limit: 2 * DoctorFinding.maximumLength))")
                }
            }
            print(problems == 0 ? "no problems found" : "\(problems) problem\(problems == 1 ? "" : "s") found")
        }
        if problems > 0 { throw ExitCode(CLIExit.refused.rawValue) }
    }
}
