import Crypto
import PasskeyClient
import PasskeyWire

/// The `prf` extension (WebAuthn L3 §10.1.4) as this authenticator evaluates it: CTAP2's `hmac-secret`, without the
/// encryption between client and authenticator (they share a process here), so apps that derive keys from a passkey
/// (end-to-end encryption, vault unlock) can run those flows on Linux, in tests and from the CLI. Its inputs are read and
/// checked by `PRFInputs`, as for every authenticator of the SDK.
///
/// A credential created with `prf` in its options gets a random 32-byte secret, stored with it
/// (``StoredCredential/prfSecret``). Evaluating an input gives HMAC-SHA-256, keyed with that secret, over the §10.1.4
/// salt `SHA-256("WebAuthn PRF" ‖ 0x00 ‖ input)`: 32 bytes, always the same for the same credential and input, in the
/// extension results as base64url (L3 JSON). §10.1.4 exposes one PRF per credential, the one CTAP2 uses with user
/// verification, so a ceremony without user verification (a presence-only configuration, a conditional create) gets no
/// outputs rather than another PRF's.
///
/// Unlike CTAP2 the authenticator data carries no `hmac-secret` output: the results are only in the client extension
/// results, as browsers and Apple's platform hand them to a page or app.
enum PRFExtension {
    static let secretLength = 32

    /// The outputs for `values` from a credential's secret: `{"first": …, "second": …}` in base64url. Only for a
    /// ceremony that verified the user.
    static func results(secret: [UInt8], values: PRFValues) -> JSONObject {
        let key = SymmetricKey(data: secret)
        func evaluate(_ input: [UInt8]) -> JSONValue {
            let salt = Array(SHA256.hash(data: Array("WebAuthn PRF".utf8) + [0] + input))
            return .string(Base64URL.encode(Array(HMAC<SHA256>.authenticationCode(for: salt, using: key))))
        }
        var results: JSONObject = ["first": evaluate(values.first)]
        if let second = values.second { results["second"] = evaluate(second) }
        return results
    }
}
