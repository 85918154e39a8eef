import Foundation
import PasskeyStorage
import PasskeyWire

extension DashboardPages {
    /// Text an endpoint's manager wrote (a URL, a description), for HTML: control and direction characters written
    /// out as `\u{…}` first, so a saved value cannot make the page show another one (records older than the strict
    /// rules may hold them).
    static func shown(_ text: String) -> String { escape(DisplayEscaping.escape(text)) }

    /// The Webhooks page: each endpoint with its event types and actions, a form to add one, and the latest deliveries
    /// with their attempts. Secrets appear only in the answer that made them (shown by the script, once).
    static func webhooks(principal: AdminPrincipal, endpoints: [WebhookEndpointRecord], deliveries: [WebhookDeliveryRecord]) -> String {
        let rows: String = endpoints.map { (endpoint: WebhookEndpointRecord) -> String in
            let types = endpoint.eventTypes.isEmpty ? "every event" : endpoint.eventTypes.joined(separator: ", ")
            let secret = endpoint.previousSecretExpiresAt.map { "new; the previous one signs too until \(date($0))" } ?? "one"
            return """
                <tr data-endpoint="\(escape(endpoint.id))" data-enabled="\(endpoint.disabledAt == nil)">
                <td><code>\(shown(endpoint.url))</code><br><small>\(shown(endpoint.description))</small></td>
                <td>\(escape(types))</td><td>\(endpoint.disabledAt == nil ? "enabled" : "disabled")</td><td>\(escape(secret))</td>
                <td>\(date(endpoint.createdAt))</td>
                <td class="actions"><button type="button" class="toggle-endpoint">\(endpoint.disabledAt == nil ? "Disable" : "Enable")</button>
                <button type="button" class="rotate-endpoint">New secret</button><button type="button" class="retry-endpoint">Retry failed</button>
                <button type="button" class="danger delete-endpoint">Remove</button></td>
                </tr>
                """
        }.joined(separator: "\n")
        let attempts: String = deliveries.map { (delivery: WebhookDeliveryRecord) -> String in
            let answer = delivery.lastStatus.map { "HTTP \($0)" } ?? delivery.lastError ?? "—"
            let why = delivery.lastStatus != nil && delivery.state != .delivered ? (delivery.lastError ?? "") : ""
            return """
                <tr data-state="\(escape(delivery.state.rawValue))"><td>\(date(delivery.message.createdAt))</td><td>\(escape(delivery.message.type))</td>
                <td><code>\(escape(delivery.message.id))</code></td><td><code>\(escape(delivery.endpointID))</code></td>
                <td>\(escape(delivery.state.rawValue))</td><td>\(delivery.attempts)</td>
                <td>\(shown(answer))\(why.isEmpty || why == answer ? "" : "<br><small>\(shown(why))</small>")</td>
                <td>\(date(delivery.lastAttemptAt))</td><td>\(delivery.state == .pending ? date(delivery.nextAttemptAt) : "—")</td></tr>
                """
        }.joined(separator: "\n")
        let options: String = WebhookEventType.all.map { "<label><input type=\"checkbox\" name=\"event-type\" value=\"\($0.rawValue)\"> \($0.rawValue)</label>" }
            .joined(separator: " ")
        return layout(title: "Webhooks", page: "webhooks", principal: principal, body: """
            <h1>Webhooks</h1>
            <p>Signed messages (Standard Webhooks) to your backend about accounts and passkeys, written with each change and delivered at
            least once, in order per endpoint, retried for about a day. See docs/webhooks.md.</p>
            <div class="table-wrap"><table class="endpoints">
            <thead><tr><th>URL</th><th>Events</th><th>State</th><th>Secret</th><th>Added</th><th></th></tr></thead>
            <tbody>\(rows.isEmpty ? "<tr><td colspan=\"6\">No endpoints.</td></tr>" : rows)</tbody>
            </table></div>
            <h2>Add an endpoint</h2>
            <p><input type="url" id="endpoint-url" placeholder="https://backend.example.com/passkey-webhooks" aria-label="URL" size="50">
            <input type="text" id="endpoint-description" placeholder="What it is for" aria-label="Description"></p>
            <p>Events (none checked: every event): \(options)</p>
            <p><button type="button" id="add-endpoint">Add</button></p>
            <p><input type="text" id="endpoint-secret" readonly hidden aria-label="The signing secret" size="60"></p>
            <p id="status" class="status" role="status"></p>
            <h2>Latest deliveries</h2>
            <div class="table-wrap"><table class="deliveries">
            <thead><tr><th>Written</th><th>Type</th><th>Message</th><th>Endpoint</th><th>State</th><th>Attempts</th><th>Last answer</th>
            <th>Last attempt</th><th>Next attempt</th></tr></thead>
            <tbody>\(attempts.isEmpty ? "<tr><td colspan=\"9\">No deliveries.</td></tr>" : attempts)</tbody>
            </table></div>
            """)
    }
}
