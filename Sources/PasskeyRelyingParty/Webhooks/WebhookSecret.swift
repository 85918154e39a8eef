public import PasskeyCore
import Foundation

/// A webhook endpoint's signing secret in the Standard Webhooks form: `whsec_` and the standard base64 of 24 to 64
/// random bytes, the HMAC-SHA256 key. The receiver keeps it to check `webhook-signature`; the server stores it as it
/// must sign with it (unlike API keys and links, it cannot be kept as a hash).
public struct WebhookSecret: Sendable, Hashable, CustomStringConvertible {
    public static let prefix = "whsec_"
    /// The secret as receivers configure it: `whsec_…`.
    public let text: String
    /// The HMAC key.
    public let key: [UInt8]

    /// A new secret of 32 random bytes.
    public static func generate(random: RandomSource = .system) -> WebhookSecret {
        let key = random.bytes(32)
        return WebhookSecret(text: prefix + Data(key).base64EncodedString(), key: key)
    }

    /// Reads `whsec_<standard base64>`; nil for anything else, or a key shorter than 24 or longer than 64 bytes.
    public init?(_ text: String) {
        guard text.hasPrefix(Self.prefix), let key = Data(base64Encoded: String(text.dropFirst(Self.prefix.count))), (24...64).contains(key.count)
        else { return nil }
        self.init(text: text, key: Array(key))
    }

    private init(text: String, key: [UInt8]) {
        self.text = text
        self.key = key
    }

    /// Never the secret itself: its prefix and length, for logs and errors.
    public var description: String { "whsec_… (\(key.count) bytes)" }
}
