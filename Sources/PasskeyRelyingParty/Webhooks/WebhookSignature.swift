import Crypto
public import Foundation
public import PasskeyCore
import PasskeyWire

/// Signing and checking webhook messages as the Standard Webhooks specification says, so that receivers can verify
/// them with the libraries they already have (the `standardwebhooks` packages, Svix): headers `webhook-id`,
/// `webhook-timestamp` (Unix seconds) and `webhook-signature`, a space-separated list of `v1,<base64 HMAC-SHA256 of
/// "<id>.<timestamp>.<body>">`, one per secret in use (two while a rotated-out secret overlaps its successor).
public enum WebhookSignature {
    /// How far a message's timestamp may be from the receiver's clock: older ones are replays, as the specification
    /// recommends (5 minutes).
    public static let tolerance: TimeInterval = 300

    /// A new message id: `msg_` and 16 random bytes. A retried delivery keeps its message's id, so a receiver can drop
    /// duplicates (delivery is at least once).
    public static func messageID(random: RandomSource = .system) -> String { "msg_" + Base64URL.encode(random.bytes(16)) }

    /// `v1,<base64 signature>` of one secret.
    public static func signature(id: String, timestamp: Date, body: [UInt8], secret: WebhookSecret) -> String {
        let signed = Array("\(id).\(seconds(timestamp)).".utf8) + body
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: secret.key))
        return "v1," + Data(mac).base64EncodedString()
    }

    /// The three headers of a message signed with every secret in `secrets` (the current one first).
    public static func headers(id: String, timestamp: Date, body: [UInt8], secrets: [WebhookSecret]) -> [(name: String, value: String)] {
        [
            ("webhook-id", id), ("webhook-timestamp", String(seconds(timestamp))),
            ("webhook-signature", secrets.map { signature(id: id, timestamp: timestamp, body: body, secret: $0) }.joined(separator: " ")),
        ]
    }

    /// For a Swift app that receives this server's webhooks: checks the headers (looked up case-insensitively by
    /// `header`) and body against `secrets` (any one of them may have signed) at `now`. Throws
    /// ``RelyingPartyError/Code/webhookSignatureInvalid`` for a missing header, a timestamp outside ``tolerance``, or
    /// no matching signature; returns the message id, to drop a duplicate delivery.
    public static func verify(
        body: [UInt8], header: (String) -> String?, secrets: [WebhookSecret], now: Date = Date()
    ) throws(RelyingPartyError) -> String {
        guard let id = header("webhook-id"), let timestampText = header("webhook-timestamp"), let signatures = header("webhook-signature"),
            !id.isEmpty, let timestamp = Int64(timestampText)
        else { throw RelyingPartyError(.webhookSignatureInvalid, "The webhook-id, webhook-timestamp or webhook-signature header is missing.") }
        let sent = Date(timeIntervalSince1970: TimeInterval(timestamp))
        guard abs(sent.timeIntervalSince(now)) <= tolerance else {
            throw RelyingPartyError(.webhookSignatureInvalid, "The message's timestamp is more than \(Int(tolerance)) seconds from now: a replay, or a wrong clock.")
        }
        let offered = signatures.split(separator: " ").compactMap { item -> [UInt8]? in
            let parts = item.split(separator: ",", maxSplits: 1)
            guard parts.count == 2, parts[0] == "v1", let bytes = Data(base64Encoded: String(parts[1])) else { return nil }
            return Array(bytes)
        }
        for secret in secrets {
            let expected = signature(id: id, timestamp: sent, body: body, secret: secret).dropFirst(3)
            guard let expectedBytes = Data(base64Encoded: String(expected)) else { continue }
            if offered.contains(where: { constantTimeEqual($0, Array(expectedBytes)) }) { return id }
        }
        throw RelyingPartyError(.webhookSignatureInvalid, "No webhook-signature matches a secret of this endpoint.")
    }

    static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
}
