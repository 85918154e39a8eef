import PasskeyCore

/// TPMT_PUBLIC (TPM 2.0 Part 2 §12.2.4): the public area of the credential key, as the TPM certified it.
///
/// Parsed for RSA and ECC keys, the two types WebAuthn TPM attestation uses; every byte must be accounted for.
struct TPMPublicArea: Sendable {
    enum Key: Sendable, Hashable {
        case rsa(modulus: [UInt8], exponent: [UInt8])
        case ecc(curveID: UInt16, x: [UInt8], y: [UInt8])
    }

    let type: UInt16
    /// The hash algorithm of this object's Name (TPM 2.0 Part 1 §16).
    let nameAlgorithm: UInt16
    let objectAttributes: UInt32
    let key: Key
    /// The exact bytes, hashed for the Name.
    let bytes: [UInt8]

    init(bytes: [UInt8]) throws(WebAuthnError) {
        self.bytes = bytes
        var reader = TPMByteReader(bytes, structure: "pubArea (TPMT_PUBLIC)")
        type = try reader.uint16("type")
        nameAlgorithm = try reader.uint16("nameAlg")
        objectAttributes = try reader.uint32("objectAttributes")
        _ = try reader.sized("authPolicy")
        switch type {
        case TPMAlgorithm.rsa:
            // TPMS_RSA_PARMS (§12.2.3.5): symmetric, scheme, keyBits, exponent.
            try Self.skipSymmetric(&reader)
            try Self.skipScheme(&reader)
            _ = try reader.uint16("parameters.keyBits")
            let exponent = try reader.uint32("parameters.exponent")
            // TPM2B_PUBLIC_KEY_RSA (§11.2.4.5): the modulus.
            let modulus = try reader.sized("unique (RSA modulus)")
            let exponentBytes = exponent == 0
                ? TPMAlgorithm.defaultRSAExponent
                : Array(withUnsafeBytes(of: exponent.bigEndian, Array.init).drop { $0 == 0 })
            key = .rsa(modulus: modulus, exponent: exponentBytes)
        case TPMAlgorithm.ecc:
            // TPMS_ECC_PARMS (§12.2.3.6): symmetric, scheme, curveID, kdf.
            try Self.skipSymmetric(&reader)
            try Self.skipScheme(&reader)
            let curveID = try reader.uint16("parameters.curveID")
            let kdf = try reader.uint16("parameters.kdf.scheme")
            if kdf != TPMAlgorithm.null { _ = try reader.uint16("parameters.kdf.hashAlg") }
            // TPMS_ECC_POINT (§11.2.5.2): x and y.
            let x = try reader.sized("unique.x")
            let y = try reader.sized("unique.y")
            key = .ecc(curveID: curveID, x: x, y: y)
        default:
            throw WebAuthnError(
                .attestationInvalid, "tpm pubArea type is neither TPM_ALG_RSA nor TPM_ALG_ECC",
                received: "0x" + [UInt8(type >> 8), UInt8(type & 0xff)].hexString)
        }
        try reader.expectEnd()
    }

    /// TPMT_SYM_DEF_OBJECT (§12.2.3.4 / §11.1.7): an algorithm, then key bits and mode unless the algorithm is NULL.
    static func skipSymmetric(_ reader: inout TPMByteReader) throws(WebAuthnError) {
        let algorithm = try reader.uint16("parameters.symmetric.algorithm")
        guard algorithm != TPMAlgorithm.null else { return }
        _ = try reader.uint16("parameters.symmetric.keyBits")
        _ = try reader.uint16("parameters.symmetric.mode")
    }

    /// TPMT_RSA_SCHEME / TPMT_ECC_SCHEME (§11.2.4.2, §11.2.5.6): a scheme, then its hash unless NULL (and a count
    /// for ECDAA, §11.2.1.3).
    static func skipScheme(_ reader: inout TPMByteReader) throws(WebAuthnError) {
        let scheme = try reader.uint16("parameters.scheme")
        guard scheme != TPMAlgorithm.null else { return }
        _ = try reader.uint16("parameters.scheme.hashAlg")
        if scheme == TPMAlgorithm.ecdaa { _ = try reader.uint16("parameters.scheme.count") }
    }

    /// Whether this public area holds the credential public key (WebAuthn L3 §8.3 step 2).
    func matches(_ credential: COSEKey) -> Bool {
        switch (key, credential.parameters) {
        case (.rsa(let modulus, let exponent), .rsa(let n, let e)):
            return constantTimeEqual(CertificateKey.stripLeadingZeros(modulus), CertificateKey.stripLeadingZeros(n))
                && constantTimeEqual(CertificateKey.stripLeadingZeros(exponent), CertificateKey.stripLeadingZeros(e))
        case (.ecc(let curveID, let x, let y), .ec2(let curve, let cx, let cy)):
            return TPMAlgorithm.coseCurve(curveID) == curve && constantTimeEqual(x, cx) && constantTimeEqual(y, cy)
        default:
            return false
        }
    }
}
