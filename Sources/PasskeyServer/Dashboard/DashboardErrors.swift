/// The dashboard's error answers, with stable codes.
enum DashboardErrors {
    static let unauthorized = APIError(.adminUnauthorized, "Sign in to the dashboard with an admin passkey.")
    static let csrf = APIError(
        .csrfInvalid, "The request lacks this session's CSRF token (X-CSRF-Token). Reload the page and try again.")
    static let freshCheckRequired = APIError(
        .freshCheckRequired, "Confirm with your passkey first: this action needs a passkey check from the last few minutes.")
    static let inviteInvalid = APIError(
        .inviteInvalid, "This setup link is unknown, already used, or expired. Ask for a new one (passkey-server admin invite).")
    static let notAnAdminPasskey = APIError(
        .credentialUnknown, "This passkey is not an admin passkey of this dashboard.")
    static let userNotFound = APIError(.userNotFound, "There is no such user.")
    static let passkeyNotFound = APIError(.passkeyNotFound, "The user has no such passkey.")
}
