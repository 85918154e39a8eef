public import Foundation
public import PasskeyRelyingParty
public import PasskeyWire
import PasskeyCore
public import PasskeyAttestation

/// Everything `passkey-server` can be told. Each setting is a flag and a `PASSKEY_…` environment variable
/// (see `passkey-server --help`); the defaults serve `http://localhost:8080` with SQLite in `./data/`.
public struct ServerConfiguration: Sendable {
    /// Address to bind. Default `127.0.0.1`; use `0.0.0.0` behind a proxy or on a LAN.
    public var host = "127.0.0.1"
    /// Port to listen on. Default 8080.
    public var port = 8080
    /// RP ID: the domain passkeys are scoped to (the parent domain shared by the website and the apps). Default `localhost`.
    public var rpID = "localhost"
    /// Shown by authenticators at registration. Default "Passkey Server".
    public var rpName = "Passkey Server"
    /// Accepted origins: web (`https://www.example.com`), iOS (`https://<rp id>`), Android (`android:apk-key-hash:…`).
    /// Empty: `http://localhost:<port>` for RP ID `localhost`, otherwise `https://<rp id>`.
    public var origins: [String] = []
    /// Related origins published in `/.well-known/webauthn` and accepted like ``origins``.
    public var relatedOrigins: [String] = []
    /// The address browsers reach this server itself at, `https://auth.example.com` (`scheme://host[:port]`, a host
    /// under the RP ID), when that is not the first web origin: behind a proxy on a host of its own while the website is
    /// on `www.example.com`. The links the server prints (the dashboard's setup link, admin invites) start with it, the
    /// served OpenAPI document names it as the server, and the dashboard's own passkey ceremonies accept it as an
    /// origin. The public ceremony API does not: its origins are ``origins``. Unset: see ``linkBase``.
    public var publicURL: String?
    /// `sqlite:PATH` (default `sqlite:./data/passkey.sqlite`), `postgres://…` (also `postgresql://`; several instances
    /// can share it, see docs/deploy.md) or `memory:`.
    public var database = "sqlite:./data/passkey.sqlite"
    /// How long options stay valid, in seconds (default 60, at least 1).
    public var challengeTTL: TimeInterval = 60
    public var userVerification: UserVerificationRequirement = .required
    /// Algorithms offered in `pubKeyCredParams`, in order of preference. Default ES256, EdDSA, RS256.
    public var algorithms: [COSEAlgorithmIdentifier] = [.es256, .edDSA, .rs256]
    /// `none` (default) or `direct`.
    public var attestation: AttestationConveyancePreference = .none
    /// Roots that attestation certificate chains are checked against, per format (`--attestation-root`), with
    /// `--attestation direct`. For a format that has roots, a chain that reaches none of them is refused
    /// (`attestation_untrusted`); formats without roots are recorded but vouch for nothing. Admin passkeys of the
    /// dashboard are not checked against them.
    public var attestationTrustAnchors: TrustAnchors = .empty
    /// Refuse registrations whose attestation does not reach one of ``attestationTrustAnchors``: `none`, self
    /// attestation, and formats without roots (`attestation_not_allowed` / `attestation_untrusted`). For
    /// deployments that admit only the security keys they issue. Needs `--attestation direct` and roots.
    public var requireTrustedAttestation = false
    /// Authenticator models (AAGUIDs, `xxxxxxxx-xxxx-…`) that may register; empty: any. Needs
    /// ``requireTrustedAttestation``: an AAGUID is only a claim unless a trusted attestation vouches for it.
    public var allowedAAGUIDs: [String] = []
    /// Accept a sign-in whose backup eligibility (BE) differs from the value stored at registration
    /// (`--allow-backup-eligibility-change`). WebAuthn L3 §7.2 refuses it (`backup_eligibility_changed`): BE is fixed
    /// when a credential is created. Some password managers have changed it on credentials they already held, which
    /// locks their users out; this lets them in. The stored value stays the one from registration. Off by default.
    public var allowBackupEligibilityChange = false
    /// Accept a sign-in whose signature counter did not increase (`--allow-counter-regression`). WebAuthn L3 §7.2
    /// step 22 treats that as a sign of a cloned authenticator and this server refuses it (`counter_regressed`) by
    /// default; some authenticators' counters are unreliable, which locks their users out. With this, the sign-in is
    /// accepted and flagged: `counterRegressed` in the answer and in signedPasskeyData (for the app's backend to ask for
    /// more), a warning in the log and the event. The stored counter stays. Off by default.
    public var allowCounterRegression = false
    /// Apple apps allowed to use the server's passkeys: `TEAMID.bundle.id` (webcredentials association).
    public var appleAppIDs: [String] = []
    /// Android apps: package name and SHA-256 signing-certificate fingerprints (`AA:BB:…`).
    public var androidApps: [AndroidApp] = []
    /// Trust `X-Forwarded-For` / `X-Forwarded-Proto` from a reverse proxy. Off by default.
    public var trustProxyHeaders = false
    /// Whether anyone may create an account through the public ceremony API (`/generate-registration-options` and the
    /// `/api/` registration paths). Off (`--no-public-registration`) for an app that keeps its own login and makes
    /// passkey accounts only through its backend's connect tokens: then no stranger can take a username the app's users
    /// will need, nor hold an account whose signed data names no user of the app.
    public var publicRegistration = true
    /// A connection that sends nothing for this long is closed: between requests (keep-alive) and, above all, in the
    /// middle of one (headers or body that stop coming), so stalled clients cannot hold connections or delay a
    /// graceful shutdown for ever. Default 75 s: longer than the idle timeout of common proxies and load balancers
    /// (60 s), so the proxy closes its idle keep-alive connections first. A request being answered (the dashboard's
    /// live stream included) is not affected.
    public var idleTimeout: TimeInterval = 75
    /// Seconds a request has to arrive, headers and body, from its first byte; it earns one more second for every
    /// ``requestMinimumRate`` bytes it has sent. A request still arriving then gets 408 `request_timeout` and its
    /// connection closes (``RequestDeadlineHandler``): a client that trickles a request, or stops halfway, holds a
    /// connection for seconds, not for as long as it likes. Default 20 s.
    public var requestTimeout: TimeInterval = 20
    /// Bytes per second that earn a request one more second (``requestTimeout``): a client sending at least this fast
    /// always finishes. Default 1000; 0 gives every request ``requestTimeout`` and no more.
    public var requestMinimumRate = 1_000
    /// PEM files for serving HTTPS directly (without a proxy).
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    /// When set, `GET /metrics` answers only `Authorization: Bearer <token>` (what Prometheus sends with
    /// `authorization: { credentials: … }`), and 401 `metrics_token_invalid` otherwise. Unset, anyone who reaches the
    /// server can read the counters (ceremony counts and error codes, no personal data): keep the path off the
    /// public internet at the proxy, or set a token. From `PASSKEY_METRICS_TOKEN` only, never a flag.
    public var metricsToken: String?
    /// Largest request body accepted, in bytes. Default 64 KiB.
    public var maximumBodySize = 65_536
    /// Options requests allowed per client per minute before 429. Default 60.
    public var optionsPerMinute = 60
    /// Ceremonies in progress kept at most (expired ones are purged); past it options get 503. Default 100 000.
    public var maximumPendingChallenges = 100_000
    /// Tokens for apps that keep their own login: `signedPasskeyData`, connect tokens, rollout (docs/connect.md).
    public var connect = ConnectConfiguration()
    /// The admin dashboard: sessions, invites, event retention, break-glass token (docs/dashboard.md).
    public var dashboard = DashboardConfiguration()

