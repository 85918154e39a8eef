import Foundation
import PasskeyCore
import PasskeyAttestation

/// Whether the settings can work at all: checked before the server starts, each refusal said in words with the flag
/// to change. Settings that are valid but likely mistaken are ``ServerConfiguration/warnings``.
extension ServerConfiguration {
    /// Checks the settings and says what is wrong in words.
    public func validate() throws(ConfigurationError) {
        try validateAddress()
        try validateTimes()
        try validateCeremonyPolicy()
        try validateOrigins()
        try validateAttestationTrust()
        try validateAppsAndTLS()
        try validateConnect()
        try validateDashboard()
    }

    /// The longest token lifetime and dashboard session.
    static var year: TimeInterval { 366 * 86_400 }

    /// The port and the RP ID.
    func validateAddress() throws(ConfigurationError) {
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
    }

    /// Durations and rates: finite and bounded, so each converts to whole milliseconds and seconds without overflow.
    func validateTimes() throws(ConfigurationError) {
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
    }

    /// What ceremonies ask of authenticators.
    func validateCeremonyPolicy() throws(ConfigurationError) {
        guard [.required, .preferred, .discouraged].contains(userVerification) else {
            throw ConfigurationError("--user-verification must be required, preferred or discouraged")
        }
        guard [.none, .direct].contains(attestation) else { throw ConfigurationError("--attestation must be none or direct") }
        guard !algorithms.isEmpty else { throw ConfigurationError("--algorithm needs at least one algorithm") }
        for algorithm in algorithms where !SignatureVerifier.supportedAlgorithms.contains(algorithm) {
            let supported = SignatureVerifier.supportedAlgorithms.map(\.rawValue).sorted().map(String.init).joined(separator: ", ")
            throw ConfigurationError("--algorithm \(algorithm.rawValue) cannot be verified by this server (COSE algorithms it verifies: \(supported))")
        }
    }

