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
            HealthCommand.self, WebhooksCommand.self, MetadataCommand.self, OpenIDClientsCommand.self,
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
    @Option(help: "Be an OpenID Provider with this issuer URL, such as https://auth.example.com (docs/oidc.md): discovery at <issuer>/.well-known/openid-configuration, clients added with `passkey-server oidc-clients add` (default: not a provider).")
    var oidcIssuer: String?
    @Option(help: "Seconds a browser's sign-in at the OpenID Provider lasts, so another application signs in without a new passkey ceremony (default 28800, 8 hours).")
    var oidcSessionSeconds: Double?
    @Option(help: "Where the OpenID sign-in page sends a person who lost the device with their passkey: your page that checks who they are and has your backend mint a recovery link (default: the page tells them to ask for one).")
    var oidcRecoveryUrl: String?
    @Option(help: "Database: sqlite:PATH (default sqlite:./data/passkey.sqlite), postgres://user:password@host:5432/database (also postgresql://) or memory:.")
    var database: String?
    @Option(help: "Seconds options stay valid (default 60, minimum 1).") var challengeTtl: Double?
    @Option(help: "User verification: required (default), preferred or discouraged.") var userVerification: String?
    @Option(help: "Attestation: none (default) or direct.") var attestation: String?
    @Option(help: "Trust root for attestation certificate chains, repeatable: PATH of a PEM file (every certificate format) or FORMAT=PATH (packed, fido-u2f, tpm, android-key, android-safetynet, apple). A format with roots refuses chains that reach none of them (default: none; chains are recorded, not judged).")
    var attestationRoot: [String] = []
    @Option(help: "PEM file of the root the FIDO Metadata Service BLOB must chain to (default: GlobalSign Root CA - R3, the FIDO Alliance's, shipped with the server): for a metadata service of one's own, or when FIDO moves to another root. The BLOB is imported with `passkey-server metadata import`.")
    var metadataRoot: String?
    @Option(help: "Download the FIDO Metadata Service BLOB from this URL (FIDO's: https://mds3.fidoalliance.org/) at each start, then daily and when its nextUpdate comes; a newer one is verified, stored for every instance and applied without a restart (default: none; `passkey-server metadata import` only).")
    var metadataUrl: String?
    @Option(help: "How often, in seconds, a running server looks for a metadata BLOB stored by another instance or `metadata import` (default 300).")
    var metadataRefreshSeconds: Double?
    @Flag(help: "Admit registrations and sign-ins of authenticator models the metadata BLOB in force reports compromised (keys that can be extracted, a leaked attestation key, user verification that can be bypassed, a revoked certification). Default off: they are refused (authenticator_compromised).")
    var allowCompromisedAuthenticators = false
    @Option(help: "A compromise kind whose passkeys stop signing in once the metadata BLOB reports their model, repeatable: USER_KEY_PHYSICAL_COMPROMISE, USER_KEY_REMOTE_COMPROMISE, ATTESTATION_KEY_COMPROMISE, USER_VERIFICATION_BYPASS, REVOKED (default: the first two). Passkeys of a model with another kind are flagged (webhook passkey.authenticator_compromised, metadata show) and keep signing in.")
    var refuseSignInStatus: [String] = []
    @Option(help: "Which authenticator models may register, by the metadata BLOB in force: any (default), known (listed in it), or a certification level and above (FIDO_CERTIFIED_L1, FIDO_CERTIFIED_L1plus, FIDO_CERTIFIED_L2, … FIDO_CERTIFIED_L3plus). Needs --attestation direct; the attestation must chain to the model's roots in the BLOB (authenticator_not_admitted).")
    var admitAuthenticators: String?
    @Option(help: "An authenticator model (AAGUID) refused at registration whatever its attestation, repeatable (aaguid_not_allowed).")
    var deniedAaguid: [String] = []
    @Flag(help: "Admit only device-bound passkeys: one that can be synced (BE flag set: iCloud Keychain, Google Password Manager, …) is refused at registration (backup_policy_violation). Default off.")
    var requireDeviceBound = false
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
    @Flag(help: "Do not tell browsers and apps to forget a passkey this server does not hold (signalUnknownCredential): for a server that shares its RP ID with another one that has its own database, such as staging (default: tell them).")
    var noUnknownCredentialSignal = false
    @Option(help: "Seconds between attempts to deliver a webhook message its receiver did not take, comma-separated; once used up the delivery is failed (default 5,300,1800,7200,18000,36000,36000: about 28 hours).")
    var webhookRetrySchedule: String?
    @Option(help: "Seconds a webhook receiver has to answer one attempt, 1-120 (default 15).") var webhookTimeout: Double?
    @Flag(help: "Write webhook messages but deliver none from this instance (another instance on the same PostgreSQL delivers; default: deliver).")
    var noWebhookDelivery = false
    @Option(help: "A network webhook receivers may be on although it is not public, in CIDR notation (10.1.0.0/16, fd00:1::/48), repeatable; http:// is allowed to it (default: none, public addresses only).")
    var webhookAllowNetwork: [String] = []
    @Option(help: "A host name webhook receivers may have whatever it resolves to (a receiver beside the server: localhost, hooks.internal.example.com), repeatable; http:// is allowed to it (default: none).")
    var webhookAllowHost: [String] = []
    @Option(help: "The most webhook endpoints there may be, 1-1000 (default 20).") var webhookEndpointLimit: Int?
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
    @Option(help: "Page where a person adds a passkey to their account, for /.well-known/passkey-endpoints (default: this server's page, with public registration and a known address).")
    var enrollUrl: String?
    @Option(help: "Page where a person manages their passkeys, for /.well-known/passkey-endpoints (default: none).") var manageUrl: String?
    @Option(help: "Page explaining how the site uses passkeys' PRF extension (encryption), for /.well-known/passkey-endpoints (default: none).")
    var prfUsageUrl: String?
    @Option(help: "PEM certificate chain, to serve HTTPS directly.") var tlsCert: String?
    @Option(help: "PEM private key, with --tls-cert.") var tlsKey: String?

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
        let startLogger = logger
        let app = try await serve(configuration, logger: logger) { port in
            let banner = """
                passkey-server serving \(scheme)://\(shownHost):\(port)
                  RP ID     \(configuration.rpID)
                  origins   \(configuration.effectiveOrigins.joined(separator: ", "))
                  data      \(DatabaseURL.described(configuration.database))\(configuration.publicRegistration ? "" : "\n  accounts only through connect tokens (--no-public-registration)")\(configuration.attestation == .none && configuration.attestationTrustAnchors.roots.isEmpty ? "" : "\n  attestation \(configuration.attestationDescription.replacingOccurrences(of: "\n", with: "; "))")
                  dashboard \(configuration.linkBase)/dashboard\(configuration.linkBaseIsGuessed ? " (from the first --origin: give --public-url if this server is reached elsewhere)" : "")

                """
            FileHandle.standardOutput.write(Data(banner.utf8))
            // The log's start line, kept at --log-level notice (Hummingbird's own is at info).
            startLogger.notice("serving", metadata: ["address": .string("\(scheme)://\(shownHost):\(port)")])
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
