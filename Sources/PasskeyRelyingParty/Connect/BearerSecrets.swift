import Crypto
import Foundation
public import PasskeyCore
import PasskeyWire

/// High-entropy bearer secrets (API keys, connect tokens, the OpenID Provider's codes, tokens, sessions and client secrets): 32 random bytes after a short prefix that says what the
/// secret is. Only SHA-256 of a secret is stored; with 256 bits of entropy a plain hash is enough, and lookups by hash
/// leak nothing useful through timing.
public enum BearerSecrets {
    /// A new secret: `prefix` + base64url of 32 random bytes.
    public static func make(prefix: String, random: RandomSource = .system) -> String { prefix + Base64URL.encode(random.bytes(32)) }

    public static func hash(_ secret: String) -> [UInt8] { Array(SHA256.hash(data: Array(secret.utf8))) }

    /// API keys of app backends.
    public static var apiKeyPrefix: String { "pks_" }
    /// Connect tokens.
    public static var connectTokenPrefix: String { "pct_" }
    /// Recovery and onboarding links (``AccountAdministration/makeLink(for:replacingPasskeys:lifetime:apiKey:by:)``).
    public static var accountLinkPrefix: String { "pal_" }
    /// Dashboard admin invites (setup links and `admin invite`).
    public static var adminInvitePrefix: String { "pai_" }
    /// OpenID client secrets (``OpenIDClients``).
    public static var openIDClientSecretPrefix: String { "ocs_" }

    /// The secret in `Authorization: Bearer …`, if any.
    public static func bearer(_ header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let value = parts[1].trimmingCharacters(in: .whitespaces)
        return value.isEmpty ? nil : value
    }
}