    public struct AndroidApp: Sendable, Hashable {
        public var packageName: String
        public var sha256Fingerprints: [String]
        public init(packageName: String, sha256Fingerprints: [String]) {
            self.packageName = packageName
            self.sha256Fingerprints = sha256Fingerprints
        }

        /// The WebAuthn origins Android reports for this app: `android:apk-key-hash:<base64url SHA-256 of the cert>`.
        public var origins: [String] {
            sha256Fingerprints.compactMap { fingerprint in
                let hex = fingerprint.replacingOccurrences(of: ":", with: "")
                guard hex.count == 64 else { return nil }
                var bytes: [UInt8] = []
                var index = hex.startIndex
                while index < hex.endIndex {
                    let next = hex.index(index, offsetBy: 2)
                    guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
                    bytes.append(byte)
                    index = next
                }
                return "android:apk-key-hash:" + Base64URL.encode(bytes)
            }
        }
    }

    public init() {}

    /// The origins accepted in client data: configured, related, Android apps' and the default.
    public var effectiveOrigins: [String] {
        var all = origins.isEmpty ? defaultOrigins : origins
        all += relatedOrigins
        all += androidApps.flatMap(\.origins)
        var seen = Set<String>()
        return all.filter { seen.insert($0).inserted }
    }

    /// `http://localhost:<port>` for RP ID `localhost` (browsers treat it as secure; `https://` with `--tls-cert`),
    /// otherwise `https://<rp id>`: a website behind a TLS proxy on 443, and what iOS and macOS apps report.
    public var defaultOrigin: String {
        rpID == "localhost" ? "\(tlsCertificatePath != nil ? "https" : "http")://localhost:\(port)" : "https://\(rpID)"
    }

