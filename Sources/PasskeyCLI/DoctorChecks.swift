import Foundation
import PasskeyWire

/// One thing `passkey doctor` checked: a stable `check` id, a status, what it found and what to do about it.
struct DoctorFinding: Sendable, Equatable {
    enum Status: String, Sendable {
        /// As it should be.
        case ok
        /// Worth knowing; nothing to fix.
        case info
        /// Likely to cause trouble for some clients, or cannot be confirmed from outside.
        case warning
        /// Passkeys in the app will fail until this is fixed.
        case problem
    }

    var check: String
    var status: Status
    var message: String
    var fix: String?

    /// Longest message or fix kept: they quote what the site served, which can be anything (a 50 MB app ID).
    static let maximumLength = 600

    init(_ check: String, _ status: Status, _ message: String, fix: String? = nil) {
        self.check = check
        self.status = status
        self.message = DisplayEscaping.clip(message, limit: Self.maximumLength)
        self.fix = fix.map { DisplayEscaping.clip($0, limit: Self.maximumLength) }
    }
}

/// What the developer says the set-up should be.
struct DoctorExpectations: Sendable {
    /// The domain of the `webcredentials:` entitlement; it must be the RP ID.
    var domain: String
    /// `TEAMID.bundle.id` of each app that must be associated.
    var appIDs: [String]
    /// The RP ID the server uses, when the developer names it.
    var rpID: String?
    var androidPackage: String?
    var androidFingerprints: [String]
}

/// The checks, as pure functions over what was fetched, so each finding is decided in one place.
enum DoctorChecks {
    /// Apple's limit for apple-app-site-association.
    static let maximumAASASize = 128 * 1024

    /// `TEAMID.bundle.id`: a ten-character team ID, a dot, a bundle ID.
    static func isAppID(_ value: String) -> Bool {
        let parts = value.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 10, parts[0].allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else { return false }
        return !parts[1].isEmpty && parts[1].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
    }

