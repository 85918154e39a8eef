import Foundation
import PasskeyStorage
import PasskeyWire

extension DashboardPages {
    /// `GET /dashboard/flagged`: every passkey whose model the metadata BLOB in force reports compromised, oldest first,
    /// with its account, the report and whether its sign-ins are refused.
    static func flagged(
        principal: AdminPrincipal, passkeys: [(passkey: CredentialRecordEntry, owner: UserRecord?)], catalog: AuthenticatorCatalog
    ) -> String {
        let rows: String = passkeys.map { passkey, owner in
            let account =
                owner.map { "<a href=\"/dashboard/users/\(escape($0.id))\">\(escape($0.entityName))</a>" } ?? escape(passkey.userID)
            return """
                <tr><td>\(account)</td><td>\(escape(passkey.name ?? "—"))</td><td>\(providerCell(passkey.aaguid, catalog))</td>
                <td>\(date(passkey.createdAt))</td><td>\(date(passkey.lastUsedAt))</td></tr>
                """
        }.joined(separator: "\n")
        return layout(title: "Flagged passkeys", page: "flagged", principal: principal, body: """
            <p><a href="/dashboard">← Overview</a></p>
            <h1>Passkeys of models reported compromised</h1>
            <p>The FIDO metadata BLOB in force reports these passkeys' authenticator models compromised. Those marked refused
            no longer sign in; ask their people for a new passkey (a recovery link from the user's page).</p>
            <div class="table-wrap"><table class="flagged">
            <thead><tr><th>Account</th><th>Passkey</th><th>Model and report</th><th>Created</th><th>Last used</th></tr></thead>
            <tbody>\(rows.isEmpty ? "<tr><td colspan=\"5\">None.</td></tr>" : rows)</tbody>
            </table></div>
            """)
    }
}