    /// Where the links this server prints (the dashboard's setup link, admin invites) start, and the server the served
    /// OpenAPI document names: ``publicURL``; without it the first web origin, or without `--origin` the default origin
    /// a browser uses, with the port when this server speaks TLS on its own port.
    public var linkBase: String {
        publicURL ?? (origins.isEmpty ? (defaultOrigins.last ?? defaultOrigin) : (webOrigins.first ?? defaultOrigin))
    }

    /// Whether ``linkBase`` is a guess: no ``publicURL`` while `--origin` names web origins, the first of which may be
    /// the website rather than this server.
    public var linkBaseIsGuessed: Bool { publicURL == nil && !origins.isEmpty }

    /// The origins the dashboard's own passkey ceremonies accept: ``effectiveOrigins`` and ``publicURL``.
    public var dashboardOrigins: [String] {
        guard let publicURL, !effectiveOrigins.contains(publicURL) else { return effectiveOrigins }
        return effectiveOrigins + [publicURL]
    }

    /// The origins accepted without `--origin`: ``defaultOrigin``, and `https://<rp id>:<port>` too when this server
    /// speaks TLS itself on another port than 443 (trying passkeys from a phone on a LAN), where browsers report the
    /// port. ``defaultOrigin`` stays first: it is the default `iss` of signed data.
    public var defaultOrigins: [String] {
        var all = [defaultOrigin]
        if rpID != "localhost", tlsCertificatePath != nil, port != 443, port != 0 { all.append("https://\(rpID):\(port)") }
        return all
    }

    /// Web origins (http/https) that may call the API from a browser (CORS).
    public var webOrigins: [String] { effectiveOrigins.filter { $0.hasPrefix("https://") || $0.hasPrefix("http://") } }

