import _CryptoExtras
import Crypto
import Foundation
public import PasskeyStorage
public import PasskeyWire
import Synchronization

/// Signs ID tokens: ES256 with the server's signing keys (``TokenIssuer``, which rotate with `passkey-server keys
/// rotate`), RS256 (the algorithm OpenID Connect requires every provider to offer) with an RSA key kept as a server
/// secret, made once and shared by every instance. Both public keys are in the JWKS.
public final class OpenIDSigner<Repository: SigningKeyRepository & ConnectTokenRepository & SecretRepository>: Sendable {
    public let tokens: TokenIssuer<Repository>
    let repository: Repository
    /// The RSA key, its `kid` and its JWK, once read.
    private let rsa = Mutex<RSAKey?>(nil)

    struct RSAKey: @unchecked Sendable {
        let key: _RSA.Signing.PrivateKey
        let kid: String
        let jwk: JSONValue
        let encodedHeader: String
    }

    public init(tokens: TokenIssuer<Repository>, repository: Repository) {
        self.tokens = tokens
        self.repository = repository
    }

    /// A compact JWS of `claims`, signed with `algorithm` (`RS256` or `ES256`).
    public func sign(_ claims: JSONValue, algorithm: String) async throws(RelyingPartyError) -> String {
        guard algorithm == "RS256" else { return try await tokens.signClaims(claims) }
        let key = try await rsaKey()
        let input = key.encodedHeader + "." + Base64URL.encode(claims.serializedBytes)
        do {
            let signature = try key.key.signature(for: Array(input.utf8), padding: .insecurePKCS1v1_5)
            return input + "." + Base64URL.encode(Array(signature.rawRepresentation))
        } catch {
            throw RelyingPartyError.internalError("RS256 signing failed: \(error)")
        }
    }

    /// Every key that verifies this server's tokens: the ES256 keys and the RSA key.
    public func jwks() async throws(RelyingPartyError) -> JSONValue {
        let es256 = try await tokens.jwks()
        let rsa = try await rsaKey()
        guard case .object(var object) = es256, case .array(let keys) = object["keys"] ?? .array([]) else { return es256 }
        object["keys"] = .array(keys + [rsa.jwk])
        return .object(object)
    }

    func rsaKey() async throws(RelyingPartyError) -> RSAKey {
        if let known = rsa.withLock({ $0 }) { return known }
        let der: [UInt8]
        do {
            der = try await repository.secret(named: CeremonySecrets.openIDSigningKey) {
                (try? _RSA.Signing.PrivateKey(keySize: .bits2048)).map { Array($0.derRepresentation) } ?? []
            }
        } catch { throw RelyingPartyError(error) }
        guard !der.isEmpty, let key = try? _RSA.Signing.PrivateKey(derRepresentation: der), let primitives = try? key.publicKey.getKeyPrimitives() else {
            throw RelyingPartyError.internalError("the stored RS256 key does not read")
        }
        let n = Base64URL.encode(Array(primitives.modulus.drop { $0 == 0 }))
        let e = Base64URL.encode(Array(primitives.publicExponent.drop { $0 == 0 }))
        // RFC 7638: the required members in lexicographic order, no whitespace.
        let kid = Base64URL.encode(Array(SHA256.hash(data: Array(#"{"e":"\#(e)","kty":"RSA","n":"\#(n)"}"#.utf8))))
        let jwk: JSONValue = .object(["kty": "RSA", "n": .string(n), "e": .string(e), "kid": .string(kid), "alg": "RS256", "use": "sig"])
        let header: JSONValue = .object(["alg": "RS256", "kid": .string(kid), "typ": "JWT"])
        let made = RSAKey(key: key, kid: kid, jwk: jwk, encodedHeader: Base64URL.encode(header.serializedBytes))
        rsa.withLock { $0 = made }
        return made
    }
}
