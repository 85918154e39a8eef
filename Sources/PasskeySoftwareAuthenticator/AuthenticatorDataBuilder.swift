import Crypto
import PasskeyAuthenticatorData

/// This authenticator's authenticator data (WebAuthn L3 §6.1), in the layout the verifier and the SDK read
/// (``PasskeyAuthenticatorData/AuthenticatorDataLayout``): the RP ID's hash, the flags with AT set exactly when attested
/// credential data follows, the counter. It writes no extension outputs, so ED is never set.
enum AuthenticatorDataBuilder {
    static func build(rpID: String, flags: AuthenticatorDataFlags, signCount: UInt32, attestedCredentialData: [UInt8]?) -> [UInt8] {
        var flags = flags
        if attestedCredentialData != nil { flags.insert(.attestedCredentialData) } else { flags.remove(.attestedCredentialData) }
        flags.remove(.extensionData)
        return AuthenticatorDataLayout.encode(
            rpIDHash: Array(SHA256.hash(data: Array(rpID.utf8))), flags: flags, signCount: signCount, attestedCredentialData: attestedCredentialData)
    }
}
