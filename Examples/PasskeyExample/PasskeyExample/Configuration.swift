import Foundation

/// Where the example's passkey-server runs. Its RP ID must be the domain in PasskeyExample.entitlements
/// (webcredentials:example.com), and it must publish this app's TEAMID.bundle.id (`--apple-app-id`).
enum Configuration {
    /// A literal known to be a valid URL.
    static let serverURL = URL(string: "https://example.com")!
}
