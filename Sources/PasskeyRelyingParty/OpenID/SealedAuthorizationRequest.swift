import Crypto
import Foundation
import PasskeyWire

/// An authorization request carried by the sign-in page, sealed: the provider stores nothing between `/authorize` and
/// the passkey, and any instance opens what another sealed.
///
/// Layout: base64url of the request's JSON with `exp` (seconds since 1970), `.`, base64url of HMAC-SHA256 under a
/// server secret shared by every instance (``CeremonySecrets``) over a domain label and the JSON. The page cannot alter
/// the client, the redirect URI or the scopes; it can only hand the request back before `exp`.
enum SealedAuthorizationRequest {
    static let label = Array("passkey-oidc-authorization-request".utf8)

    static func seal(_ request: AuthorizationRequest, expiresAt: Date, key: SymmetricKey) -> String {
        var object = request.json
        if case .object(var members) = object {
            members["exp"] = .number(Double(Int(expiresAt.timeIntervalSince1970)))
            object = .object(members)
        }
        let body = object.serializedBytes
        let mac = HMAC<SHA256>.authenticationCode(for: label + body, using: key)
        return Base64URL.encode(body) + "." + Base64URL.encode(Array(mac))
    }

    /// The request, when `text` was sealed under `key` and has not expired at `now`; nil otherwise.
    static func open(_ text: String, key: SymmetricKey, now: Date) -> AuthorizationRequest? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard text.utf8.count <= 16_384, parts.count == 2, let body = Base64URL.decode(String(parts[0])), let mac = Base64URL.decode(String(parts[1])),
            HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: label + body, using: key),
            let json = try? JSONValue.parse(body), let expiry = json.objectValue?["exp"]?.numberValue,
            Date(timeIntervalSince1970: expiry) > now
        else { return nil }
        return try? AuthorizationRequest(json: json)
    }
}
