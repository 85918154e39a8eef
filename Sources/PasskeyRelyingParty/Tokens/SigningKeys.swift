public import Crypto
public import Foundation
public import PasskeyStorage
public import PasskeyWire

/// ES256 signing keys: creation, the JWK of the public half, and its RFC 7638 thumbprint as the `kid`.
public enum SigningKeys {
    /// A new P-256 key, named by its thumbprint.
    public static func make(now: Date) -> SigningKeyRecord {
        let key = P256.Signing.PrivateKey()
        return SigningKeyRecord(id: thumbprint(key.publicKey), privateKeyPEM: key.pemRepresentation, createdAt: now)
    }

    /// The public key's coordinates, base64url: `x963Representation` is `04 ‖ x ‖ y`.
    public static func coordinates(_ key: P256.Signing.PublicKey) -> (x: String, y: String) {
        let point = Array(key.x963Representation)
        return (Base64URL.encode(Array(point[1..<33])), Base64URL.encode(Array(point[33..<65])))
    }

    /// RFC 7638: SHA-256 over the required members in lexicographic order, no whitespace.
    public static func thumbprint(_ key: P256.Signing.PublicKey) -> String {
        let (x, y) = coordinates(key)
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        return Base64URL.encode(Array(SHA256.hash(data: Array(canonical.utf8))))
    }

    /// The JWK a backend verifies with (RFC 7517): public members only.
    public static func jwk(_ record: SigningKeyRecord, _ key: P256.Signing.PublicKey) -> JSONValue {
        let (x, y) = coordinates(key)
        return .object([
            "kty": "EC", "crv": "P-256", "x": .string(x), "y": .string(y), "kid": .string(record.id), "alg": "ES256", "use": "sig",
        ])
    }
}
