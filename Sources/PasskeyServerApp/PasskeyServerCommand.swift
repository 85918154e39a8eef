import ArgumentParser
import PasskeyVersion
import Foundation
import Hummingbird
import Logging
import NIOCore
import PasskeyAttestation
import PasskeyServer
import PasskeyWire

/// `passkey-server`: the relying-party server. Every flag can also be set with `PASSKEY_<FLAG>` (upper case, `_` for `-`),
/// for example `PASSKEY_RP_ID=example.com`, or in a settings file (`--config`, ``SettingsFile``); a flag wins over its
/// environment variable, which wins over the file.
@main
struct PasskeyServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkey-server",
        abstract: "A self-hosted passkey (WebAuthn) relying-party server.",
        discussion: """
            With no arguments it serves http://localhost:8080 for RP ID localhost, with an SQLite database in ./data/.
            Every option can also be given as an environment variable: PASSKEY_ plus the flag name in upper case with _ for -
            (PASSKEY_RP_ID, PASSKEY_ORIGIN as a comma-separated list, ...), or in a settings file given with --config
            (PASSKEY_CONFIG): name = value lines with the flag names. Flags win over environment variables, which win over the file.
            Several instances can share one PostgreSQL database (--database postgres://…): see docs/deploy.md.
            Subcommands migrate the database and manage backend API keys, token signing keys, dashboard admin invites and accounts in it.
            The admin dashboard is at /dashboard; with no admin yet, the server prints a one-time setup link at start.
            PASSKEY_ADMIN_TOKEN (environment only, 32+ characters) is a break-glass bearer token for the dashboard's API.
            """,
        version: PasskeyVersion.description,
        subcommands: [
            MigrateCommand.self, APIKeysCommand.self, KeysCommand.self, AdminCommand.self, UsersCommand.self, ExportCommand.self, ImportCommand.self, BackupCommand.self,
        ]
    )

    @Option(help: "Settings file: name = value lines with these flags' names (see docs/deploy.md); flags and PASSKEY_ variables win over it.")
    var config: String?
    @Option(help: "Address to bind (default 127.0.0.1; 0.0.0.0 behind a proxy).") var host: String?
    @Option(help: "Port (default 8080).") var port: Int?
    @Option(help: "RP ID: the domain passkeys belong to (default localhost).") var rpId: String?
    @Option(help: "Relying party name shown at registration (default \"Passkey Server\").") var rpName: String?
    @Option(help: "Accepted origin, repeatable: https://www.example.com, https://<rp id> for iOS apps, android:apk-key-hash:… (default http://localhost:<port> for localhost, else https://<rp id>; https:// and the port with --tls-cert).")
    var origin: [String] = []
    @Option(help: "Another web origin that may use this RP ID (WebAuthn related origins): accepted like --origin and listed in /.well-known/webauthn, repeatable.") var relatedOrigin: [String] = []
    @Option(help: "The address browsers reach this server at, such as https://auth.example.com, when it is not the first --origin: printed links (dashboard setup, admin invites) start there, /openapi.json names it, and the dashboard's passkeys may be used there (default: the first web --origin).")
    var publicUrl: String?
    @Option(help: "Database: sqlite:PATH (default sqlite:./data/passkey.sqlite), postgres://user:password@host:5432/database (also postgresql://) or memory:.")
    var database: String?
    @Option(help: "Seconds options stay valid (default 60, minimum 1).") var challengeTtl: Double?
    @Option(help: "User verification: required (default), preferred or discouraged.") var userVerification: String?
    @Option(help: "Attestation: none (default) or direct.") var attestation: String?
    @Option(help: "Trust root for attestation certificate chains, repeatable: PATH of a PEM file (every certificate format) or FORMAT=PATH (packed, fido-u2f, tpm, android-key, android-safetynet, apple). A format with roots refuses chains that reach none of them (default: none; chains are recorded, not judged).")
    var attestationRoot: [String] = []
    @Flag(help: "Refuse registrations whose attestation does not reach an --attestation-root (none and self attestation included): for deployments that admit only the security keys they issue. Needs --attestation direct and at least one --attestation-root; not with --auto-append (default off).")
    var requireTrustedAttestation = false
    @Flag(help: "Accept a sign-in whose backup eligibility (BE flag) differs from the one stored at registration, which WebAuthn refuses (backup_eligibility_changed): for password managers known to change it on passkeys they already hold. The stored value is kept (default off).")
    var allowBackupEligibilityChange = false
    @Flag(help: "Accept a sign-in whose signature counter did not increase, which WebAuthn treats as a possibly cloned authenticator (counter_regressed): for authenticators with unreliable counters. The sign-in is flagged counterRegressed in its answer and its signedPasskeyData, and logged; the stored counter stays (default off).")
    var allowCounterRegression = false
    @Option(help: "Authenticator model (AAGUID) that may register, repeatable; needs --require-trusted-attestation, and pins models only under packed and fido-u2f roots of security-key vendors (default: any model).")
    var allowedAaguid: [String] = []
    // Unconditional: COSE numbers are negative (`--algorithm -7`), which would otherwise read as another flag.
    @Option(
        parsing: .unconditionalSingleValue,
        help: "Algorithm offered in pubKeyCredParams, repeatable: ES256, EdDSA, ES384, ES512, PS256, RS256, ML-DSA-65, ML-DSA-87 or a COSE number such as -7 (default ES256, EdDSA, RS256).")
    var algorithm: [String] = []
    @Option(help: "Apple app allowed to use these passkeys, TEAMID.bundle.id, repeatable (webcredentials).") var appleAppId: [String] = []
    @Option(help: "Android app, PACKAGE=FINGERPRINT[,FINGERPRINT], repeatable: the SHA-256 of its signing certificate as AB:CD:… hex (assetlinks.json and android:apk-key-hash origins). In PASSKEY_ANDROID_APP or the settings file, separate apps with commas too.")
    var androidApp: [String] = []
    @Flag(help: "Behind a reverse proxy every request comes through: count clients by the last X-Forwarded-For entry (the address the proxy saw) and send HSTS when X-Forwarded-Proto is https (default off).")
    var trustProxyHeaders = false
    @Flag(help: "Refuse new accounts through the public ceremony API (403 registration_closed): for an app that keeps its own login and adds passkeys only with connect tokens from its backend (default: open).")
    var noPublicRegistration = false
    @Option(help: "Seconds a request has to arrive, headers and body, from its first byte, plus one per --request-minimum-rate bytes it sent; later is 408 request_timeout and the connection closes (default 20).")
    var requestTimeout: Double?
    @Option(help: "Bytes per second that earn a request one more second to arrive (default 1000; 0: --request-timeout and no more).")
    var requestMinimumRate: Int?
    @Option(help: "Options requests allowed per client per minute before 429 (default 60; raise it for load tests).")
    var optionsPerMinute: Int?
    @Option(help: "aud of signedPasskeyData, checked by the app's backend (default: the RP ID).") var tokenAudience: String?
    @Option(help: "iss of signedPasskeyData (default: the first origin).") var tokenIssuer: String?
    @Option(help: "Seconds signedPasskeyData stays valid (default 300).") var signedDataTtl: Double?
    @Option(help: "Seconds a connect token stays valid (default 300).") var connectTokenTtl: Double?
    @Option(help: "Offer passkeys through the decision endpoints: on (default) or off.") var rollout: String?
    @Option(help: "Share of users offered passkeys, 0-100, stable per user (default 100).") var rolloutPercentage: Int?
    @Option(help: "Platform offered passkeys, repeatable: iOS, macOS, Android, Windows, ... (default: all).") var rolloutPlatform: [String] = []
    @Option(help: "Lowest OS version per platform, repeatable: iOS=16.0 (default: none).") var rolloutMinimumOs: [String] = []
    @Option(help: "Days before asking again after a user declines a passkey, 0-3660 (default 14).") var declineCooldownDays: Int?
    @Option(help: "Consecutive passkey failures on a device before falling back to the old login, 1-1000 (default 3).") var failureLimit: Int?
    @Flag(help: "Add passkeys without asking where the OS allows it (conditional create; default off).") var autoAppend = false
    @Option(help: "Days the dashboard keeps ceremony and admin events (default 30).") var eventRetentionDays: Int?
    @Option(help: "Minutes a dashboard session lasts without a request (default 15).") var adminIdleMinutes: Double?
    @Option(help: "Lowest level logged: trace, debug, info, notice, warning, error or critical (default info: one line per request).")
    var logLevel: String?
    @Option(help: "PEM certificate chain, to serve HTTPS directly.") var tlsCert: String?
    @Option(help: "PEM private key, with --tls-cert.") var tlsKey: String?

    /// The settings a file given with `--config` may hold, and the `PASSKEY_` variables: every flag above but
    /// `--config` itself (and ArgumentParser's `--help` and `--version`). Read from the flags' own declarations
    /// (ArgumentParser's description of the command), so a flag declared above is a setting of the file and an
    /// environment variable at once, with no list to keep in step.
    static let settingNames: Set<String> = declaredFlags.subtracting(["config", "help", "version"])

    /// The long names of the server command's own options and flags.
    static var declaredFlags: Set<String> {
        guard let description = try? JSONValue.parse(Array(_dumpHelp().utf8)),
            let arguments = description.objectValue?["command"]?.objectValue?["arguments"]?.arrayValue
        else { return [] }
        var names: Set<String> = []
        for argument in arguments {
            for name in argument.objectValue?["names"]?.arrayValue ?? [] where name.objectValue?["kind"]?.stringValue == "long" {
                if let text = name.objectValue?["name"]?.stringValue { names.insert(text) }
            }
        }
        return names
    }

    /// `PASSKEY_` variables other tools of this project read: not settings of the server, and not mistakes.
    static let otherVariables: Set<String> = [
        "CONFIG", "ADMIN_TOKEN", "METRICS_TOKEN", "CONNECT_TOKEN", "SERVER_URL", "API_KEY", "TEST_POSTGRES_URL", "TEST_POSTGRES_BIN",
        "BENCH_MARKS", "APPLE_ADAPTER",
    ]

    /// A warning for each `PASSKEY_…` variable in `environment` that names no setting, with the one it most likely
    /// meant: a misspelt variable (`PASSKEY_RPID`) is otherwise ignored without a word, and the server runs on a default.
    static func unknownVariableWarnings(_ environment: [String: String]) -> [String] {
        let known = Set(settingNames.map { $0.uppercased().replacingOccurrences(of: "-", with: "_") }).union(otherVariables)
        func letters(_ name: String) -> String { name.filter { $0 != "_" } }
        return environment.keys.filter { $0.hasPrefix("PASSKEY_") }.sorted().compactMap { variable in
            let name = String(variable.dropFirst("PASSKEY_".count))
            guard !known.contains(name) else { return nil }
            let meant = known.first { letters($0) == letters(name.uppercased()) }
            return "warning: \(variable) is not a passkey-server setting and is ignored"
                + (meant.map { ": did you mean PASSKEY_\($0)?" } ?? " (passkey-server --help lists the settings)")
        }
    }

    /// `--log-level`, `PASSKEY_LOG_LEVEL` or the settings file's `log-level`; info when none is given.
    func logLevelSetting() throws -> Logger.Level {
        let settings = try loadSettings()
        guard let text = logLevel ?? settings.value("log-level") else { return .info }
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            throw ValidationError("\(logLevel == nil ? settings.name("log-level") : "--log-level") must be trace, debug, info, notice, warning, error or critical, not \"\(text)\"")
        }
        return level
    }

    /// A secret from the environment, trimmed. With `keepBlank`, a variable that is set but blank gives `""` rather than
    /// nil, so validation can refuse it: for a token whose absence opens something up, an empty value is more likely a
    /// template whose source was missing (`PASSKEY_METRICS_TOKEN=${TOKEN}`) than a wish for no token.
    static func secret(_ flag: String, keepBlank: Bool = false) -> String? {
        let name = "PASSKEY_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
        guard let value = ProcessInfo.processInfo.environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines) else { return nil }
        return value.isEmpty && !keepBlank ? nil : value
    }

    static func environment(_ flag: String) -> String? {
        let name = "PASSKEY_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// A setting not given as a flag: its environment variable, else the settings file.
    struct Settings {
        let file: SettingsFile

        func value(_ flag: String) -> String? {
            PasskeyServerCommand.environment(flag) ?? file.values[flag].flatMap { $0.isEmpty ? nil : $0 }
        }

        /// The setting's name as the user wrote it: `PASSKEY_PORT` when the environment set it, else the file's line
        /// and `port` (`/etc/passkey-server.conf:4: port`).
        func name(_ flag: String) -> String {
            if PasskeyServerCommand.environment(flag) != nil { return "PASSKEY_" + flag.uppercased().replacingOccurrences(of: "-", with: "_") }
            return file.location(of: flag).map { "\($0): \(flag)" } ?? flag
        }

        func list(_ values: [String], _ flag: String) -> [String] {
            values.isEmpty ? (value(flag)?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []) : values
        }

        /// A number setting; one that is set but is not a number is an error, not the default.
        func int(_ flag: String) throws -> Int? {
            guard let text = value(flag) else { return nil }
            guard let number = Int(text) else { throw ValidationError("\(name(flag)) must be a whole number, not \"\(text)\"") }
            return number
        }

        func double(_ flag: String) throws -> Double? {
            guard let text = value(flag) else { return nil }
            guard let number = Double(text), number.isFinite else { throw ValidationError("\(name(flag)) must be a number, not \"\(text)\"") }
            return number
        }

        /// A switch: `true` or `false`.
        func bool(_ flag: String) throws -> Bool {
            switch value(flag) {
            case nil, "false": return false
            case "true": return true
            case let text?: throw ValidationError("\(name(flag)) must be true or false, not \"\(text)\"")
            }
        }
    }

    /// The database the server and its subcommands use: `--database`, `PASSKEY_DATABASE`, the settings file, or the
    /// default.
    func databaseSetting() throws -> String {
        try database ?? loadSettings().value("database") ?? ServerConfiguration().database
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

    func makeConfiguration() throws -> ServerConfiguration {
        let settings = try loadSettings()
        var c = ServerConfiguration()
        c.host = host ?? settings.value("host") ?? c.host
        if let value = try port ?? settings.int("port") { c.port = value }
        c.rpID = rpId ?? settings.value("rp-id") ?? c.rpID
        c.rpName = rpName ?? settings.value("rp-name") ?? c.rpName
        c.origins = settings.list(origin, "origin")
        c.relatedOrigins = settings.list(relatedOrigin, "related-origin")
        c.publicURL = publicUrl ?? settings.value("public-url")
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
        c.requireTrustedAttestation = try requireTrustedAttestation || settings.bool("require-trusted-attestation")
        c.allowedAAGUIDs = settings.list(allowedAaguid, "allowed-aaguid")
        c.allowBackupEligibilityChange = try allowBackupEligibilityChange || settings.bool("allow-backup-eligibility-change")
        c.allowCounterRegression = try allowCounterRegression || settings.bool("allow-counter-regression")
        c.appleAppIDs = settings.list(appleAppId, "apple-app-id")
        c.androidApps = try Self.androidApps(androidApp.isEmpty ? settings.value("android-app").map { [$0] } ?? [] : androidApp)
        c.trustProxyHeaders = try trustProxyHeaders || settings.bool("trust-proxy-headers")
        c.publicRegistration = try !(noPublicRegistration || settings.bool("no-public-registration"))
        c.requestTimeout = try requestTimeout ?? settings.double("request-timeout") ?? c.requestTimeout
        c.requestMinimumRate = try requestMinimumRate ?? settings.int("request-minimum-rate") ?? c.requestMinimumRate
        if let value = try optionsPerMinute ?? settings.int("options-per-minute") {
            guard value >= 1 else { throw ValidationError("--options-per-minute must be at least 1") }
            c.optionsPerMinute = value
        }
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
        do {
            try c.validate()
            _ = try DatabaseURL(c.database)
        } catch { throw ValidationError(Self.naming(error.description, settings)) }
        return c
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

    func run() async throws {
        for warning in Self.unknownVariableWarnings(ProcessInfo.processInfo.environment) {
            FileHandle.standardError.write(Data((warning + "\n").utf8))
        }
        let configuration = try makeConfiguration()
        for warning in configuration.warnings {
            FileHandle.standardError.write(Data(("warning: " + warning + "\n").utf8))
        }
        var logger = Logger(label: "passkey-server", factory: { LogLineHandler(label: $0) })
        logger.logLevel = try logLevelSetting()
        let scheme = configuration.tlsCertificatePath == nil ? "http" : "https"
        let shownHost = configuration.host == "127.0.0.1" ? "localhost" : configuration.host
        // Printed once the server listens, with the port it listens on; written unbuffered, so it shows at once also
        // when stdout is a file or a pipe.
        let app = try await serve(configuration, logger: logger) { port in
            let banner = """
                passkey-server serving \(scheme)://\(shownHost):\(port)
                  RP ID     \(configuration.rpID)
                  origins   \(configuration.effectiveOrigins.joined(separator: ", "))
                  data      \(DatabaseURL.described(configuration.database))\(configuration.publicRegistration ? "" : "\n  accounts only through connect tokens (--no-public-registration)")\(configuration.attestation == .none && configuration.attestationTrustAnchors.roots.isEmpty ? "" : "\n  attestation \(configuration.attestationDescription.replacingOccurrences(of: "\n", with: "; "))")
                  dashboard \(configuration.linkBase)/dashboard\(configuration.linkBaseIsGuessed ? " (from the first --origin: give --public-url if this server is reached elsewhere)" : "")

                """
            FileHandle.standardOutput.write(Data(banner.utf8))
        }
        do {
            try await app.runService()
            logger.notice("stopped")
        } catch let error as IOError where "\(error)".hasPrefix("bind(") {
            // The socket's own words ("bind(descriptor:ptr:bytes:): Address already in use") name neither the port
            // nor what to do.
            let address = "\(configuration.host) port \(configuration.port)"
            let sentence =
                switch error.errnoCode {
                case EADDRINUSE: "\(address) is already in use (another passkey-server, or another program): stop it, or choose another --port"
                case EACCES where configuration.port < 1024:
                    "not allowed to listen on \(address): ports below 1024 need privileges; choose another --port, or serve behind a proxy"
                case EACCES: "not allowed to listen on \(address) (permission denied by the system's security policy)"
                case EADDRNOTAVAIL:
                    "cannot listen on \(address): --host \(configuration.host) is not an address of this machine (0.0.0.0 listens on all of them)"
                default: "cannot listen on \(address): \(String(cString: strerror(error.errnoCode)))"
                }
            throw StartFailure(sentence)
        } catch is SocketAddressError.UnknownHost {
            throw StartFailure("cannot listen on --host \(configuration.host): not an address or a name this machine can resolve")
        } catch is SocketAddressError {
            throw StartFailure("cannot listen on --host \(configuration.host): not an address or a name this machine can resolve")
        }
    }
}

/// A start that failed for a reason the person can fix, said in one sentence.
struct StartFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension PasskeyServerCommand {
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