    /// A SHA-256 certificate fingerprint as assetlinks.json lists it: 32 hex byte pairs separated by colons.
    static func isSHA256Fingerprint(_ value: String) -> Bool {
        let pairs = value.split(separator: ":", omittingEmptySubsequences: false)
        return pairs.count == 32 && pairs.allSatisfy { $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isHexDigit } }
    }

    /// A bare host name: what `webcredentials:` takes and what an RP ID is.
    static func isDomain(_ value: String) -> Bool {
        !value.isEmpty && value.count <= 253
            && value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
            && !value.hasPrefix(".") && !value.hasSuffix(".") && !value.contains("..")
    }

    /// The RP ID must be the domain of the entitlement: iOS looks for the association file at the RP ID's domain.
    static func relyingPartyID(_ expectations: DoctorExpectations) -> [DoctorFinding] {
        let domain = expectations.domain
        guard let rpID = expectations.rpID?.lowercased() else {
            return [DoctorFinding("rp-id", .info, "assuming the server's RP ID is \(domain) (pass --rp-id to check another)")]
        }
        if rpID == domain { return [DoctorFinding("rp-id", .ok, "the RP ID is \(domain), the entitlement's domain")] }
        if domain.hasSuffix("." + rpID) {
            return [
                DoctorFinding(
                    "rp-id", .problem, "the RP ID is \(rpID) but the domain checked is its subdomain \(domain)",
                    fix: "iOS checks the association at the RP ID's domain: use the entitlement webcredentials:\(rpID), serve "
                        + "https://\(rpID)/.well-known/apple-app-site-association, and run passkey doctor --domain \(rpID)")
            ]
        }
        return [
            DoctorFinding(
                "rp-id", .problem, "the RP ID \(rpID) is neither \(domain) nor a parent domain of it",
                fix: "run passkey-server with --rp-id \(domain), or associate the app with \(rpID) (webcredentials:\(rpID))")
        ]
    }

    /// The common part of every `.well-known` file: reachable, answered directly (no redirect), 200, JSON.
    /// Returns the parsed document, or `nil` with the findings that explain why not. `required: false` (a file this app
    /// does not need) turns a 404 into an info finding and problems into warnings.
    static func document(
        _ fetched: Result<FetchedDocument, FetchFailure>, check: String, name: String, required: Bool, requireJSONContentType: Bool
    ) -> (JSONValue?, [DoctorFinding]) {
        let problem: DoctorFinding.Status = required ? .problem : .warning
        let document: FetchedDocument
        switch fetched {
        case .failure(let failure):
            return (nil, [DoctorFinding(check, problem, "\(failure.url) could not be fetched: \(failure.reason)", fix: "serve \(name) over HTTPS at that address")])
        case .success(let fetched):
            document = fetched
        }
        if (300..<400).contains(document.status) {
            return (nil, [
                DoctorFinding(
                    check, problem, "\(document.url) redirects (HTTP \(document.status) to \(document.location ?? "?"))",
                    fix: "serve \(name) at exactly this URL with status 200: Apple's CDN does not follow redirects")
            ])
        }
        if document.status == 404, !required {
            return (nil, [DoctorFinding(check, .info, "no \(name) at \(document.url) (HTTP 404)")])
        }
        guard document.status == 200 else {
            return (nil, [DoctorFinding(check, problem, "\(document.url) answered HTTP \(document.status)", fix: "serve \(name) there with status 200")])
        }
        if document.truncated {
            return (nil, [
                DoctorFinding(
                    check, problem, "\(name) at \(document.url) is larger than \(DoctorFetch.maximumBodySize) bytes (not read further)",
                    fix: "serve the JSON the passkey server generates (a few hundred bytes), not another file")
            ])
        }
        var findings: [DoctorFinding] = []
        let mediaType = document.contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let looksLikeHTML = document.body.drop(while: { $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }).first == UInt8(ascii: "<")
        if looksLikeHTML {
            return (nil, [
                DoctorFinding(
                    check, problem, "\(document.url) answered an HTML page (\(mediaType ?? "no content type")), not JSON",
                    fix: "route /.well-known/ to the passkey server before any single-page-app fallback that serves index.html")
            ])
        }
        if mediaType != "application/json" {
            findings.append(
                DoctorFinding(
                    check, requireJSONContentType ? problem : .warning, "\(name) is served as \(mediaType ?? "no content type"), not application/json",
                    fix: "serve it with Content-Type: application/json"))
        }
        guard let json = try? JSONValue.parse(document.body) else {
            findings.append(DoctorFinding(check, problem, "\(name) is not valid JSON", fix: "serve the JSON the passkey server generates"))
            return (nil, findings)
        }
        return (json, findings)
    }

    static func appleAppSiteAssociation(_ fetched: Result<FetchedDocument, FetchFailure>, _ expectations: DoctorExpectations) -> [DoctorFinding] {
        let name = "apple-app-site-association"
        var (json, findings) = document(fetched, check: "aasa", name: name, required: true, requireJSONContentType: true)
        if case .success(let document) = fetched, !document.truncated, document.body.count > maximumAASASize {
            findings.append(
                DoctorFinding("aasa", .problem, "\(name) has \(document.body.count) bytes; Apple reads at most \(maximumAASASize)", fix: "trim the file"))
        }
        guard let json else { return findings }
        if findings.isEmpty { findings.append(DoctorFinding("aasa", .ok, "\(name) is served directly, with status 200, as application/json")) }
        guard let apps = json.objectValue?["webcredentials"]?.objectValue?["apps"]?.arrayValue else {
            findings.append(
                DoctorFinding(
                    "aasa-webcredentials", .problem, "\(name) has no webcredentials.apps array",
                    fix: #"publish {"webcredentials": {"apps": ["TEAMID.bundle.id"]}} (passkey-server --apple-app-id TEAMID.bundle.id)"#))
            return findings
        }
        let listed = apps.compactMap(\.stringValue)
        if listed.count != apps.count {
            findings.append(DoctorFinding("aasa-webcredentials", .problem, "webcredentials.apps holds values that are not strings", fix: "list app IDs as strings"))
        }
        for malformed in listed where !isAppID(malformed) {
            findings.append(
                DoctorFinding("aasa-webcredentials", .warning, "webcredentials.apps entry \"\(malformed)\" is not TEAMID.bundle.id", fix: "use the 10-character team ID, a dot, and the bundle ID"))
        }
        for appID in expectations.appIDs {
            if listed.contains(appID) {
                findings.append(DoctorFinding("aasa-app-id", .ok, "webcredentials.apps lists \(appID)"))
                continue
            }
            let bundle = appID.split(separator: ".", maxSplits: 1).last.map(String.init) ?? appID
            var message = "webcredentials.apps does not list \(appID)"
            if listed.isEmpty {
                message = "webcredentials.apps is empty: no app may use passkeys for \(expectations.domain)"
            } else if let nearMiss = listed.first(where: { $0.lowercased() == appID.lowercased() }) {
                message += " (it lists \(nearMiss): app IDs are case-sensitive)"
            } else if let otherTeam = listed.first(where: { $0.hasSuffix("." + bundle) }) {
                message += " (it lists \(otherTeam): another team ID for the same bundle)"
            } else {
                message += " (it lists \(listed.joined(separator: ", ")))"
            }
            findings.append(
                DoctorFinding(
                    "aasa-app-id", .problem, message,
                    fix: "add \(appID) to webcredentials.apps (passkey-server --apple-app-id \(appID)); Apple's CDN may take a while to pick up the change, or use webcredentials:\(expectations.domain)?mode=developer while developing"))
        }
        return findings
    }

    /// The app IDs an apple-app-site-association lists under `webcredentials.apps` (strings only); nil without the array.
    static func webcredentialsApps(_ json: JSONValue) -> [String]? {
        json.objectValue?["webcredentials"]?.objectValue?["apps"]?.arrayValue?.compactMap(\.stringValue)
    }

    /// Apple's CDN, where devices fetch association files from (`/<domain>` below it).
    static let appleCDN = "https://app-site-association.cdn-apple.com/a/v1"

    /// The CDN's copy of apple-app-site-association against the domain's own (`origin`): devices read the copy, which
    /// Apple refreshes on its own schedule, so an app ID added at the domain may not reach devices for hours.
    static func appleCDNCopy(
        _ fetched: Result<FetchedDocument, FetchFailure>, origin: Result<FetchedDocument, FetchFailure>, _ expectations: DoctorExpectations
    ) -> [DoctorFinding] {
        let check = "aasa-cdn"
        let document: FetchedDocument
        switch fetched {
        case .failure(let failure):
            return [DoctorFinding(check, .info, "Apple's CDN copy could not be fetched (\(failure.reason)): not checked")]
        case .success(let fetchedDocument): document = fetchedDocument
        }
        if document.status == 404 {
            return [
                DoctorFinding(
                    check, .warning, "Apple's CDN has no copy of apple-app-site-association for \(expectations.domain) (\(document.url), HTTP 404)",
                    fix: "devices read the CDN's copy: it appears some time after the file is served at https://\(expectations.domain) from the public internet; while developing, use webcredentials:\(expectations.domain)?mode=developer")
            ]
        }
        guard document.status == 200 else {
            return [DoctorFinding(check, .info, "Apple's CDN answered HTTP \(document.status) for \(document.url): not checked")]
        }
        if document.truncated {
            return [DoctorFinding(check, .warning, "Apple's CDN copy at \(document.url) is larger than \(DoctorFetch.maximumBodySize) bytes (not read further)")]
        }
        guard let json = try? JSONValue.parse(document.body) else {
            return [DoctorFinding(check, .warning, "Apple's CDN copy at \(document.url) is not JSON (\(document.contentType ?? "no content type")): devices cannot read it either")]
        }
        let listed = webcredentialsApps(json) ?? []
        var ownApps: [String] = []
        if case .success(let own) = origin, let ownJSON = try? JSONValue.parse(own.body) { ownApps = webcredentialsApps(ownJSON) ?? [] }
        var findings: [DoctorFinding] = []
        for appID in expectations.appIDs {
            if listed.contains(appID) {
                findings.append(DoctorFinding(check, .ok, "Apple's CDN copy lists \(appID)"))
                continue
            }
            let originLists = ownApps.contains(appID)
            findings.append(
                DoctorFinding(
                    check, .warning,
                    (originLists
                        ? "Apple's CDN copy does not list \(appID) yet, while the domain's own file does: devices still read the older copy"
                        : "Apple's CDN copy does not list \(appID)")
                        + (listed.isEmpty ? " (it lists no app)" : " (it lists \(listed.joined(separator: ", ")))"),
                    fix: originLists
                        ? "wait for Apple's CDN to refresh its copy (it can take a day), or use webcredentials:\(expectations.domain)?mode=developer on development devices"
                        : "add \(appID) to webcredentials.apps at https://\(expectations.domain); the CDN picks the change up later"))
        }
        return findings
    }

    static func assetLinks(_ fetched: Result<FetchedDocument, FetchFailure>, _ expectations: DoctorExpectations) -> [DoctorFinding] {
        let required = expectations.androidPackage != nil
        var (json, findings) = document(fetched, check: "assetlinks", name: "assetlinks.json", required: required, requireJSONContentType: required)
        guard let json else {
            if !required { findings = findings.map { finding in
                var finding = finding
                if finding.status == .info { finding.message += "; only Android apps need it" }
                return finding
            } }
            return findings
        }
        let problem: DoctorFinding.Status = required ? .problem : .warning
        guard let statements = json.arrayValue else {
            findings.append(DoctorFinding("assetlinks", problem, "assetlinks.json is not a JSON array of statements", fix: "serve the array the passkey server generates (--android-app)"))
            return findings
        }
        var packages: [(name: String, relations: [String], fingerprints: [String])] = []
        for statement in statements {
            guard let object = statement.objectValue, let relations = object["relation"]?.arrayValue?.compactMap(\.stringValue),
                let target = object["target"]?.objectValue
            else {
                findings.append(DoctorFinding("assetlinks", problem, "assetlinks.json has a statement without relation and target", fix: "every statement needs both"))
                continue
            }
            if target["namespace"]?.stringValue == "android_app", let name = target["package_name"]?.stringValue {
                let fingerprints = target["sha256_cert_fingerprints"]?.arrayValue?.compactMap(\.stringValue) ?? []
                packages.append((name, relations, fingerprints))
            }
        }
        if findings.isEmpty { findings.append(DoctorFinding("assetlinks", .ok, "assetlinks.json is served directly, as JSON, with \(statements.count) statement\(statements.count == 1 ? "" : "s")")) }
        guard let package = expectations.androidPackage else {
            if !packages.isEmpty { findings.append(DoctorFinding("assetlinks-app", .info, "Android apps listed: \(packages.map(\.name).joined(separator: ", "))")) }
            return findings
        }
        guard let entry = packages.first(where: { $0.name == package }) else {
            findings.append(
                DoctorFinding("assetlinks-app", .problem, "assetlinks.json does not list the Android app \(package)", fix: "passkey-server --android-app \(package)=SHA256_FINGERPRINT"))
            return findings
        }
        let needed = ["delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds"]
        let missing = needed.filter { !entry.relations.contains($0) }
        findings.append(
            missing.isEmpty
                ? DoctorFinding("assetlinks-app", .ok, "assetlinks.json lists \(package) with both relations")
                : DoctorFinding("assetlinks-app", .problem, "\(package) lacks the relation \(missing.joined(separator: " and "))", fix: "list both \(needed.joined(separator: " and "))"))
        for fingerprint in expectations.androidFingerprints where !entry.fingerprints.contains(where: { $0.uppercased() == fingerprint.uppercased() }) {
            findings.append(
                DoctorFinding("assetlinks-app", .problem, "\(package) does not list the signing certificate \(fingerprint)", fix: "add every signing key's SHA-256 fingerprint (debug, upload, Play App Signing)"))
        }
        return findings
    }

    /// `/.well-known/webauthn` (WebAuthn L3 §5.11.1). passkey-server lists every web origin it accepts there, so the iOS
    /// app's origin `https://<rp id>` should appear; other servers may list only related origins, hence a warning.
    static func relatedOrigins(_ fetched: Result<FetchedDocument, FetchFailure>, _ expectations: DoctorExpectations) -> [DoctorFinding] {
        var (json, findings) = document(fetched, check: "webauthn", name: "webauthn (related origins)", required: false, requireJSONContentType: false)
        guard let json else {
            findings = findings.map { finding in
                var finding = finding
                if finding.status == .info { finding.message += "; only websites on other domains need it" }
                return finding
            }
            return findings
        }
        guard let origins = json.objectValue?["origins"]?.arrayValue?.compactMap(\.stringValue) else {
            findings.append(DoctorFinding("webauthn", .warning, "/.well-known/webauthn has no origins array of strings", fix: #"publish {"origins": ["https://…"]}"#))
            return findings
        }
        let ignored = RelatedOriginLabels.beyondHonoured(origins)
        if !ignored.isEmpty {
            findings.append(
                DoctorFinding(
                    "webauthn-labels", .warning,
                    "the related origins name more than \(RelatedOriginLabels.minimumHonoured) sites (\(RelatedOriginLabels.labels(of: origins).joined(separator: ", "))): browsers may ignore \(ignored.joined(separator: ", "))",
                    fix: "keep at most five site names (WebAuthn L3 §5.11.1): clients need honour only the first five"))
        }
        let appOrigin = "https://\(expectations.rpID?.lowercased() ?? expectations.domain)"
        if origins.contains(appOrigin) {
            findings.append(DoctorFinding("webauthn", .ok, "the related origins include \(appOrigin), the origin iOS apps report"))
        } else {
            findings.append(
                DoctorFinding(
                    "webauthn", .warning, "the related origins (\(origins.joined(separator: ", "))) do not include \(appOrigin), the origin iOS apps report",
                    fix: "if this is passkey-server, add --origin \(appOrigin), or app sign-ins fail with origin_mismatch"))
        }
        return findings
    }

    /// `/.well-known/passkey-endpoints` (W3C Passkey Endpoints draft): where passkey managers (Apple's among them) send
    /// a person to create a passkey (`enroll`) or manage them (`manage`). Optional: without it they only cannot link.
    static func passkeyEndpoints(_ fetched: Result<FetchedDocument, FetchFailure>) -> [DoctorFinding] {
        let check = "passkey-endpoints"
        var (json, findings) = document(fetched, check: check, name: "passkey-endpoints", required: false, requireJSONContentType: false)
        guard let json else {
            return findings.map { finding in
                var finding = finding
                if finding.status == .info {
                    finding.message += "; passkey managers cannot link to the pages where passkeys are created and managed"
                }
                return finding
            }
        }
        guard let members = json.objectValue else {
            findings.append(
                DoctorFinding(check, .warning, "passkey-endpoints is JSON but not an object", fix: #"publish {"enroll": "https://…", "manage": "https://…"}"#))
            return findings
        }
        var named: [String] = []
        for member in ["enroll", "manage", "prfUsageDetails"] {
            guard let value = members[member] else { continue }
            guard let url = value.stringValue, isHTTPSPage(url) else {
                findings.append(
                    DoctorFinding(
                        check, .warning, "passkey-endpoints' \(member) is not an absolute https:// URL", fix: "give the page's full https:// URL"))
                continue
            }
            named.append("\(member) \(url)")
        }
        if named.isEmpty {
            findings.append(DoctorFinding(check, .info, "passkey-endpoints says passkeys are supported, and names no page"))
        } else {
            findings.append(DoctorFinding(check, .ok, "passkey-endpoints names " + named.joined(separator: ", ")))
        }
        return findings
    }

    /// An absolute `https://` URL with a host (`http://` on localhost, for a local check).
    static func isHTTPSPage(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty
        else { return false }
        return scheme == "https" || (scheme == "http" && (host == "localhost" || host.hasSuffix(".localhost")))
    }
}