    /// Checks the settings and says what is wrong in words.
    public func validate() throws(ConfigurationError) {
        guard (1...65_535).contains(port) || port == 0 else { throw ConfigurationError("--port must be between 1 and 65535") }
        // Port 0 asks the system for a free port when the server starts; the default origin (used without a web
        // --origin) is fixed before that.
        let usesDefaultOrigin = origins.isEmpty || webOrigins.isEmpty
        guard port != 0 || rpID != "localhost" || !usesDefaultOrigin else {
            throw ConfigurationError("--port 0 picks a free port at start, which the default origin http://localhost:PORT cannot follow: give a port, or --origin")
        }
        guard !rpID.isEmpty, !rpID.contains("/"), !rpID.contains(":") else {
            throw ConfigurationError("--rp-id must be a domain such as example.com (no scheme, port or path)")
        }
        // WebAuthn L3 §5.1.4: browsers compare the RP ID with the origin's host, which is lower case.
        guard Self.isDomain(rpID) else {
            throw ConfigurationError("--rp-id \(rpID) must be a lower-case domain such as example.com (letters, digits, - and .)")
        }
        // Finite and bounded, so every duration converts to whole milliseconds and seconds without overflow.
        guard idleTimeout.isFinite, (1...3600).contains(idleTimeout) else { throw ConfigurationError("the idle timeout must be 1 to 3600 seconds") }
        guard requestTimeout.isFinite, (1...3600).contains(requestTimeout) else {
            throw ConfigurationError("--request-timeout must be between 1 and 3600 seconds")
        }
        guard (0...1_000_000_000).contains(requestMinimumRate) else {
            throw ConfigurationError("--request-minimum-rate must be between 0 and 1000000000 bytes per second")
        }
        guard challengeTTL.isFinite, (1...3600).contains(challengeTTL) else {
            throw ConfigurationError("--challenge-ttl must be between 1 and 3600 seconds")
        }
        guard [.required, .preferred, .discouraged].contains(userVerification) else {
            throw ConfigurationError("--user-verification must be required, preferred or discouraged")
        }
        guard [.none, .direct].contains(attestation) else { throw ConfigurationError("--attestation must be none or direct") }
        guard !algorithms.isEmpty else { throw ConfigurationError("--algorithm needs at least one algorithm") }
        for algorithm in algorithms where !SignatureVerifier.supportedAlgorithms.contains(algorithm) {
            let supported = SignatureVerifier.supportedAlgorithms.map(\.rawValue).sorted().map(String.init).joined(separator: ", ")
            throw ConfigurationError("--algorithm \(algorithm.rawValue) cannot be verified by this server (COSE algorithms it verifies: \(supported))")
        }
        for origin in origins + relatedOrigins {
            guard origin.hasPrefix("https://") || origin.hasPrefix("http://") || origin.hasPrefix("android:apk-key-hash:") else {
                throw ConfigurationError("origin \(origin) must start with https://, http:// or android:apk-key-hash:")
            }
            guard !origin.hasSuffix("/") else { throw ConfigurationError("origin \(origin) must not end with /: origins have no path") }
            // A web origin is scheme://host[:port], as a browser serializes it (WebAuthn L3 §7.1 step 9 compares it exactly).
            if !origin.hasPrefix("android:"), !Self.isWebOrigin(origin) {
                throw ConfigurationError("origin \(origin) must be scheme://host[:port], lower case, with no path, query or user")
            }
            if let serialized = Self.withoutDefaultPort(origin) {
                throw ConfigurationError("origin \(origin) names its scheme's default port, which browsers leave out: write \(serialized)")
            }
        }
        if let publicURL {
            guard publicURL.hasPrefix("https://") || publicURL.hasPrefix("http://"), !publicURL.hasSuffix("/"), Self.isWebOrigin(publicURL) else {
                throw ConfigurationError("--public-url \(publicURL) must be scheme://host[:port], lower case, with no path (not even /), query or user")
            }
            let host = Self.host(ofWebOrigin: publicURL)
            guard host == rpID || host.hasSuffix("." + rpID) else {
                throw ConfigurationError(
                    "--public-url \(publicURL): browsers create passkeys for RP ID \(rpID) only on \(rpID) and its subdomains, so the dashboard could not sign in there")
            }
            guard publicURL.hasPrefix("https://") || host == "localhost" || host.hasSuffix(".localhost") else {
                throw ConfigurationError("--public-url \(publicURL): browsers allow passkeys over http:// only on localhost; use https://")
            }
            if let serialized = Self.withoutDefaultPort(publicURL) {
                throw ConfigurationError("--public-url \(publicURL) names its scheme's default port, which browsers leave out of the origin: write \(serialized)")
            }
        }
        if requireTrustedAttestation {
            guard attestation == .direct else {
                throw ConfigurationError(
                    "--require-trusted-attestation needs --attestation direct: with none, browsers send no attestation to check, and every registration would be refused")
            }
            guard !rootedFormats.isEmpty else {
                throw ConfigurationError("--require-trusted-attestation needs at least one --attestation-root: without roots no attestation can be trusted")
            }
        }
        if requireTrustedAttestation, connect.rollout.autoAppend {
            throw ConfigurationError(
                "--auto-append cannot go with --require-trusted-attestation: passkeys created automatically come from the platform's password manager, which sends no attestation, so every one would be refused")
        }
        for aaguid in allowedAAGUIDs where AAGUID(aaguid) == nil {
            throw ConfigurationError("--allowed-aaguid \(aaguid) must be an AAGUID such as cb69481e-8ff7-4039-93ec-0a2729a154a8")
        }
        if !allowedAAGUIDs.isEmpty, !requireTrustedAttestation {
            throw ConfigurationError(
                "--allowed-aaguid needs --require-trusted-attestation: an authenticator's AAGUID is only a claim unless a trusted attestation vouches for it")
        }
        for appID in appleAppIDs where !Self.isAppleAppID(appID) {
            throw ConfigurationError("--apple-app-id \(appID) must be TEAMID.bundle.id (a 10-character team ID, then the bundle ID)")
        }
        for app in androidApps where app.origins.count != app.sha256Fingerprints.count {
            throw ConfigurationError("Android app \(app.packageName): fingerprints must be SHA-256, 32 hex bytes separated by colons")
        }
        guard (tlsCertificatePath == nil) == (tlsKeyPath == nil) else {
            throw ConfigurationError("--tls-cert and --tls-key go together")
        }
        guard (0...100).contains(connect.rollout.percentage) else { throw ConfigurationError("--rollout-percentage must be 0 to 100") }
        // 0 failures would send every device to the old login before its first try: --rollout-percentage 0 says that.
        guard (1...1_000).contains(connect.rollout.failureLimit) else { throw ConfigurationError("--failure-limit must be 1 to 1000") }
        guard (0...3_660).contains(connect.rollout.declineCooldownDays) else {
            throw ConfigurationError("--decline-cooldown-days must be 0 (ask again at once) to 3660")
        }
        let year: TimeInterval = 366 * 86_400
        for lifetime in [connect.signedDataLifetime, connect.connectTokenLifetime] where !(lifetime.isFinite && (1...year).contains(lifetime)) {
            throw ConfigurationError("token lifetimes must be between 1 second and a year")
        }
        guard (1...36_600).contains(dashboard.eventRetentionDays) else { throw ConfigurationError("--event-retention-days must be 1 to 36600") }
        guard dashboard.sessionIdleTimeout.isFinite, dashboard.sessionAbsoluteTimeout.isFinite, dashboard.sessionAbsoluteTimeout <= year,
            dashboard.sessionIdleTimeout >= 1, dashboard.sessionAbsoluteTimeout >= dashboard.sessionIdleTimeout
        else {
            throw ConfigurationError("the dashboard's idle timeout must be at least 1 second and at most the absolute timeout, itself at most a year")
        }
        if metricsToken?.isEmpty == true {
            throw ConfigurationError(
                "PASSKEY_METRICS_TOKEN is set but empty: set a token of 32 or more characters, or unset the variable to serve /metrics without one")
        }
        for (token, name) in [(metricsToken, "PASSKEY_METRICS_TOKEN"), (dashboard.adminToken, "PASSKEY_ADMIN_TOKEN")] where (token?.count ?? 32) < 32 {
            throw ConfigurationError("\(name) must have at least 32 characters (for example: openssl rand -base64 32)")
        }
    }

