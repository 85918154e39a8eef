import ArgumentParser
import Foundation
import Logging
import PasskeyAttestation
import PasskeyRelyingParty
import PasskeyServer
import PasskeyWire

/// The ``ServerConfiguration`` the flags, the environment and the settings file make together (a flag wins over its
/// variable, which wins over the file), checked, with errors naming the setting as the operator gave it.
extension PasskeyServerCommand {
    /// `--log-level`, `PASSKEY_LOG_LEVEL` or the settings file's `log-level`; info when none is given.
    func logLevelSetting() throws -> Logger.Level {
        let settings = try loadSettings()
        guard let text = logLevel ?? settings.value("log-level") else { return .info }
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            throw ValidationError("\(logLevel == nil ? settings.name("log-level") : "--log-level") must be trace, debug, info, notice, warning, error or critical, not \"\(text)\"")
        }
        return level
    }

    /// The database the server and its subcommands use: `--database`, `PASSKEY_DATABASE`, the settings file, or the
    /// default.
    func databaseSetting() throws -> String {
        try database ?? loadSettings().value("database") ?? ServerConfiguration().database
    }

    /// The metadata settings the server runs with (the root BLOBs must chain to, from `--metadata-root`,
    /// `PASSKEY_METADATA_ROOT`, the settings file or the FIDO Alliance's; what a compromise refuses), alone: for the
    /// `metadata` subcommands.
    func metadataConfiguration() throws -> ServerConfiguration {
        let settings = try loadSettings()
        var configuration = ServerConfiguration()
        try applyMetadataSettings(settings, to: &configuration)
        return configuration
    }

    /// The metadata settings: one reading for a server and the `metadata` subcommands.
    func applyMetadataSettings(_ settings: Settings, to c: inout ServerConfiguration) throws {
        c.metadataRootPEM = try metadataRootPEM(settings)
        c.allowCompromisedAuthenticators = try allowCompromisedAuthenticators || settings.bool("allow-compromised-authenticators")
        let statuses = settings.list(refuseSignInStatus, "refuse-sign-in-status")
        if !statuses.isEmpty { c.refuseSignInStatuses = Set(statuses.map { AuthenticatorStatus(rawValue: $0.uppercased().replacingOccurrences(of: "-", with: "_")) }) }
        if let admission = admitAuthenticators ?? settings.value("admit-authenticators") {
            guard let parsed = AuthenticatorAdmission(admission) else {
                throw ValidationError("--admit-authenticators \(admission): use any, known or a level such as FIDO_CERTIFIED_L2")
            }
            c.admitAuthenticators = parsed
        }
        c.deniedAAGUIDs = settings.list(deniedAaguid, "denied-aaguid")
        c.requireDeviceBound = try requireDeviceBound || settings.bool("require-device-bound")
        c.metadataURL = metadataUrl ?? settings.value("metadata-url")
        if let seconds = try metadataRefreshSeconds ?? settings.double("metadata-refresh-seconds") { c.metadataRefreshInterval = seconds }
    }

    /// The text of the `--metadata-root` setting's PEM file, wherever the setting came from; nil when it is not given.
    func metadataRootPEM(_ settings: Settings) throws -> String? {
        try Self.metadataRootPEM(
            metadataRoot ?? settings.value("metadata-root"), name: metadataRoot == nil ? settings.name("metadata-root") : "--metadata-root")
    }

    /// The RP ID the server runs with: `--rp-id`, `PASSKEY_RP_ID`, the settings file, or the default.
    func rpIDSetting() throws -> String {
        try configuredRPID() ?? ServerConfiguration().rpID
    }

    /// The RP ID when one is set (`--rp-id`, `PASSKEY_RP_ID`, the settings file), nil for the default.
    func configuredRPID() throws -> String? {
        try rpId ?? loadSettings().value("rp-id")
    }

    func loadSettings() throws -> Settings {
        guard let path = config ?? Self.environment("config") else { return Settings(file: SettingsFile(values: [:])) }
        do { return Settings(file: try SettingsFile.load(path: path, known: Self.settingNames)) } catch {
            throw ValidationError(error.description)
        }
    }

    /// Where webhook receivers may be: `--webhook-allow-network`, `--webhook-allow-host`, `--webhook-endpoint-limit`,
    /// and this machine's addresses, which are never a receiver's. The server and `passkey-server webhooks` share it.
    func webhookReceiverPolicy(_ settings: Settings? = nil) throws -> WebhookReceiverPolicy {
        let settings = try settings ?? loadSettings()
        let networkName = webhookAllowNetwork.isEmpty ? settings.name("webhook-allow-network") : "--webhook-allow-network"
        let networks = try settings.list(webhookAllowNetwork, "webhook-allow-network").map { text in
            guard let network = IPNetwork(text) else {
                throw ValidationError("\(networkName) must be a network in CIDR notation with its host bits zero (10.1.0.0/16, fd00:1::/48), not \"\(text)\"")
            }
            return network
        }
        let hostName = webhookAllowHost.isEmpty ? settings.name("webhook-allow-host") : "--webhook-allow-host"
        let hosts = try settings.list(webhookAllowHost, "webhook-allow-host").map { text in
            // An IPv6 address bare or in brackets, as a URL writes it.
            let bare = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
            if bare.contains(":"), let address = IPAddress(bare) { return address.description }
            guard let url = try? WebhookURL(parsing: "https://\(text)/"), url.host.description == text.lowercased() else {
                throw ValidationError("\(hostName) must be a host name or an address (hooks.internal.example.com, localhost, 10.1.2.3, ::1), not \"\(text)\"")
            }
            return url.host.description
        }
        var limit = WebhookReceiverPolicy.defaultMaximumEndpoints
        if let value = try webhookEndpointLimit ?? settings.int("webhook-endpoint-limit") {
            guard (1...1000).contains(value) else { throw ValidationError("--webhook-endpoint-limit must be 1 to 1000") }
            limit = value
        }
        // The machine's own addresses are asked of the resolver at every check, not read once here.
        return WebhookReceiverPolicy(allowedNetworks: networks, allowedHosts: Set(hosts), maximumEndpoints: limit)
    }

    func makeConfiguration() throws -> ServerConfiguration {
        let settings = try loadSettings()
        var c = ServerConfiguration()
        try applyRelyingParty(&c, settings)
        try applyWebhooks(&c, settings)
        try applyLimits(&c, settings)
        try applyConnect(&c, settings)
        try applyDashboardAndTLS(&c, settings)
        do {
            try c.validate()
            _ = try DatabaseURL(c.database)
        } catch { throw ValidationError(Self.naming(error.description, settings)) }
        return c
    }

    /// The relying party, its origins and apps, and what ceremonies accept.
    func applyRelyingParty(_ c: inout ServerConfiguration, _ settings: Settings) throws {
        c.host = host ?? settings.value("host") ?? c.host
        if let value = try port ?? settings.int("port") { c.port = value }
        c.rpID = rpId ?? settings.value("rp-id") ?? c.rpID
        c.rpName = rpName ?? settings.value("rp-name") ?? c.rpName
        c.origins = settings.list(origin, "origin")
        c.relatedOrigins = settings.list(relatedOrigin, "related-origin")
        c.publicURL = publicUrl ?? settings.value("public-url")
        c.oidcIssuer = oidcIssuer ?? settings.value("oidc-issuer")
        c.oidcRecoveryURL = oidcRecoveryUrl ?? settings.value("oidc-recovery-url")
        if let seconds = try oidcSessionSeconds ?? settings.double("oidc-session-seconds") { c.oidcSessionLifetime = seconds }
        c.enrollURL = enrollUrl ?? settings.value("enroll-url")
        c.manageURL = manageUrl ?? settings.value("manage-url")
        c.prfUsageURL = prfUsageUrl ?? settings.value("prf-usage-url")
        c.database = database ?? settings.value("database") ?? c.database
        c.challengeTTL = try challengeTtl ?? settings.double("challenge-ttl") ?? c.challengeTTL
        c.userVerification = UserVerificationRequirement(rawValue: userVerification ?? settings.value("user-verification") ?? "required")
        c.attestation = AttestationConveyancePreference(rawValue: attestation ?? settings.value("attestation") ?? "none")
        let algorithmNames = settings.list(algorithm, "algorithm")
        if !algorithmNames.isEmpty {
            c.algorithms = try algorithmNames.map { name in
                if let number = Int(name) { return COSEAlgorithmIdentifier(rawValue: number) }
                let known: [COSEAlgorithmIdentifier] = [.es256, .edDSA, .es384, .es512, .ps256, .rs256, .mlDSA65, .mlDSA87]
                guard let match = known.first(where: { $0.name?.lowercased() == name.lowercased() }) else {
                    throw ValidationError("unknown algorithm \(name): use ES256, EdDSA, ES384, ES512, PS256, RS256, ML-DSA-65, ML-DSA-87 or a COSE number")
                }
                return match
            }
        }
        c.attestationTrustAnchors = try Self.attestationRoots(
            settings.list(attestationRoot, "attestation-root"), name: attestationRoot.isEmpty ? settings.name("attestation-root") : "--attestation-root")
        try applyMetadataSettings(settings, to: &c)
        c.requireTrustedAttestation = try requireTrustedAttestation || settings.bool("require-trusted-attestation")
        c.allowedAAGUIDs = settings.list(allowedAaguid, "allowed-aaguid")
        c.allowBackupEligibilityChange = try allowBackupEligibilityChange || settings.bool("allow-backup-eligibility-change")
        c.allowCounterRegression = try allowCounterRegression || settings.bool("allow-counter-regression")
        c.appleAppIDs = settings.list(appleAppId, "apple-app-id")
        c.androidApps = try Self.androidApps(androidApp.isEmpty ? settings.value("android-app").map { [$0] } ?? [] : androidApp)
        c.trustProxyHeaders = try trustProxyHeaders || settings.bool("trust-proxy-headers")
        c.publicRegistration = try !(noPublicRegistration || settings.bool("no-public-registration"))
        c.signalUnknownCredentials = try !(noUnknownCredentialSignal || settings.bool("no-unknown-credential-signal"))
    }

    /// Webhook delivery: retries, timeout, where receivers may be.
    func applyWebhooks(_ c: inout ServerConfiguration, _ settings: Settings) throws {
        if let schedule = webhookRetrySchedule ?? settings.value("webhook-retry-schedule") {
            let delays = schedule.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard !delays.isEmpty, delays.count <= 50, delays.allSatisfy({ $0.map { $0.isFinite && $0 >= 0.1 && $0 <= 7 * 86_400 } ?? false }) else {
                throw ValidationError("--webhook-retry-schedule must be 1 to 50 comma-separated numbers of seconds, each 0.1 to 604800")
            }
            c.webhooks.retry.delays = delays.compactMap { $0 }.map { .milliseconds(Int64(($0 * 1000).rounded())) }
        }
        if let timeout = try webhookTimeout ?? settings.double("webhook-timeout") {
            guard timeout.isFinite, (1...120).contains(timeout) else { throw ValidationError("--webhook-timeout must be 1 to 120 seconds") }
            c.webhooks.retry.timeout = .milliseconds(Int64(timeout * 1000))
        }
        c.webhooks.deliver = try !(noWebhookDelivery || settings.bool("no-webhook-delivery"))
        c.webhooks.receivers = try webhookReceiverPolicy(settings)
    }

    /// How long a request may take to arrive, and how many options a client may ask for.
    func applyLimits(_ c: inout ServerConfiguration, _ settings: Settings) throws {
        c.requestTimeout = try requestTimeout ?? settings.double("request-timeout") ?? c.requestTimeout
        c.requestMinimumRate = try requestMinimumRate ?? settings.int("request-minimum-rate") ?? c.requestMinimumRate
        if let value = try optionsPerMinute ?? settings.int("options-per-minute") {
            guard value >= 1 else { throw ValidationError("--options-per-minute must be at least 1") }
            c.optionsPerMinute = value
        }
    }

    /// Connect tokens and the rollout decisions.
    func applyConnect(_ c: inout ServerConfiguration, _ settings: Settings) throws {
        c.connect.tokenAudience = tokenAudience ?? settings.value("token-audience")
        c.connect.tokenIssuer = tokenIssuer ?? settings.value("token-issuer")
        c.connect.signedDataLifetime = try signedDataTtl ?? settings.double("signed-data-ttl") ?? c.connect.signedDataLifetime
        c.connect.connectTokenLifetime = try connectTokenTtl ?? settings.double("connect-token-ttl") ?? c.connect.connectTokenLifetime
        switch rollout ?? settings.value("rollout") ?? "on" {
        case "on": c.connect.rollout.enabled = true
        case "off": c.connect.rollout.enabled = false
        default: throw ValidationError("--rollout must be on or off")
        }
        c.connect.rollout.percentage = try rolloutPercentage ?? settings.int("rollout-percentage") ?? 100
        c.connect.rollout.platforms = settings.list(rolloutPlatform, "rollout-platform")
        for spec in settings.list(rolloutMinimumOs, "rollout-minimum-os") {
            let parts = spec.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { throw ValidationError("--rollout-minimum-os takes PLATFORM=VERSION, such as iOS=16.0") }
            c.connect.rollout.minimumOSVersions[String(parts[0])] = String(parts[1])
        }
        c.connect.rollout.declineCooldownDays = try declineCooldownDays ?? settings.int("decline-cooldown-days") ?? 14
        c.connect.rollout.failureLimit = try failureLimit ?? settings.int("failure-limit") ?? 3
        c.connect.rollout.autoAppend = try autoAppend || settings.bool("auto-append")
    }

    /// The dashboard, the operators' secrets (from the environment only) and TLS.
    func applyDashboardAndTLS(_ c: inout ServerConfiguration, _ settings: Settings) throws {
        c.dashboard.eventRetentionDays = try eventRetentionDays ?? settings.int("event-retention-days") ?? c.dashboard.eventRetentionDays
        if let minutes = try adminIdleMinutes ?? settings.double("admin-idle-minutes") { c.dashboard.sessionIdleTimeout = minutes * 60 }
        // Break-glass dashboard token: from the environment only, never a flag (flags show in process lists).
        // Trimmed: a secret read from a file (`$(cat …)`, a Kubernetes secret) often ends with a line break, which a
        // client's bearer token never carries.
        c.dashboard.adminToken = Self.secret("admin-token")
        // Likewise the token that /metrics asks for, when set.
        c.metricsToken = Self.secret("metrics-token", keepBlank: true)
        c.tlsCertificatePath = tlsCert ?? settings.value("tls-cert")
        c.tlsKeyPath = tlsKey ?? settings.value("tls-key")
    }

    /// A start-up error names the setting as the operator gave it: `PASSKEY_PORT`, or the settings file's line, when
    /// the flag that opens the message was not on the command line (the configuration's checks speak in flags).
    static func naming(_ message: String, _ settings: Settings, arguments: [String] = CommandLine.arguments) -> String {
        guard message.hasPrefix("--") else { return message }
        let flag = String(message.dropFirst(2).prefix { $0.isLetter || $0.isNumber || $0 == "-" })
        guard !arguments.contains(where: { $0 == "--" + flag || $0.hasPrefix("--" + flag + "=") }) else { return message }
        let name = settings.name(flag)
        // Neither the environment nor the file: a default, said as the flag that changes it.
        guard name != flag else { return message }
        return name + message.dropFirst(2 + flag.count)
    }

    /// The text of `--metadata-root`'s PEM file, checked to hold a certificate; nil when the setting is not given.
    static func metadataRootPEM(_ path: String?, name: String) throws -> String? {
        guard let path else { return nil }
        let pem: String
        do { pem = try String(contentsOfFile: path, encoding: .utf8) } catch { throw ValidationError("\(name): cannot read \(path)") }
        do { _ = try MetadataBLOBVerifier(rootPEM: pem) } catch { throw ValidationError("\(name): \(path): \(error.reason)") }
        return pem
    }

    /// The formats whose statements carry certificate chains: what an `--attestation-root` without `FORMAT=` covers.
    static let certificateFormats: [AttestationFormat] = [.packed, .fidoU2F, .tpm, .androidKey, .androidSafetyNet, .apple]

    /// `--attestation-root` values, `PATH` or `FORMAT=PATH`, read into trust anchors.
    /// `name`: the setting as the user gave it (`--attestation-root`, `PASSKEY_ATTESTATION_ROOT`, the settings file's line).
    static func attestationRoots(_ specs: [String], name: String = "--attestation-root") throws -> TrustAnchors {
        var anchors = TrustAnchors.empty
        for spec in specs {
            var formats = certificateFormats
            var path = spec
            if let equals = spec.firstIndex(of: "="), !spec.hasPrefix("/"), !spec.hasPrefix(".") {
                let formatName = String(spec[..<equals])
                guard let format = certificateFormats.first(where: { $0.rawValue == formatName }) else {
                    throw ValidationError(
                        "\(name) \(spec): \(formatName) is not a format with certificates (\(certificateFormats.map(\.rawValue).joined(separator: ", ")))")
                }
                formats = [format]
                path = String(spec[spec.index(after: equals)...])
            }
            guard !path.isEmpty else { throw ValidationError("\(name) \(spec): give the path of a PEM file after \(spec)") }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw ValidationError("\(name) \(path): no such file (a PEM file of root certificates)")
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ValidationError("\(name) \(path): cannot read the file (permissions?)")
            }
            guard let pem = String(data: data, encoding: .utf8), pem.contains("-----BEGIN") else {
                throw ValidationError(
                    "\(name) \(path): not PEM certificates (a DER file? convert it with: openssl x509 -inform der -in \(path) -out root.pem)")
            }
            // Read once, then trusted for each format it covers.
            let parsed: TrustAnchors
            do { parsed = try TrustAnchors(pem: pem, for: .packed) } catch {
                throw ValidationError("\(name) \(path): not PEM certificates (\(error.reason))")
            }
            for format in formats { anchors = anchors.adding(parsed.roots(for: .packed), for: format) }
        }
        return anchors
    }

    /// Android apps from `--android-app` values, or from the one comma-separated value of `PASSKEY_ANDROID_APP` or the
    /// settings file, where commas also separate apps: an item with `=` starts an app (`PACKAGE=FINGERPRINT`), an item
    /// without one is another fingerprint of the app before it. A fingerprint may carry keytool's `SHA256:` label.
    static func androidApps(_ values: [String]) throws -> [ServerConfiguration.AndroidApp] {
        var apps: [(package: String, fingerprints: [String])] = []
        for item in values.flatMap({ $0.split(separator: ",") }).map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            var fingerprint = item
            if let equals = item.firstIndex(of: "=") {
                let package = item[..<equals].trimmingCharacters(in: .whitespaces)
                guard !package.isEmpty else { throw ValidationError("--android-app takes PACKAGE=FINGERPRINT[,FINGERPRINT], not \"\(item)\"") }
                apps.append((package, []))
                fingerprint = item[item.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            }
            guard !apps.isEmpty else { throw ValidationError("--android-app takes PACKAGE=FINGERPRINT[,FINGERPRINT], not \"\(item)\"") }
            if fingerprint.uppercased().hasPrefix("SHA256:") { fingerprint = String(fingerprint.dropFirst("SHA256:".count)) }
            if !fingerprint.isEmpty { apps[apps.count - 1].fingerprints.append(fingerprint) }
        }
        // One statement per package, in the order given, each fingerprint once (case aside).
        var merged: [(package: String, fingerprints: [String])] = []
        for app in apps {
            if !merged.contains(where: { $0.package == app.package }) { merged.append((app.package, [])) }
            guard let index = merged.firstIndex(where: { $0.package == app.package }) else { continue }
            for fingerprint in app.fingerprints where !merged[index].fingerprints.contains(where: { $0.uppercased() == fingerprint.uppercased() }) {
                merged[index].fingerprints.append(fingerprint)
            }
        }
        return try merged.map { app in
            guard !app.fingerprints.isEmpty else { throw ValidationError("--android-app \(app.package) needs at least one fingerprint") }
            return .init(packageName: app.package, sha256Fingerprints: app.fingerprints)
        }
    }
}
