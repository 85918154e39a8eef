import Logging
import PasskeyStorage
import PostgresNIO

/// How rows are read: column lists in the order the row decoders read them.
extension PostgresSchema {
    // Column lists in the order the row decoders read them (rows are decoded by position).
    //
    // An account's last sign-in is the later of `users.last_sign_in_at` and its passkeys' `last_used_at` (`greatest`
    // skips NULLs): a sign-in writes only its passkey's row, not the account's too, and deleting a passkey moves its
    // last use onto the account (the trigger of migration 16).
    static func userColumns(of table: String) -> String {
        """
        \(table).id, \(table).user_handle, \(table).username, \(table).display_name, \(table).is_anonymous, \(table).created_at, \
        greatest(\(table).last_sign_in_at, (SELECT max(last_used_at) FROM credentials WHERE user_id = \(table).id)) AS last_sign_in_at, \
        \(table).disabled_at, \(table).tokens_revoked_at
        """
    }
    static let userColumns = userColumns(of: "users")
    /// The names of ``userColumns``, to select from a subquery that selected those.
    static let userColumnNames = "id, user_handle, username, display_name, is_anonymous, created_at, last_sign_in_at, disabled_at, tokens_revoked_at"
    static let credentialColumns = """
        id, user_id, public_key, algorithm, sign_count, uv_initialized, transports, backup_eligible, backup_state, aaguid, \
        attestation_format, attestation_type, name, created_at, last_used_at
        """
    static let challengeColumns = """
        key, challenge, ceremony, user_id, username, display_name, user_handle, allowed_credential_ids, created_at, expires_at, \
        replaces_credential_id, conditional, for_existing_user, accepted_contacts
        """

    /// The same lists with a table alias, for joins.
    static func qualified(_ columns: String, _ alias: String) -> String {
        columns.split(separator: ",").map { "\(alias).\($0.trimmingCharacters(in: .whitespacesAndNewlines))" }.joined(separator: ", ")
    }
}
