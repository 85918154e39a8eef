public import JWTKit
public import PasskeyWire

/// The claims of `signedPasskeyData`: a short-lived JWT (ES256) that proves to the app's backend who just signed in
/// (or registered) with which passkey. The backend verifies it offline with `/.well-known/jwks.json` or online with
/// `POST /connect/verify`, then starts its own session.
public struct SignedPasskeyClaims: JWTPayload, Equatable {
    /// The server's issuer name (``ConnectConfiguration/tokenIssuer``).
    public var iss: String
    /// Our user id.
    public var sub: String
    /// ``ConnectConfiguration/tokenAudience``: the backend checks it is its own.
    public var aud: String
    public var iat: Int
    public var exp: Int
    /// Unique: `/connect/verify` accepts each token once.
    public var jti: String
    /// RFC 8176 methods: `fido` always, plus `mfa` when the authenticator verified the user (biometrics or PIN).
    public var amr: [String]
    /// `authentication` or `registration`.
    public var ceremony: String
    public var username: String?
    /// The app's own user id, when the account was linked through a connect token.
    public var externalUserID: String?
    /// The passkey used, base64url.
    public var credentialID: String
    /// `true` when the sign-in was accepted although the signature counter did not increase (`--allow-counter-regression`):
    /// the authenticator may have been cloned, so the backend may ask for more before it trusts the session. Absent
    /// otherwise.
    public var counterRegressed: Bool?

    public enum CodingKeys: String, CodingKey {
        case iss, sub, aud, iat, exp, jti, amr, ceremony, username
        case externalUserID = "external_user_id"
        case credentialID = "credential_id"
        case counterRegressed = "counter_regressed"
    }

    /// Time and audience are checked by ``TokenIssuer`` with the server's clock, not here.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension SignedPasskeyClaims {
    /// The claims as the token's payload: members in the order of ``CodingKeys``, absent optionals left out (as
    /// `JSONEncoder` wrote them when jwt-kit signed).
    public var json: JSONValue {
        var object: JSONObject = [
            "iss": .string(iss), "sub": .string(sub), "aud": .string(aud), "iat": .number(Double(iat)), "exp": .number(Double(exp)),
            "jti": .string(jti), "amr": .array(amr.map(JSONValue.string)), "ceremony": .string(ceremony),
        ]
        if let username { object["username"] = .string(username) }
        if let externalUserID { object["external_user_id"] = .string(externalUserID) }
        object["credential_id"] = .string(credentialID)
        if let counterRegressed { object["counter_regressed"] = .bool(counterRegressed) }
        return .object(object)
    }
}
