import PasskeyAuthenticatorData
import PasskeyCBOR
import PasskeyWire

/// What a browser's `AuthenticatorAttestationResponse` derives from the attestation object and the Apple objects do
/// not: the authenticator data, the credential's algorithm and (for the algorithms written here) its public key as a
/// DER `SubjectPublicKeyInfo` (WebAuthn L3 §5.2.1.1 `getAuthenticatorData()`, `getPublicKeyAlgorithm()`,
/// `getPublicKey()`). Backends that read these members rather than the attestation object need them; the L3 JSON marks
/// `authenticatorData` and `publicKeyAlgorithm` required.
///
/// Read leniently: an attestation object this cannot read gives nothing, and the response goes as the platform made
/// it (the relying party judges the attestation object itself).
struct AttestationObjectFields {
    let authenticatorData: [UInt8]
    let publicKeyAlgorithm: COSEAlgorithmIdentifier?
    let publicKey: [UInt8]?

    /// The authenticator data's fields as ``PasskeyAuthenticatorData/AuthenticatorDataFields`` reads them (WebAuthn L3
    /// §6.1, §6.5.1): with the AT flag, the credential's COSE key, whose `alg` (3) names the algorithm.
    init?(attestationObject: [UInt8]) {
        guard case .map(let object)? = try? CBORDecoder().decode(attestationObject), case .bytes(let data)? = object[text: "authData"],
            let fields = AuthenticatorDataFields(bytes: data)
        else { return nil }
        authenticatorData = data
        if case .map(let key)? = fields.attestedCredential?.credentialPublicKeyValue, let alg = key[int: 3]?.intValue, let value = Int(exactly: alg) {
            publicKeyAlgorithm = COSEAlgorithmIdentifier(rawValue: value)
            publicKey = Self.subjectPublicKeyInfo(key, algorithm: value)
        } else {
            publicKeyAlgorithm = nil
            publicKey = nil
        }
    }

    /// The key as DER `SubjectPublicKeyInfo`, for ES256 (P-256, RFC 5480) and EdDSA (Ed25519, RFC 8410), the keys
    /// platform passkeys and most security keys have; nil for others (the member is optional).
    static func subjectPublicKeyInfo(_ key: CBORMap, algorithm: Int) -> [UInt8]? {
        switch algorithm {
        case -7:
            // kty EC2 (2), crv P-256 (1), x and y of 32 bytes.
            guard key[int: 1]?.intValue == 2, key[int: -1]?.intValue == 1, case .bytes(let x)? = key[int: -2], case .bytes(let y)? = key[int: -3],
                x.count == 32, y.count == 32
            else { return nil }
            let prefix: [UInt8] = [
                0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03,
                0x01, 0x07, 0x03, 0x42, 0x00, 0x04,
            ]
            return prefix + x + y
        case -8:
            // kty OKP (1), crv Ed25519 (6), x of 32 bytes.
            guard key[int: 1]?.intValue == 1, key[int: -1]?.intValue == 6, case .bytes(let x)? = key[int: -2], x.count == 32 else { return nil }
            return [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00] + x
        default:
            return nil
        }
    }
}