    /// The origins, the public URL and the pages passkey managers open.
    func validateOrigins() throws(ConfigurationError) {
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
        if let oidcIssuer {
            // OpenID Connect Discovery §3: an https URL with no query or fragment; http only on this machine, for trying it out.
            let components = URLComponents(string: oidcIssuer)
            let host = components?.host?.lowercased() ?? ""
            let local = ["localhost", "127.0.0.1"].contains(host)
            guard let components, components.scheme == "https" || (components.scheme == "http" && local), !host.isEmpty, components.query == nil,
                components.fragment == nil, components.user == nil, components.path.isEmpty
            else {
                throw ConfigurationError("--oidc-issuer \(oidcIssuer) must be https://host[:port], with no path, query or trailing / (http:// only on localhost)")
            }
            guard host == rpID || host.hasSuffix("." + rpID) else {
                throw ConfigurationError("--oidc-issuer \(oidcIssuer): its sign-in page signs in with passkeys of RP ID \(rpID), so its host must be \(rpID) or under it")
            }
        }
        guard oidcSessionLifetime.isFinite, (60...30 * 86_400).contains(oidcSessionLifetime) else {
            throw ConfigurationError("--oidc-session-seconds must be between 60 and 2592000 (30 days)")
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
        for (flag, url) in [("--enroll-url", enrollURL), ("--manage-url", manageURL), ("--prf-usage-url", prfUsageURL), ("--oidc-recovery-url", oidcRecoveryURL)] {
            guard let url else { continue }
            guard Self.isPageURL(url) else {
                throw ConfigurationError("\(flag) \(url) must be an absolute https:// URL (http:// only on localhost), as passkey managers open it")
            }
        }
    }

    /// Trusted attestation and the AAGUIDs it vouches for.
    func validateAttestationTrust() throws(ConfigurationError) {
        guard metadataRefreshInterval.isFinite, (1...86_400).contains(metadataRefreshInterval) else {
            throw ConfigurationError("--metadata-refresh-seconds must be between 1 and 86400")
        }
        if let metadataURL {
            guard let url = URL(string: metadataURL), ["https", "http"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
                throw ConfigurationError("--metadata-url must be an https:// URL such as https://mds3.fidoalliance.org/")
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
        if admitAuthenticators != .any, attestation != .direct {
            throw ConfigurationError(
                "--admit-authenticators \(admitAuthenticators) needs --attestation direct: only an attestation proves an authenticator's model, and with none every registration would be refused")
        }
        for aaguid in deniedAAGUIDs where AAGUID(aaguid) == nil {
            throw ConfigurationError("--denied-aaguid \(aaguid) must be an AAGUID such as cb69481e-8ff7-4039-93ec-0a2729a154a8")
        }
        for status in refuseSignInStatuses where !status.isCompromise {
            throw ConfigurationError(
                "--refuse-sign-in-status \(status) is not a compromise kind: use USER_KEY_PHYSICAL_COMPROMISE, USER_KEY_REMOTE_COMPROMISE, ATTESTATION_KEY_COMPROMISE, USER_VERIFICATION_BYPASS or REVOKED")
        }
        for aaguid in allowedAAGUIDs where AAGUID(aaguid) == nil {
            throw ConfigurationError("--allowed-aaguid \(aaguid) must be an AAGUID such as cb69481e-8ff7-4039-93ec-0a2729a154a8")
        }
        if !allowedAAGUIDs.isEmpty, !requireTrustedAttestation {
            throw ConfigurationError(
                "--allowed-aaguid needs --require-trusted-attestation: an authenticator's AAGUID is only a claim unless a trusted attestation vouches for it")
        }
    }

    /// The apps associated with the RP ID, and TLS.
    func validateAppsAndTLS() throws(ConfigurationError) {
        for appID in appleAppIDs where !Self.isAppleAppID(appID) {
            throw ConfigurationError("--apple-app-id \(appID) must be TEAMID.bundle.id (a 10-character team ID, then the bundle ID)")
        }
        for app in androidApps where app.origins.count != app.sha256Fingerprints.count {
            throw ConfigurationError("Android app \(app.packageName): fingerprints must be SHA-256, 32 hex bytes separated by colons")
        }
        guard (tlsCertificatePath == nil) == (tlsKeyPath == nil) else {
            throw ConfigurationError("--tls-cert and --tls-key go together")
        }
    }

    /// Connect rollout and token lifetimes.
    func validateConnect() throws(ConfigurationError) {
        guard (0...100).contains(connect.rollout.percentage) else { throw ConfigurationError("--rollout-percentage must be 0 to 100") }
        // 0 failures would send every device to the old login before its first try: --rollout-percentage 0 says that.
        guard (1...1_000).contains(connect.rollout.failureLimit) else { throw ConfigurationError("--failure-limit must be 1 to 1000") }
        guard (0...3_660).contains(connect.rollout.declineCooldownDays) else {
            throw ConfigurationError("--decline-cooldown-days must be 0 (ask again at once) to 3660")
        }
        for lifetime in [connect.signedDataLifetime, connect.connectTokenLifetime] where !(lifetime.isFinite && (1...Self.year).contains(lifetime)) {
            throw ConfigurationError("token lifetimes must be between 1 second and a year")
        }
    }

    /// The dashboard, and the bearer tokens of operators.
    func validateDashboard() throws(ConfigurationError) {
        guard (1...36_600).contains(dashboard.eventRetentionDays) else { throw ConfigurationError("--event-retention-days must be 1 to 36600") }
        guard dashboard.sessionIdleTimeout.isFinite, dashboard.sessionAbsoluteTimeout.isFinite, dashboard.sessionAbsoluteTimeout <= Self.year,
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

    /// An absolute `https://` URL of a page (`http://` on localhost), with no white space or credentials, as a passkey
    /// manager opens it from `/.well-known/passkey-endpoints`.
    static func isPageURL(_ text: String) -> Bool {
        guard text.utf8.count <= 2048, !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 }),
            let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), let host = components.host,
            !host.isEmpty, components.user == nil, components.password == nil
        else { return false }
        return scheme == "https" || (scheme == "http" && (host == "localhost" || host.hasSuffix(".localhost")))
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
