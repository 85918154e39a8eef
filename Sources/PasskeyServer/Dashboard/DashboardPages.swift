import Foundation
import PasskeyRelyingParty
import PasskeyStorage
import PasskeyWire

/// The dashboard's HTML, rendered on the server. Every value from storage or the request goes through ``escape(_:)``;
/// scripts and styles come from `/dashboard/dashboard.js`, `/dashboard/qr.js` and `.css` only (the CSP allows nothing
/// inline).
enum DashboardPages {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    static func date(_ value: Date?) -> String {
        guard let value else { return "—" }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: value)
    }

    /// The page frame: navigation (when signed in), the CSRF token in a meta tag, the script and the stylesheet.
    static func layout(title: String, page: String, principal: AdminPrincipal?, body: String) -> String {
        let nav: String
        if let principal {
            let links = [("overview", "/dashboard", "Overview"), ("log", "/dashboard/log", "Live log"), ("users", "/dashboard/users", "Users"),
                         ("webhooks", "/dashboard/webhooks", "Webhooks"), ("applications", "/dashboard/applications", "Applications"),
                         ("settings", "/dashboard/settings", "Settings")]
                .map { (id: String, href: String, label: String) -> String in "<a href=\"\(href)\"\(id == page ? " aria-current=\"page\"" : "")>\(label)</a>" }.joined()
            nav = """
                <header class="top"><span class="brand">passkey-server</span><nav>\(links)</nav>
                <span class="who">\(escape(principal.name))<button type="button" id="sign-out" class="link">Sign out</button></span></header>
                """
        } else {
            nav = "<header class=\"top\"><span class=\"brand\">passkey-server</span></header>"
        }
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="csrf-token" content="\(escape(principal?.csrfToken ?? ""))">
            <title>\(escape(title)) · passkey-server</title>
            <link rel="stylesheet" href="/dashboard/dashboard.css">
            <link rel="icon" href="/favicon.svg" type="image/svg+xml">
            <script src="/dashboard/qr.js" defer></script>
            <script src="/dashboard/dashboard.js" defer></script>
            </head>
            <body data-page="\(page)">
            \(nav)
            <main>
            \(body)
            </main>
            </body>
            </html>
            """
    }

    // MARK: Sign-in and setup

    static func signIn() -> String {
        layout(title: "Sign in", page: "login", principal: nil, body: """
            <section class="card narrow">
            <h1>Dashboard sign-in</h1>
            <p>Sign in with your admin passkey.</p>
            <button type="button" id="sign-in" class="primary">Sign in with a passkey</button>
            <p id="status" class="status" role="status"></p>
            </section>
            """)
    }

    static func setup(token: String, valid: Bool) -> String {
        let content = valid
            ? """
                <p>This one-time link adds an administrator. Choose a name and create a passkey for this dashboard.</p>
                <label for="admin-name">Name</label>
                <input id="admin-name" name="name" autocomplete="off" value="admin" maxlength="64">
                <input type="hidden" id="setup-token" value="\(escape(token))">
                <button type="button" id="create-admin" class="primary">Create admin passkey</button>
                """
            : "<p>This setup link is unknown, already used, or expired. Run <code>passkey-server admin invite</code> for a new one.</p>"
        return layout(title: "Set up", page: "setup", principal: nil, body: """
            <section class="card narrow">
            <h1>Dashboard setup</h1>
            \(content)
            <p id="status" class="status" role="status"></p>
            </section>
            """)
    }

    // MARK: Overview

    /// `compromisedModels`: how many models the metadata BLOB in force reports compromised.
    static func overview(principal: AdminPrincipal, totals: StorageTotals, hours: [EventHourCount], compromisedModels: Int = 0) -> String {
        let registrations = hours.reduce(0) { $0 + $1.registrations }
        let signIns = hours.reduce(0) { $0 + $1.signIns }
        let failures = hours.reduce(0) { $0 + $1.failures }
        let attempts = registrations + signIns + failures
        let rate = attempts == 0 ? "—" : String(format: "%.1f %%", Double(failures) * 100 / Double(attempts))
        let cards = [
            ("Users", "\(totals.users)", "\(totals.anonymousUsers) anonymous"), ("Passkeys", "\(totals.passkeys)", "registered"),
            ("Registrations", "\(registrations)", "last 7 days"), ("Sign-ins", "\(signIns)", "last 7 days"),
            ("Failure rate", rate, "\(failures) failed ceremonies"),
        ].map { (label: String, value: String, note: String) -> String in
            "<div class=\"stat\"><span class=\"label\">\(label)</span><span class=\"value\">\(value)</span><span class=\"note\">\(note)</span></div>"
        }.joined()
        let flagged =
            compromisedModels == 0
            ? ""
            : "<p class=\"compromised\">The FIDO metadata reports \(compromisedModels) authenticator model\(compromisedModels == 1 ? "" : "s") compromised: <a href=\"/dashboard/flagged\">the passkeys they made</a>.</p>"
        return layout(title: "Overview", page: "overview", principal: principal, body: """
            <h1>Overview</h1>
            \(flagged)
            <div class="stats">\(cards)</div>
            <section class="card">
            <h2>Ceremonies per hour, last 7 days</h2>
            \(DashboardChart.activity(hours))
            <p class="legend"><span class="key reg"></span>registrations <span class="key sign"></span>sign-ins</p>
            <h2>Failure rate per hour</h2>
            \(DashboardChart.failureRate(hours))
            </section>
            """)
    }

    // MARK: Live log

    static func log(principal: AdminPrincipal, filter: EventFilter) -> String {
        func selected(_ value: EventRecord.Result?) -> String { filter.result == value ? " selected" : "" }
        return layout(title: "Live log", page: "log", principal: principal, body: """
            <h1>Live log</h1>
            <form id="log-filter" class="filters" method="get" action="/dashboard/log">
            <label>Result <select name="result" id="filter-result">
            <option value=""\(selected(nil))>all</option><option value="success"\(selected(.success))>success</option>
            <option value="failure"\(selected(.failure))>failure</option></select></label>
            <label>User <input name="user" id="filter-user" value="\(escape(filter.user ?? ""))" placeholder="username or id"></label>
            <label>Code <input name="code" id="filter-code" value="\(escape(filter.code ?? ""))" placeholder="origin_mismatch"></label>
            <button type="submit">Filter</button>
            <span id="live" class="live" data-state="connecting">connecting…</span>
            </form>
            <div class="table-wrap"><table class="events">
            <thead><tr><th>Time</th><th>Kind</th><th>Result</th><th>User</th><th>Passkey</th><th>Details</th><th>Client</th></tr></thead>
            <tbody id="events"></tbody>
            </table></div>
            """)
    }

    // MARK: Users

    static func users(principal: AdminPrincipal, search: String?, page: Int, users: [(UserRecord, Int)], hasMore: Bool) -> String {
        let rows: String = users.map { (user: UserRecord, count: Int) -> String in
            """
            <tr><td><a href="/dashboard/users/\(escape(user.id))">\(escape(user.entityName))</a></td>
            <td>\(user.isAnonymous ? "yes" : "no")</td><td>\(user.isDisabled ? "disabled" : "active")</td>
            <td>\(date(user.createdAt))</td><td>\(date(user.lastSignInAt))</td><td>\(count)</td></tr>
            """
        }.joined(separator: "\n")
        let query = search.map { "&search=" + (escape($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")) } ?? ""
        var pager = ""
        if page > 1 { pager += "<a href=\"/dashboard/users?page=\(page - 1)\(query)\">← Newer</a>" }
        if hasMore { pager += "<a href=\"/dashboard/users?page=\(page + 1)\(query)\">Older →</a>" }
        return layout(title: "Users", page: "users", principal: principal, body: """
            <h1>Users</h1>
            <form class="filters" method="get" action="/dashboard/users">
            <label>Search <input name="search" value="\(escape(search ?? ""))" placeholder="username"></label>
            <button type="submit">Search</button>
            </form>
            <div class="table-wrap"><table class="users">
            <thead><tr><th>Username</th><th>Anonymous</th><th>Status</th><th>Created</th><th>Last sign-in</th><th>Passkeys</th></tr></thead>
            <tbody>\(rows.isEmpty ? "<tr><td colspan=\"6\">No users.</td></tr>" : rows)</tbody>
            </table></div>
            <p class="pager">Page \(page) \(pager)</p>
            """)
    }

    /// The model's icon (a `data:` URL from the metadata BLOB) and name, and what the BLOB reports when it reports the
    /// model compromised.
    static func providerCell(_ aaguid: String, _ catalog: AuthenticatorCatalog) -> String {
        var cell = ""
        if let icon = catalog.icon(for: aaguid), icon.hasPrefix("data:image/") { cell += "<img class=\"model-icon\" alt=\"\" src=\"\(escape(icon))\">" }
        cell += escape(catalog.name(for: aaguid) ?? "Unknown (\(aaguid))")
        if let compromise = catalog.compromise(for: aaguid) {
            let effect = compromise.signInRefused ? "refused at sign-in" : "flagged; signs in"
            cell += "<br><span class=\"compromised\">reported compromised: \(escape(compromise.statuses.joined(separator: ", "))) (\(effect))</span>"
        }
        return cell
    }

    /// `linkLifetime`: how long a recovery link made on the page lives.
    static func user(
        principal: AdminPrincipal, user: UserRecord, passkeys: [CredentialRecordEntry], catalog: AuthenticatorCatalog, linkLifetime: TimeInterval
    ) -> String {
        let rows: String = passkeys.map { (credential: CredentialRecordEntry) -> String in
            let id = Base64URL.encode(credential.id)
            return """
                <tr data-credential="\(escape(id))">
                <td>\(escape(credential.name ?? "—"))</td>
                <td>\(providerCell(credential.aaguid, catalog))</td>
                <td>\(credential.backupEligible ? "synced" : "device-bound")</td>
                <td>\(escape(credential.attestationFormat))</td><td>\(escape(DashboardJSON.algorithmName(credential.algorithm)))</td>
                <td>\(escape(credential.transports.joined(separator: ", ")))</td><td>\(credential.signCount)</td>
                <td>\(date(credential.createdAt))</td><td>\(date(credential.lastUsedAt))</td>
                <td class="actions"><button type="button" class="rename">Rename</button><button type="button" class="danger delete-passkey">Delete</button></td>
                </tr>
                """
        }.joined(separator: "\n")
        return layout(title: user.entityName, page: "user", principal: principal, body: """
            <p><a href="/dashboard/users">← Users</a></p>
            <h1 id="user" data-user="\(escape(user.id))">\(escape(user.entityName))</h1>
            <dl class="facts">
            <dt>Display name</dt><dd>\(escape(user.displayName))</dd>
            <dt>Anonymous</dt><dd>\(user.isAnonymous ? "yes" : "no")</dd>
            <dt>User id</dt><dd><code>\(escape(user.id))</code></dd>
            <dt>Created</dt><dd>\(date(user.createdAt))</dd>
            <dt>Last sign-in</dt><dd>\(date(user.lastSignInAt))</dd>
            <dt>Status</dt><dd id="account-status">\(user.disabledAt.map { "disabled since \(date($0)): no sign-in, no new passkey" } ?? "active")</dd>
            </dl>
            <h2>Passkeys</h2>
            <div class="table-wrap"><table class="passkeys">
            <thead><tr><th>Name</th><th>Provider</th><th>Kind</th><th>Attestation</th><th>Algorithm</th><th>Transports</th><th>Counter</th>
            <th>Created</th><th>Last used</th><th></th></tr></thead>
            <tbody>\(rows.isEmpty ? "<tr><td colspan=\"10\">No passkeys.</td></tr>" : rows)</tbody>
            </table></div>
            <p><button type="button" id="toggle-user" data-disabled="\(user.isDisabled)">\(user.isDisabled ? "Enable this user" : "Disable this user")</button>
            <button type="button" id="delete-user" class="danger">Delete this user</button></p>
            <h2>Recovery link</h2>
            <p>A one-time link, valid \(Int(linkLifetime / 3600)) hours, that lets its holder add a passkey to this account. Send it only over a channel you trust this person on.</p>
            <p><label><input type="checkbox" id="link-replace"> Replace the account's passkeys (a lost or stolen device)</label></p>
            <p><button type="button" id="make-link">Make a link</button> <button type="button" id="revoke-links">Revoke unused links</button></p>
            <p><input type="text" id="link-url" readonly hidden aria-label="The link"></p>
            <div id="link-qr" hidden></div>
            <p id="status" class="status" role="status"></p>
            """)
    }

    // MARK: Settings

    static func settings(principal: AdminPrincipal, configuration: ServerConfiguration) -> String {
        let wellKnown = WellKnownPreview(configuration: configuration)
        let facts: [(String, String)] = [
            ("RP ID", configuration.rpID), ("RP name", configuration.rpName),
            ("Accepted origins", configuration.effectiveOrigins.joined(separator: "\n")),
            ("Public URL", configuration.publicURL.map { "\($0) (also accepted for admin passkeys)" } ?? "\(configuration.linkBase) (assumed: no --public-url)"),
            ("OpenID Provider", configuration.oidcIssuer.map { "issuer \($0), browser sessions of \(Int(configuration.oidcSessionLifetime)) s (docs/oidc.md)" } ?? "off (no --oidc-issuer)"),
            ("User verification", configuration.userVerification.rawValue),
            ("Backup eligibility changes", configuration.allowBackupEligibilityChange ? "accepted (--allow-backup-eligibility-change)" : "refused"),
            ("Counter regressions", configuration.allowCounterRegression ? "accepted and flagged (--allow-counter-regression)" : "refused"), ("Attestation", configuration.attestationDescription),
            ("Algorithms", configuration.algorithms.map { $0.name ?? "COSE \($0.rawValue)" }.joined(separator: ", ")),
            ("Challenge lifetime", "\(Int(configuration.challengeTTL)) s"),
            ("Options per client per minute", "\(configuration.optionsPerMinute)"),
            ("Event retention", "\(configuration.dashboard.eventRetentionDays) days"),
            ("Session timeouts", "\(Int(configuration.dashboard.sessionIdleTimeout / 60)) min idle, \(Int(configuration.dashboard.sessionAbsoluteTimeout / 3600)) h absolute"),
            ("Break-glass token", configuration.dashboard.adminToken == nil ? "off" : "on (PASSKEY_ADMIN_TOKEN)"),
        ]
        let list: String = facts.map { (fact: (String, String)) -> String in "<dt>\(fact.0)</dt><dd><pre class=\"inline\">\(escape(fact.1))</pre></dd>" }.joined()
        let previews: String = wellKnown.files.map { (path: String, json: JSONValue) -> String in
            "<h3><code>\(escape(path))</code></h3><pre class=\"json\">\(escape(json.prettyPrinted(sortedKeys: true)))</pre>"
        }.joined()
        return layout(title: "Settings", page: "settings", principal: principal, body: """
            <h1>Settings</h1>
            <p>Read-only: these come from flags, PASSKEY_ environment variables and the settings file (--config) at start.</p>
            <dl class="facts">\(list)</dl>
            <h2>.well-known files</h2>
            <p>What apps and browsers fetch from <code>https://\(escape(configuration.rpID))</code>. An iOS app whose ID is missing from
            <code>webcredentials.apps</code>, or an Android app whose fingerprint is missing, is refused by the OS.</p>
            \(previews)
            """)
    }
}

/// The `.well-known` files as the server publishes them.
struct WellKnownPreview {
    let configuration: ServerConfiguration

    var files: [(String, JSONValue)] {
        let controller = WellKnownController<PasskeyRequestContext>(configuration: configuration)
        return [
            ("/.well-known/apple-app-site-association", controller.appleAppSiteAssociation.json),
            ("/.well-known/assetlinks.json", controller.assetLinks.json), ("/.well-known/webauthn", controller.relatedOrigins.json),
        ]
    }
}
