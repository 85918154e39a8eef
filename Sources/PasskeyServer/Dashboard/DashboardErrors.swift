/// The dashboard's error answers, with stable codes.
enum DashboardErrors {
    static let unauthorized = APIError(status: 401, code: "admin_unauthorized", message: "Sign in to the dashboard with an admin passkey.")
    static let csrf = APIError(
        status: 403, code: "csrf_invalid", message: "The request lacks this session's CSRF token (X-CSRF-Token). Reload the page and try again.")
    static let freshCheckRequired = APIError(
        status: 403, code: "fresh_check_required", message: "Confirm with your passkey first: this action needs a passkey check from the last few minutes.")
    static let inviteInvalid = APIError(
        status: 404, code: "invite_invalid", message: "This setup link is unknown, already used, or expired. Ask for a new one (passkey-server admin invite).")
    static let notAnAdminPasskey = APIError(
        status: 400, code: "credential_unknown", message: "This passkey is not an admin passkey of this dashboard.")
    static let userNotFound = APIError(status: 404, code: "user_not_found", message: "There is no such user.")
    static let passkeyNotFound = APIError(status: 404, code: "passkey_not_found", message: "The user has no such passkey.")
}
