/// What a connect token authorizes; the app's backend mints one per action with `POST /connect/tokens` after checking
/// its own session. An open set, so a newer server's kinds still decode.
public struct ConnectTokenKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// Add (or reset) a passkey. Single-use.
    public static let passkeyAppend = ConnectTokenKind(rawValue: "passkey-append")
    /// List and rename passkeys. Valid until it expires.
    public static let passkeyList = ConnectTokenKind(rawValue: "passkey-list")
    /// Delete one passkey. Single-use.
    public static let passkeyDelete = ConnectTokenKind(rawValue: "passkey-delete")
}

/// Asks the app's backend for a connect token of a kind, for the signed-in user. Throw when the backend refuses
/// (no session): the flow then reports an error instead of calling the passkey server.
public typealias ConnectTokenProvider = @Sendable (ConnectTokenKind) async throws -> String
