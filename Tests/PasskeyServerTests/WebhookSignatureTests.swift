import Foundation
import PasskeyRelyingParty
import PasskeyTestSupport
import PasskeyWire
import Testing

/// Standard Webhooks signatures, checked against `standardwebhooks` from PyPI (an implementation we did not write) in
/// both directions. Without `python3 -m pip install standardwebhooks` the interoperability test is skipped locally; on CI
/// (`CI=true`) it fails instead.
@Suite("Webhook signatures (Standard Webhooks)")
struct WebhookSignatureTests {
    static let required = ProcessInfo.processInfo.environment["CI"] == "true"
    static let python = URL(fileURLWithPath: "/usr/bin/env")
    static let available: Bool = {
        guard let run = try? runProgram(python, ["python3", "-c", "import standardwebhooks"]) else { return false }
        return run.status == 0
    }()

    /// Verifies with the Python library: prints OK, or the exception. With `sign`, instead prints the library's own
    /// `webhook-signature` for the message.
    static let script = """
        import sys, json
        from datetime import datetime, timezone
        from standardwebhooks import Webhook
        secret, body, msg_id, timestamp, signature, mode = sys.argv[1:7]
        hook = Webhook(secret)
        if mode == "sign":
            print(hook.sign(msg_id, datetime.fromtimestamp(int(timestamp), tz=timezone.utc), body))
        else:
            try:
                hook.verify(body.encode(), {"webhook-id": msg_id, "webhook-timestamp": timestamp, "webhook-signature": signature})
                print("OK")
            except Exception as error:
                print("REFUSED", type(error).__name__, error)
        """

    func python(_ secret: WebhookSecret, body: String, id: String, timestamp: String, signature: String, mode: String = "verify") async throws -> String {
        try await onOwnThread {
            try runProgram(Self.python, ["python3", "-c", Self.script, secret.text, body, id, timestamp, signature, mode])
        }.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        "the server's signatures verify with standardwebhooks, also during a secret's rotation, and the library's verify with ours",
        .enabled(if: available || required, "python3 with standardwebhooks is not installed (python3 -m pip install standardwebhooks)"))
    func interoperability() async throws {
        guard Self.available else {
            Issue.record("CI=true but python3 cannot import standardwebhooks: .ci/run installs it")
            return
        }
        let old = WebhookSecret.generate()
        let new = WebhookSecret.generate()
        let id = WebhookSignature.messageID()
        let now = Date()
        let body = #"{"type":"passkey.created","timestamp":"2026-11-26T20:00:00Z","data":{"userId":"u1","name":"Zoë ✓"}}"#
        let headers = Dictionary(uniqueKeysWithValues: WebhookSignature.headers(id: id, timestamp: now, body: Array(body.utf8), secrets: [new, old]).map { ($0.name, $0.value) })
        let timestamp = try #require(headers["webhook-timestamp"])
        let signature = try #require(headers["webhook-signature"])
        #expect(signature.split(separator: " ").count == 2 && signature.hasPrefix("v1,"))
        // A receiver that still has the old secret and one that has the new both accept it.
        #expect(try await python(old, body: body, id: id, timestamp: timestamp, signature: signature) == "OK")
        #expect(try await python(new, body: body, id: id, timestamp: timestamp, signature: signature) == "OK")
        // One with another secret, or a changed body, does not.
        #expect(try await python(WebhookSecret.generate(), body: body, id: id, timestamp: timestamp, signature: signature).hasPrefix("REFUSED"))
        #expect(try await python(new, body: body + " ", id: id, timestamp: timestamp, signature: signature).hasPrefix("REFUSED"))

        // The other way round: the Python library signs, ours verifies.
        let theirs = try await python(new, body: body, id: id, timestamp: timestamp, signature: "", mode: "sign")
        let verified = try WebhookSignature.verify(
            body: Array(body.utf8), header: { ["webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": theirs][$0.lowercased()] },
            secrets: [new], now: now)
        #expect(verified == id)
    }

    @Test("verification fails with exactly one thing wrong: body, id, timestamp, age, secret, version, a missing header")
    func oneThingWrong() throws {
        let secret = WebhookSecret.generate()
        let id = "msg_abc"
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let body = Array(#"{"type":"user.deleted"}"#.utf8)
        let good = Dictionary(uniqueKeysWithValues: WebhookSignature.headers(id: id, timestamp: now, body: body, secrets: [secret]).map { ($0.name, $0.value) })
        func check(_ headers: [String: String], body: [UInt8] = body, secrets: [WebhookSecret]? = nil, now: Date = now) -> RelyingPartyError.Code? {
            do {
                _ = try WebhookSignature.verify(body: body, header: { headers[$0] }, secrets: secrets ?? [secret], now: now)
                return nil
            } catch { return error.code }
        }
        #expect(check(good) == nil)
        #expect(check(good, now: now.addingTimeInterval(299)) == nil, "within the tolerance")
        var headers = good
        headers["webhook-id"] = "msg_abd"
        #expect(check(headers) == .webhookSignatureInvalid, "another id")
        headers = good
        headers["webhook-timestamp"] = String(Int(now.timeIntervalSince1970) + 1)
        #expect(check(headers) == .webhookSignatureInvalid, "another timestamp")
        #expect(check(good, body: body + [0x20]) == .webhookSignatureInvalid, "another body")
        #expect(check(good, now: now.addingTimeInterval(301)) == .webhookSignatureInvalid, "too old: a replay")
        #expect(check(good, now: now.addingTimeInterval(-301)) == .webhookSignatureInvalid, "from the future")
        #expect(check(good, secrets: [WebhookSecret.generate()]) == .webhookSignatureInvalid, "another secret")
        headers = good
        headers["webhook-signature"] = good["webhook-signature"]?.replacingOccurrences(of: "v1,", with: "v2,")
        #expect(check(headers) == .webhookSignatureInvalid, "an unknown signature version is ignored")
        for name in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
            headers = good
            headers[name] = nil
            #expect(check(headers) == .webhookSignatureInvalid, "without \(name)")
        }
    }

    @Test("secrets: whsec_ and 24 to 64 bytes of standard base64; never shown in descriptions")
    func secrets() throws {
        let secret = WebhookSecret.generate()
        #expect(secret.text.hasPrefix("whsec_") && secret.key.count == 32)
        #expect(WebhookSecret(secret.text) == secret)
        #expect(WebhookSecret(String(secret.text.dropFirst(6))) == nil, "without the prefix")
        #expect(WebhookSecret("whsec_" + Data(repeating: 1, count: 16).base64EncodedString()) == nil, "too short")
        #expect(WebhookSecret("whsec_" + Data(repeating: 1, count: 65).base64EncodedString()) == nil, "too long")
        #expect(WebhookSecret("whsec_not base64!") == nil)
        #expect(!"\(secret)".contains(String(secret.text.dropFirst(6))), "\(secret)")
    }
}