    /// The formats that have `--attestation-root`s, by name.
    var rootedFormats: [AttestationFormat] {
        attestationTrustAnchors.roots.filter { !$0.value.isEmpty }.keys.sorted { $0.rawValue < $1.rawValue }
    }

    /// The attestation settings in a few words, for the dashboard's settings page.
    /// What the relying-party library's ceremonies need of these settings.
    public var ceremonies: CeremonyConfiguration {
        var ceremonies = CeremonyConfiguration(rpID: rpID)
        ceremonies.challengeTTL = challengeTTL
        ceremonies.attestation = attestation
        ceremonies.publicRegistration = publicRegistration
        ceremonies.maximumPendingChallenges = maximumPendingChallenges
        return ceremonies
    }

    public var attestationDescription: String {
        var lines = [attestation.rawValue]
        if !rootedFormats.isEmpty {
            lines.append(
                "roots: " + rootedFormats.map { format in
                    "\(format.rawValue) (\(attestationTrustAnchors.roots(for: format).map(\.subject.description).joined(separator: "; ")))"
                }.joined(separator: ", "))
        }
        if requireTrustedAttestation { lines.append("trusted attestation required") }
        if !allowedAAGUIDs.isEmpty { lines.append("models: " + allowedAAGUIDs.joined(separator: ", ")) }
        return lines.joined(separator: "\n")
    }

