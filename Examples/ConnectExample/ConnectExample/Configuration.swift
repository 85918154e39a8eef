import Foundation

/// Where the example's two servers run: the passkey server (RP ID = the domain in ConnectExample.entitlements,
/// publishing this app's TEAMID.bundle.id with `--apple-app-id`) and the app's own backend, which keeps the password
/// login and mints connect tokens (Examples/connect-backend/backend.py is one).
enum Configuration {
    /// Literals known to be valid URLs.
    static let passkeyServerURL = URL(string: "https://passkeys.example.com")!
    static let backendURL = URL(string: "https://api.example.com")!
}
