import Crypto
import PasskeyWire

/// Builds `clientDataJSON` the way a client does (WebAuthn L3 §5.8.1, serialized as in §5.8.1.1: `type`,
/// `challenge`, `origin`, `crossOrigin` first and in that order), and its hash, which both signatures cover.
enum ClientDataBuilder {
    enum CeremonyType: String {
        case create = "webauthn.create"
        case get = "webauthn.get"
    }

    /// - Parameters:
    ///   - challenge: the decoded challenge; re-encoded as base64url without padding, as a browser does.
    ///   - origin: the caller's origin (web origin, `https://<rpId>` for an Apple app, `android:apk-key-hash:…`).
    ///   - androidPackageName: Android apps report their package name as an extra member.
    static func build(type: CeremonyType, challenge: [UInt8], origin: String, androidPackageName: String?) -> [UInt8] {
        var object = JSONObject()
        object["type"] = .string(type.rawValue)
        object["challenge"] = .string(Base64URL.encode(challenge))
        object["origin"] = .string(origin)
        if let androidPackageName {
            // Android Credential Manager omits crossOrigin for apps and adds the package name.
            object["androidPackageName"] = .string(androidPackageName)
        } else {
            // Never in a cross-origin iframe: the software authenticator has no frames.
            object["crossOrigin"] = .bool(false)
        }
        return JSONValue.object(object).serializedBytes
    }

    static func hash(_ clientDataJSON: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: clientDataJSON)) }
}