    /// Settings that are valid but cannot do what they were most likely given for, said in words: printed at start
    /// (standard error) so the mistake shows before the first sign-in fails with `origin_mismatch`.
    public var warnings: [String] { warnings(now: Date()) }

    /// ``warnings`` as of `now` (roots that expired by then).
    public func warnings(now: Date) -> [String] {
        var warnings: [String] = []
        // What Apple's platforms report as the origin of an app's ceremony: https:// and the RP ID (the app's
        // webcredentials association names the domain; the port and subdomain are never part of it).
        let appOrigin = "https://\(rpID)"
        if !appleAppIDs.isEmpty, !effectiveOrigins.contains(appOrigin) {
            warnings.append(
                "--apple-app-id is set, but the origin iOS and macOS apps report, \(appOrigin), is not among the accepted origins: "
                    + "sign-ins from the app will fail with origin_mismatch. Add --origin \(appOrigin).")
        }
        // WebAuthn L3 §5.1.3 / §5.1.4 (with §5.11): a browser lets a page use an RP ID only when it is the page's host or
        // a parent of it, or when the RP ID's /.well-known/webauthn lists the page's origin (related origins).
        for origin in origins + relatedOrigins where origin.hasPrefix("http://") {
            let host = Self.host(ofWebOrigin: origin)
            guard host != "localhost", !host.hasSuffix(".localhost") else { continue }
            warnings.append(
                "\(origins.contains(origin) ? "--origin" : "--related-origin") \(origin) is http:// on a host other than localhost: "
                    + "browsers allow passkeys there only over https://.")
        }
        for origin in origins where origin.hasPrefix("https://") && !relatedOrigins.contains(origin) {
            let host = Self.host(ofWebOrigin: origin)
            guard host != rpID, !host.hasSuffix("." + rpID) else { continue }
            let isAddress = host.split(separator: ".").allSatisfy { $0.allSatisfy(\.isNumber) }
            warnings.append(
                "--origin \(origin) is not on RP ID \(rpID) or one of its subdomains: browsers there refuse passkeys for \(rpID) "
                    + "unless https://\(rpID)/.well-known/webauthn lists the origin. Give it as --related-origin instead"
                    + (isAddress ? " (a page on an IP address can use passkeys only as a related origin)." : ", or choose an RP ID that \(host) is under."))
        }
        let rootedFormats = self.rootedFormats
        if !rootedFormats.isEmpty, attestation == .none {
            warnings.append("--attestation-root has no effect with --attestation none: browsers then send no attestation. Add --attestation direct.")
        } else if !rootedFormats.isEmpty, !requireTrustedAttestation {
            warnings.append(
                "--attestation-root without --require-trusted-attestation: \(rootedFormats.map(\.rawValue).joined(separator: ", ")) attestations that reach none of the roots are refused, "
                    + "while passkeys that send no attestation (synced passkeys) still register. Give roots only for the formats you mean to restrict, or require trusted attestation.")
        }
        // A root past its notAfter date vouches for nothing: every chain to it is refused (attestation_untrusted).
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        for format in rootedFormats {
            for root in attestationTrustAnchors.roots(for: format) where root.notValidAfter < now {
                warnings.append(
                    "--attestation-root for \(format.rawValue): \(root.subject) expired on \(day.string(from: root.notValidAfter)): every chain to it is refused as attestation_untrusted.")
            }
        }
        // U2F keys carry the all-zero AAGUID: a list without it admits none of them.
        if rootedFormats.contains(.fidoU2F), !allowedAAGUIDs.isEmpty, !allowedAAGUIDs.contains(where: { AAGUID($0)?.isZero == true }) {
            warnings.append(
                "--allowed-aaguid does not list 00000000-0000-0000-0000-000000000000, which every fido-u2f registration carries: no U2F key can register under the fido-u2f root.")
        }
        // An android-key, SafetyNet or TPM chain vouches for the device, not for what the app or platform wrote in the
        // authenticator data: any app on a genuine device can claim any AAGUID under those roots.
        let deviceRooted = rootedFormats.filter { [.androidKey, .androidSafetyNet, .tpm].contains($0) }
        if !allowedAAGUIDs.isEmpty, !deviceRooted.isEmpty {
            warnings.append(
                "--allowed-aaguid with roots for \(deviceRooted.map(\.rawValue).joined(separator: ", ")): those chains vouch for the device, not for the AAGUID, "
                    + "which any app on such a device can choose. The list pins models only under packed and fido-u2f roots of security-key vendors.")
        }
        // WebAuthn L3 §5.11.1: clients need honour only five labels of /.well-known/webauthn (the web origins, in order).
        let ignored = RelatedOriginLabels.beyondHonoured(webOrigins)
        if !ignored.isEmpty {
            warnings.append(
                "/.well-known/webauthn lists origins of more than \(RelatedOriginLabels.minimumHonoured) sites (\(RelatedOriginLabels.labels(of: webOrigins).joined(separator: ", "))): "
                    + "browsers may ignore \(ignored.joined(separator: ", ")), after the fifth site. Keep at most five site names (the count is estimated without the Public Suffix List).")
        }
        return warnings
    }

