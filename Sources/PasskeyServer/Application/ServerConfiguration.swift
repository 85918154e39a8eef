public import Foundation
public import PasskeyAPI
public import PasskeyRelyingParty
public import PasskeyWire
public import PasskeyCore
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
    /// The OpenID Provider's issuer (`--oidc-issuer`, `https://auth.example.com`): set, the server is an OpenID
    /// Provider (docs/oidc.md), its endpoints under this URL, and its sign-in page's origin is accepted for passkeys.
    /// Nil: no OpenID endpoints.
    public var oidcIssuer: String?
    /// Seconds a browser session at the OpenID Provider lasts (`--oidc-session-seconds`, default 8 hours).
    public var oidcSessionLifetime: TimeInterval = 8 * 3600
    /// Where the provider's sign-in page sends a person who lost the device with their passkey
    /// (`--oidc-recovery-url`): the app's own page that checks who they are and has the backend mint a recovery link
    /// (docs/connect.md). Nil: the page tells them to ask for one.
    public var oidcRecoveryURL: String?
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
    /// The root the FIDO Metadata Service BLOB must chain to (`--metadata-root`, PEM); nil: the FIDO Alliance's,
    /// shipped with the server (``PasskeyAttestation/MetadataBLOBVerifier/fidoRootPEM``). The BLOB in force (imported
    /// with `passkey-server metadata import`) gives the attestation roots of every model it lists, for the formats
    /// without an `--attestation-root`.
    public var metadataRootPEM: String?
    /// Where the BLOB is downloaded from while the server runs (`--metadata-url`, FIDO's is
    /// https://mds3.fidoalliance.org/): at each start, then daily and at its `nextUpdate`. Nil: only
    /// `passkey-server metadata import`.
    public var metadataURL: String?
    /// How often a running server looks for a BLOB stored by another instance or an import, in seconds.
    public var metadataRefreshInterval: TimeInterval = 300
    /// The models the metadata BLOB in force reports compromised (filled from the BLOB at start and at each new one):
    /// refused at registration (`authenticator_compromised`), unless ``allowCompromisedAuthenticators``.
    public var compromisedAAGUIDs: Set<AAGUID> = []
    /// The models whose keys the BLOB reports extractable: their passkeys are refused at sign-in too.
    public var keyCompromisedAAGUIDs: Set<AAGUID> = []
    /// Admit the models the metadata reports compromised (`--allow-compromised-authenticators`). Off by default.
    public var allowCompromisedAuthenticators = false
    /// The compromise statuses whose passkeys stop signing in once the BLOB reports their model
    /// (`--refuse-sign-in-status`); a passkey of a model with another compromise kind is flagged and keeps signing in.
    /// Default: the two that say its keys can be taken.
    public var refuseSignInStatuses: Set<AuthenticatorStatus> = AuthenticatorStatus.keyCompromises
    /// Which models may register, by the metadata BLOB (`--admit-authenticators`): any (default), those it lists, or
    /// those it certifies at a level or above.
    public var admitAuthenticators: AuthenticatorAdmission = .any
    /// The models the admission policy admits under the BLOB in force (filled from the BLOB); nil under `.any`.
    public var admittedAAGUIDs: Set<AAGUID>?
    /// What each model's metadata statement says its attestations can be (filled from the BLOB).
    public var modelStatements: [AAGUID: ModelStatementRules] = [:]
    /// Models refused at registration (`--denied-aaguid`), whatever their attestation.
    public var deniedAAGUIDs: [String] = []
    /// Only device-bound passkeys register (`--require-device-bound`): a passkey that can be synced (BE set) is
    /// refused (`backup_policy_violation`).
    public var requireDeviceBound = false
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
    /// Whether a sign-in with a passkey no account here holds tells the client to have the device forget it
    /// (``PasskeyRelyingParty/CeremonyConfiguration/signalUnknownCredentials``). Off (`--no-unknown-credential-signal`)
    /// when another server with its own database shares the RP ID.
    public var signalUnknownCredentials = true
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
    /// `/.well-known/passkey-endpoints` (W3C "A Well-Known URL for Relying Party Passkey Endpoints"): the page where a
    /// person creates a passkey for their account (`enroll`), the one where they manage their passkeys (`manage`), and
    /// one explaining how the site uses the PRF extension (`prfUsageDetails`), so passkey managers can link to them.
    /// Unset, `enroll` is this server's own page (which creates passkeys) when public registration is on and the
    /// server's address is known (``publicURL``, or no `--origin`), and the others are left out.
    public var enrollURL: String?
    public var manageURL: String?
    public var prfUsageURL: String?
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
    /// Stored ceremonies in progress kept at most (adding a passkey to an account; expired ones are purged); past it
    /// their options get 503. Sign-in and new-account registration options store nothing (their challenge is sealed)
    /// and are not counted. Default 100 000.
    public var maximumPendingChallenges = 100_000
    /// Tokens for apps that keep their own login: `signedPasskeyData`, connect tokens, rollout (docs/connect.md).
    public var connect = ConnectConfiguration()
    /// The admin dashboard: sessions, invites, event retention, break-glass token (docs/dashboard.md).
    public var dashboard = DashboardConfiguration()
    /// Signed webhooks (docs/webhooks.md): when a failed delivery is retried, how long an attempt may take, how often
    /// the outbox is looked at, and whether this instance delivers at all.
    public var webhooks = WebhookSettings()

    public struct WebhookSettings: Sendable {
        /// `--webhook-retry-schedule` (seconds between attempts) and `--webhook-timeout`.
        public var retry = WebhookRetryPolicy()
        /// How often the outbox is looked at for due messages. Default 1 s.
        public var pollInterval: Duration = .seconds(1)
        /// `--no-webhook-delivery`: this instance writes messages but sends none (another instance on the same
        /// PostgreSQL does). Default on.
        public var deliver = true
        /// Where receivers may be (`--webhook-allow-network`, `--webhook-allow-host`) and how many endpoints there may
        /// be (`--webhook-endpoint-limit`). Default: public addresses only, 20 endpoints.
        public var receivers = WebhookReceiverPolicy()
        /// How receivers' names are resolved, when saved and at every delivery. Default: the system's resolver.
        public var resolver: any WebhookHostResolver = SystemHostResolver()
        public init() {}
    }

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
        // The OpenID Provider's sign-in page runs there.
        if let oidcOrigin { all.append(oidcOrigin) }
        var seen = Set<String>()
        return all.filter { seen.insert($0).inserted }
    }

    /// The origin of ``oidcIssuer`` (`scheme://host[:port]`), where its sign-in page runs.
    public var oidcOrigin: String? {
        guard let oidcIssuer, let components = URLComponents(string: oidcIssuer), let scheme = components.scheme, let host = components.host else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
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

    /// The members of `/.well-known/passkey-endpoints`: the URLs given, and the default `enroll` (see ``enrollURL``).
    public var passkeyEndpoints: PasskeyEndpoints {
        let enroll = enrollURL ?? (publicRegistration && !linkBaseIsGuessed ? linkBase + "/" : nil)
        return PasskeyEndpoints(enroll: enroll, manage: manageURL, prfUsageDetails: prfUsageURL)
    }

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

    /// The verifier of metadata BLOBs: ``metadataRootPEM``'s root, or the FIDO Alliance's.
    /// The compromise statuses whose passkeys are refused at sign-in: ``refuseSignInStatuses``, unless
    /// ``allowCompromisedAuthenticators``.
    public var signInRefusedStatuses: Set<AuthenticatorStatus> { allowCompromisedAuthenticators ? [] : refuseSignInStatuses }

    public func metadataVerifier() throws(MetadataError) -> MetadataBLOBVerifier {
        guard let metadataRootPEM else { return try MetadataBLOBVerifier.fido() }
        return try MetadataBLOBVerifier(rootPEM: metadataRootPEM)
    }

    /// The formats that have `--attestation-root`s, by name.
    var rootedFormats: [AttestationFormat] {
        attestationTrustAnchors.roots.filter { !$0.value.isEmpty }.keys.sorted { $0.rawValue < $1.rawValue }
    }

    /// What the relying-party library's ceremonies need of these settings.
    public var ceremonies: CeremonyConfiguration {
        var ceremonies = CeremonyConfiguration(rpID: rpID)
        ceremonies.challengeTTL = challengeTTL
        ceremonies.attestation = attestation
        ceremonies.publicRegistration = publicRegistration
        ceremonies.signalUnknownCredentials = signalUnknownCredentials
        ceremonies.maximumPendingChallenges = maximumPendingChallenges
        return ceremonies
    }

    /// The attestation settings in a few words, for the dashboard's settings page.
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
        if admitAuthenticators != .any { lines.append("metadata admits: \(admitAuthenticators)") }
        if !deniedAAGUIDs.isEmpty { lines.append("models refused: " + deniedAAGUIDs.joined(separator: ", ")) }
        if requireDeviceBound { lines.append("device-bound passkeys only") }
        return lines.joined(separator: "\n")
    }
}
