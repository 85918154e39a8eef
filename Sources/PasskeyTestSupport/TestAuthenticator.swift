// Test support: a minimal authenticator and builders that make responses a test changes in exactly one place.
// Used by the core and server test suites; not a product.
public import Crypto
public import _CryptoExtras
import Foundation
public import PasskeyAuthenticatorData
public import PasskeyCBOR
public import PasskeyCore
public import PasskeyWire

/// Builds authenticator data byte by byte, so a test can change exactly one thing.
public struct AuthenticatorDataBuilder: Sendable {
    public var rpID = "example.com"
    public var rpIDHash: [UInt8]?
    public var flags: AuthenticatorData.Flags = [.userPresent, .userVerified]
    public var signCount: UInt32 = 0
    public var aaguid = [UInt8](repeating: 0, count: 16)
    public var credentialID: [UInt8]?
    public var credentialPublicKey: [UInt8]?
    public var extensions: [UInt8]?
    public var trailing: [UInt8] = []

    public init() {}

    /// The bytes, in the shared layout (``PasskeyAuthenticatorData/AuthenticatorDataLayout``), flags as set: a test may
    /// make them contradict the content.
    public func build() -> [UInt8] {
        var attested: [UInt8]?
        if let credentialID, let credentialPublicKey {
            attested = AuthenticatorDataLayout.attestedCredentialData(aaguid: aaguid, credentialID: credentialID, credentialPublicKey: credentialPublicKey)
        }
        return AuthenticatorDataLayout.encode(
            rpIDHash: rpIDHash ?? Array(SHA256.hash(data: Array(rpID.utf8))), flags: flags, signCount: signCount, attestedCredentialData: attested,
            extensions: extensions) + trailing
    }
}

/// A key the tests sign with, in any algorithm the verifier supports.
public enum TestKey: Sendable {
    case p256(P256.Signing.PrivateKey)
    case p384(P384.Signing.PrivateKey)
    case p521(P521.Signing.PrivateKey)
    case ed25519(Curve25519.Signing.PrivateKey)
    case rsa(_RSA.Signing.PrivateKey, pss: Bool)
    #if !canImport(Darwin)
    // On Apple platforms ML-DSA comes from CryptoKit and needs OS 26; the tests run it on Linux.
    case mlDSA65(MLDSA65.PrivateKey)
    #endif

    /// Every algorithm the tests sign with on this platform.
    public static var algorithms: [COSEAlgorithmIdentifier] {
        var all: [COSEAlgorithmIdentifier] = [.es256, .es384, .es512, .edDSA, .rs256, .ps256]
        #if !canImport(Darwin)
        all.append(.mlDSA65)
        #endif
        return all
    }

    public static func make(_ alg: COSEAlgorithmIdentifier) throws -> TestKey {
        switch alg {
        case .es384: return .p384(P384.Signing.PrivateKey())
        case .es512: return .p521(P521.Signing.PrivateKey())
        case .edDSA: return .ed25519(Curve25519.Signing.PrivateKey())
        case .rs256: return .rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048), pss: false)
        case .ps256: return .rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048), pss: true)
        #if !canImport(Darwin)
        case .mlDSA65: return .mlDSA65(try MLDSA65.PrivateKey())
        #endif
        default: return .p256(P256.Signing.PrivateKey())
        }
    }

    public var algorithm: COSEAlgorithmIdentifier {
        switch self {
        case .p256: .es256
        case .p384: .es384
        case .p521: .es512
        case .ed25519: .edDSA
        case .rsa(_, let pss): pss ? .ps256 : .rs256
        #if !canImport(Darwin)
        case .mlDSA65: .mlDSA65
        #endif
        }
    }

    public var coseKey: COSEKey {
        func split(_ x963: Data) -> ([UInt8], [UInt8]) {
            let raw = Array(x963.dropFirst())
            return (Array(raw[0..<(raw.count / 2)]), Array(raw[(raw.count / 2)...]))
        }
        switch self {
        case .p256(let k):
            let (x, y) = split(k.publicKey.x963Representation)
            return COSEKey(keyType: .ec2, algorithm: .es256, parameters: .ec2(curve: .p256, x: x, y: y))
        case .p384(let k):
            let (x, y) = split(k.publicKey.x963Representation)
            return COSEKey(keyType: .ec2, algorithm: .es384, parameters: .ec2(curve: .p384, x: x, y: y))
        case .p521(let k):
            let (x, y) = split(k.publicKey.x963Representation)
            return COSEKey(keyType: .ec2, algorithm: .es512, parameters: .ec2(curve: .p521, x: x, y: y))
        case .ed25519(let k):
            return COSEKey(keyType: .okp, algorithm: .edDSA, parameters: .okp(curve: .ed25519, x: Array(k.publicKey.rawRepresentation)))
        case .rsa(let k, _):
            let components = try? k.publicKey.getKeyPrimitives()
            return COSEKey(
                keyType: .rsa, algorithm: algorithm,
                parameters: .rsa(n: Array(components?.modulus ?? Data()), e: Array(components?.publicExponent ?? Data())))
        #if !canImport(Darwin)
        case .mlDSA65(let k):
            return COSEKey(keyType: .akp, algorithm: .mlDSA65, parameters: .akp(publicKey: Array(k.publicKey.rawRepresentation)))
        #endif
        }
    }

    public func sign(_ data: [UInt8]) throws -> [UInt8] {
        switch self {
        case .p256(let k): return Array(try k.signature(for: data).derRepresentation)
        case .p384(let k): return Array(try k.signature(for: data).derRepresentation)
        case .p521(let k): return Array(try k.signature(for: data).derRepresentation)
        case .ed25519(let k): return Array(try k.signature(for: data))
        case .rsa(let k, let pss):
            return Array(try k.signature(for: SHA256.hash(data: data), padding: pss ? .PSS : .insecurePKCS1v1_5).rawRepresentation)
        #if !canImport(Darwin)
        case .mlDSA65(let k): return Array(try k.signature(for: data))
        #endif
        }
    }
}

