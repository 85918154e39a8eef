import PasskeyCore

/// TPMS_ATTEST (TPM 2.0 Part 2 §10.12.12) carrying TPMS_CERTIFY_INFO (§10.12.3): what the TPM signed when it
/// certified the credential key with its attestation identity key.
struct TPMAttestationInfo: Sendable {
    /// TPM_GENERATED_VALUE (§6.2): every TPM-produced attestation starts with these bytes ("\xffTCG").
    static let generatedMagic: UInt32 = 0xff54_4347
    /// TPM_ST_ATTEST_CERTIFY (§6.9).
    static let attestCertifyType: UInt16 = 0x8017
    /// TPMS_CLOCK_INFO (§10.11.1): clock (8) ‖ resetCount (4) ‖ restartCount (4) ‖ safe (1).
    static let clockInfoLength = 8 + 4 + 4 + 1

    let magic: UInt32
    let type: UInt16
    let qualifiedSigner: [UInt8]
    let extraData: [UInt8]
    let firmwareVersion: UInt64
    /// TPMS_CERTIFY_INFO.name: the Name of the certified object.
    let attestedName: [UInt8]
    let attestedQualifiedName: [UInt8]

    /// Parses the structure. Magic and type are read, not judged: the verification procedure checks them so that
    /// its errors say which requirement failed.
    init(bytes: [UInt8]) throws(WebAuthnError) {
        var reader = TPMByteReader(bytes, structure: "certInfo (TPMS_ATTEST)")
        magic = try reader.uint32("magic")
        type = try reader.uint16("type")
        qualifiedSigner = try reader.sized("qualifiedSigner")
        extraData = try reader.sized("extraData")
        _ = try reader.read(Self.clockInfoLength, "clockInfo")
        firmwareVersion = try reader.uint64("firmwareVersion")
        attestedName = try reader.sized("attested.name")
        attestedQualifiedName = try reader.sized("attested.qualifiedName")
        try reader.expectEnd()
    }
}
