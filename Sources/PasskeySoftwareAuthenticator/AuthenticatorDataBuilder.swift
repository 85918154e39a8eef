import Crypto

/// The authenticator data flags byte (WebAuthn L3 §6.1, table "flags").
struct AuthenticatorDataFlags: OptionSet {
    let rawValue: UInt8
    /// Bit 0: user present.
    static let userPresent = AuthenticatorDataFlags(rawValue: 0x01)
    /// Bit 2: user verified.
    static let userVerified = AuthenticatorDataFlags(rawValue: 0x04)
    /// Bit 3: backup eligible (§6.1.3): the credential can be synced. Fixed for the credential's life.
    static let backupEligible = AuthenticatorDataFlags(rawValue: 0x08)
    /// Bit 4: backup state (§6.1.3): the credential is currently backed up / synced.
    static let backupState = AuthenticatorDataFlags(rawValue: 0x10)
    /// Bit 6: attested credential data included.
    static let attestedCredentialData = AuthenticatorDataFlags(rawValue: 0x40)
}

/// Builds authenticator data (WebAuthn L3 §6.1):
/// rpIdHash (32) ‖ flags (1) ‖ signCount (4, big-endian) ‖ [attested credential data] ‖ [extensions].
/// The software authenticator produces no authenticator extension outputs, so ED is never set.
enum AuthenticatorDataBuilder {
    static func build(rpID: String, flags: AuthenticatorDataFlags, signCount: UInt32, attestedCredentialData: [UInt8]?) -> [UInt8] {
        var flags = flags
        if attestedCredentialData != nil { flags.insert(.attestedCredentialData) } else { flags.remove(.attestedCredentialData) }
        var out = Array(SHA256.hash(data: Array(rpID.utf8)))
        out.append(flags.rawValue)
        out.append(contentsOf: bigEndian(signCount))
        if let attestedCredentialData { out.append(contentsOf: attestedCredentialData) }
        return out
    }

    /// Attested credential data (WebAuthn L3 §6.5.2):
    /// aaguid (16) ‖ credentialIdLength (2, big-endian) ‖ credentialId ‖ credentialPublicKey (COSE_Key).
    static func attestedCredentialData(aaguid: [UInt8], credentialID: [UInt8], cosePublicKey: [UInt8]) -> [UInt8] {
        var out = aaguid
        out.append(UInt8(truncatingIfNeeded: credentialID.count >> 8))
        out.append(UInt8(truncatingIfNeeded: credentialID.count))
        out.append(contentsOf: credentialID)
        out.append(contentsOf: cosePublicKey)
        return out
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}