/// A minimal authenticator and client for tests: makes registration and assertion responses that a test then
/// changes in exactly one place.
public struct TestAuthenticator: Sendable {
    public var key: TestKey
    public var credentialID: [UInt8] = Array(repeating: 0xc1, count: 32)
    public var userHandle: [UInt8] = Array(repeating: 0x75, count: 64)
    public var origin = "https://example.com"

    public init(algorithm: COSEAlgorithmIdentifier = .es256) throws { key = try TestKey.make(algorithm) }

    public static let challenge = Base64URL.encode([UInt8](repeating: 7, count: 32))

    public static func clientData(
        type: String, challenge: String = challenge, origin: String = "https://example.com", extra: [(String, JSONValue)] = []
    ) -> [UInt8] {
        var object: JSONObject = ["type": .string(type), "challenge": .string(challenge), "origin": .string(origin), "crossOrigin": false]
        for (k, v) in extra { object[k] = v }
        return JSONValue.object(object).serializedBytes
    }

    public func authData(for ceremony: String, _ configure: (inout AuthenticatorDataBuilder) -> Void = { _ in }) -> AuthenticatorDataBuilder {
        var b = AuthenticatorDataBuilder()
        if ceremony == "create" {
            b.flags.insert(.attestedCredentialData)
            b.credentialID = credentialID
            b.credentialPublicKey = key.coseKey.encoded
        }
        configure(&b)
        return b
    }

    /// A registration response with `none` attestation (or a custom format and statement).
    public func registration(
        authData: [UInt8]? = nil, clientData: [UInt8]? = nil, fmt: String = "none", attStmt: CBORValue = .map([:]),
        rawId: [UInt8]? = nil
    ) -> RegistrationResponseJSON {
        let authData = authData ?? self.authData(for: "create").build()
        let clientData = clientData ?? Self.clientData(type: "webauthn.create", origin: origin)
        let object: CBORValue = .map(["fmt": .text(fmt), "attStmt": attStmt, "authData": .bytes(authData)])
        let id = Base64URL.encode(rawId ?? credentialID)
        return RegistrationResponseJSON(
            id: id, rawId: id,
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URL.encode(clientData), attestationObject: Base64URL.encode(CBOREncoder().encode(object)),
                transports: [.internal, .hybrid]))
    }

    /// A packed self-attestation statement over `authData ‖ SHA-256(clientData)`.
    public func packedSelfStatement(authData: [UInt8], clientData: [UInt8]) throws -> CBORValue {
        let sig = try key.sign(authData + Array(SHA256.hash(data: clientData)))
        return .map(["alg": .int(Int64(key.algorithm.rawValue)), "sig": .bytes(sig)])
    }

    /// A signed assertion response.
    public func assertion(
        authData: [UInt8]? = nil, clientData: [UInt8]? = nil, userHandle: [UInt8]?? = .none, signature: [UInt8]? = nil
    ) throws -> AuthenticationResponseJSON {
        let authData = authData ?? self.authData(for: "get").build()
        let clientData = clientData ?? Self.clientData(type: "webauthn.get", origin: origin)
        let sig = try signature ?? key.sign(authData + Array(SHA256.hash(data: clientData)))
        let handle: [UInt8]? = userHandle ?? self.userHandle
        let id = Base64URL.encode(credentialID)
        return AuthenticationResponseJSON(
            id: id, rawId: id,
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: Base64URL.encode(clientData), authenticatorData: Base64URL.encode(authData),
                signature: Base64URL.encode(sig), userHandle: handle.map(Base64URL.encode)))
    }

    /// The record a relying party would have stored at registration.
    public func record(signCount: UInt32 = 0, backupEligible: Bool = false) -> CredentialRecord {
        CredentialRecord(
            id: credentialID, publicKey: key.coseKey.encoded, signCount: signCount, uvInitialized: true,
            backupEligible: backupEligible, userHandle: userHandle)
    }
}

extension RelyingParty {
    public static let test = RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"])
}

/// Runs `body` and returns the WebAuthnError code it threw, nil if it did not throw, and `unexpected_error` for any
/// other error (which a test then reports as a mismatch).
public func errorCode<T>(_ body: () throws -> T) -> WebAuthnError.Code? {
    do {
        _ = try body()
        return nil
    } catch let error as WebAuthnError {
        return error.code
    } catch {
        return WebAuthnError.Code(rawValue: "unexpected_error")
    }
}
