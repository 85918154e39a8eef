import Foundation
import PasskeyStorage

extension DashboardPages {
    /// The Applications page: the OpenID Provider's clients with their actions, the discovery URL to paste into an
    /// application, and a form to add one. Secrets appear only in the answer that made them (shown by the script, once).
    static func applications(principal: AdminPrincipal, clients: [OpenIDClientRecord], issuer: String?) -> String {
        let rows: String = clients.map { (client: OpenIDClientRecord) -> String in
            let uris = client.redirectURIs.map { "<code>\(shown($0))</code>" }.joined(separator: "<br>")
            return """
                <tr data-client="\(escape(client.id))" data-enabled="\(client.disabledAt == nil)">
                <td>\(shown(client.name))<br><small><code>\(escape(client.id))</code></small></td><td>\(uris)</td>
                <td>\(client.isPublic ? "public (PKCE)" : "confidential")\(client.thirdParty ? ", third-party" : "")</td>
                <td>\(escape(client.idTokenAlgorithm))</td><td>\(escape(client.scopes.joined(separator: " ")))</td>
                <td>\(client.disabledAt == nil ? "enabled" : "disabled")</td><td>\(date(client.createdAt))</td>
                <td class="actions"><button type="button" class="toggle-client">\(client.disabledAt == nil ? "Disable" : "Enable")</button>
                \(client.isPublic ? "" : "<button type=\"button\" class=\"rotate-client\">New secret</button>")
                <button type="button" class="danger delete-client">Remove</button></td>
                </tr>
                """
        }.joined(separator: "\n")
        let provider =
            issuer.map {
                "<p>Discovery URL to paste into an application: <code>\(escape($0))/.well-known/openid-configuration</code></p>"
            } ?? "<p class=\"status error\">This server is not an OpenID Provider yet: start it with <code>--oidc-issuer https://auth.example.com</code>. Clients added now work once it is.</p>"
        return layout(title: "Applications", page: "applications", principal: principal, body: """
            <h1>Applications</h1>
            <p>Applications that sign people in with their passkeys through OpenID Connect (Grafana, Gitea, oauth2-proxy, any OIDC
            client). See docs/oidc.md.</p>
            \(provider)
            <div class="table-wrap"><table class="clients">
            <thead><tr><th>Name</th><th>Redirect URIs</th><th>Kind</th><th>ID token</th><th>Scopes</th><th>State</th><th>Added</th><th></th></tr></thead>
            <tbody>\(rows.isEmpty ? "<tr><td colspan=\"8\">No applications.</td></tr>" : rows)</tbody>
            </table></div>
            <h2>Add an application</h2>
            <p><input type="text" id="client-name" placeholder="Grafana" aria-label="Name"></p>
            <p><textarea id="client-redirects" rows="3" cols="60" placeholder="https://grafana.example.com/login/generic_oauth (one per line)" aria-label="Redirect URIs"></textarea></p>
            <p><label><input type="checkbox" id="client-public"> Public client (a single-page or native app: no secret, PKCE)</label>
            <label><input type="checkbox" id="client-third-party"> Run by someone else (ask for consent)</label>
            <label>ID token <select id="client-algorithm"><option>RS256</option><option>ES256</option></select></label></p>
            <p><button type="button" id="add-client">Add</button></p>
            <p><input type="text" id="client-credentials" readonly hidden aria-label="The client id and secret" size="90"></p>
            <p id="status" class="status" role="status"></p>
            """)
    }
}