    /// A lower-case DNS name: labels of letters, digits and inner hyphens, separated by single dots.
    static func isDomain(_ name: String) -> Bool {
        guard name.utf8.count <= 253 else { return false }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        }
    }

    /// `http(s)://host[:port]` with a lower-case host (a domain, `localhost` or an IPv4 address) and a port in range.
    static func isWebOrigin(_ origin: String) -> Bool {
        guard let schemeEnd = origin.range(of: "://") else { return false }
        let rest = origin[schemeEnd.upperBound...]
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let host = parts.first, isDomain(String(host)) else { return false }
        if parts.count == 2 {
            guard let port = Int(parts[1]), (1...65_535).contains(port), String(port) == parts[1] else { return false }
        }
        return true
    }

    /// The origin as browsers serialize it when `origin` names its scheme's default port (`https://example.com:443`,
    /// `http://localhost:80`), else nil: client data never carries the default port, so such an origin would match
    /// nothing.
    static func withoutDefaultPort(_ origin: String) -> String? {
        for (scheme, port) in [("https://", ":443"), ("http://", ":80")] where origin.hasPrefix(scheme) && origin.hasSuffix(port) {
            return String(origin.dropLast(port.count))
        }
        return nil
    }

    /// The host of a web origin that ``isWebOrigin(_:)`` accepted.
    static func host(ofWebOrigin origin: String) -> String {
        guard let schemeEnd = origin.range(of: "://") else { return origin }
        return String(origin[schemeEnd.upperBound...].prefix { $0 != ":" })
    }

    /// Apple's app identifier: a 10-character team ID (upper-case letters and digits), a dot, a bundle ID.
    static func isAppleAppID(_ appID: String) -> Bool {
        let parts = appID.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, parts[0].count == 10,
            parts[0].unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("0"..."9").contains($0) }),
            !parts[1].isEmpty, !parts[1].hasPrefix("."), !parts[1].hasSuffix("."), !parts[1].contains("..")
        else { return false }
        return parts[1].unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-.".unicodeScalars.contains($0) }
    }
}

/// A setting that cannot work, said in words.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
