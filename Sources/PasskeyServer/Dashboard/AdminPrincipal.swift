import Foundation

/// Who a dashboard request acts as: an admin with a session cookie, or the break-glass token.
struct AdminPrincipal: Sendable, Hashable {
    let adminID: String
    let name: String
    /// The session's hash; `nil` for the break-glass token.
    let sessionHash: [UInt8]?
    /// The per-session CSRF token pages carry; `nil` for the break-glass token (no cookie, nothing to forge).
    let csrfToken: String?
    /// The last passkey check.
    let verifiedAt: Date

    var isBreakGlass: Bool { sessionHash == nil }

    static let breakGlassID = "break-glass"
}
