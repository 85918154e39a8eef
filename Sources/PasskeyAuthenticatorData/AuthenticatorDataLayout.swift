/// Where each field of authenticator data lies (WebAuthn L3 §6.1, §6.5.2), and the bytes for given fields:
///
///     rpIdHash (32) ‖ flags (1) ‖ signCount (4, big-endian)
///     ‖ [attested credential data: aaguid (16) ‖ credentialIdLength (2, big-endian) ‖ credentialId ‖ credentialPublicKey (COSE_Key)]
///     ‖ [extensions (CBOR map)]
///
/// The strict parser of the verifier (`PasskeyCore`'s `AuthenticatorData`) and the lenient reader of the client SDK
/// (``AuthenticatorDataFields``) read by these offsets; the software authenticator and the tests write with
/// ``encode(rpIDHash:flags:signCount:attestedCredentialData:extensions:)``.
public enum AuthenticatorDataLayout {
    public static let rpIDHashLength = 32
    public static let flagsOffset = rpIDHashLength
    public static let signCountOffset = flagsOffset + 1
    public static let signCountLength = 4
    /// Every authenticator data has at least the RP ID hash, the flags and the counter.
    public static let minimumLength = signCountOffset + signCountLength
    public static let aaguidLength = 16
    /// The credential ID's length is two bytes, big-endian, after the AAGUID.
    public static let credentialIDLengthLength = 2
    /// Attested credential data up to the credential ID.
    public static let attestedCredentialDataHeaderLength = aaguidLength + credentialIDLengthLength

    /// Authenticator data of these fields, written as given: the flags are not made to agree with what follows, so a
    /// test can write data whose flags contradict it.
    public static func encode(
        rpIDHash: [UInt8], flags: AuthenticatorDataFlags, signCount: UInt32, attestedCredentialData: [UInt8]? = nil, extensions: [UInt8]? = nil
    ) -> [UInt8] {
        var out = rpIDHash
        out.reserveCapacity(minimumLength + (attestedCredentialData?.count ?? 0) + (extensions?.count ?? 0))
        out.append(flags.rawValue)
        out += [UInt8(truncatingIfNeeded: signCount >> 24), UInt8(truncatingIfNeeded: signCount >> 16), UInt8(truncatingIfNeeded: signCount >> 8), UInt8(truncatingIfNeeded: signCount)]
        if let attestedCredentialData { out += attestedCredentialData }
        if let extensions { out += extensions }
        return out
    }

    /// Attested credential data (§6.5.2): `aaguid` ‖ the credential ID's length ‖ `credentialID` ‖ `credentialPublicKey`
    /// (its COSE_Key bytes).
    public static func attestedCredentialData(aaguid: [UInt8], credentialID: [UInt8], credentialPublicKey: [UInt8]) -> [UInt8] {
        aaguid + [UInt8(truncatingIfNeeded: credentialID.count >> 8), UInt8(truncatingIfNeeded: credentialID.count)] + credentialID + credentialPublicKey
    }

    /// The counter at ``signCountOffset``; nil when `bytes` is too short.
    public static func signCount(_ bytes: [UInt8]) -> UInt32? {
        guard bytes.count >= minimumLength else { return nil }
        return bytes[signCountOffset..<(signCountOffset + signCountLength)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
