public import PasskeyWire
public import PasskeyCBOR

/// The result of a successful registration: everything the relying party must store, taken from authenticator data.
///
/// Store ``credentialRecord`` against the user named in the options (after checking that ``credentialID`` is not
/// registered to anyone yet, §7.1 step 26). Keep ``attestation`` if you want to re-evaluate trust later.
public struct VerifiedRegistration: Sendable, Hashable {
    /// The credential ID from attested credential data.
    public let credentialID: [UInt8]
    /// The COSE_Key bytes: store them.
    public let credentialPublicKey: [UInt8]
    public let publicKeyAlgorithm: COSEAlgorithmIdentifier
    /// The initial signature counter: store it.
    public let signCount: UInt32
    public let aaguid: AAGUID
    /// The UV flag at creation: store as `uvInitialized`.
    public let userVerified: Bool
    /// BE: store; it must not change later.
    public let backupEligible: Bool
    /// BS: store and update at every sign-in.
    public let backupState: Bool
    public let transports: [AuthenticatorTransport]
    public let authenticatorAttachment: AuthenticatorAttachment?
    public let attestation: VerifiedAttestation
    /// The RP ID the credential is scoped to (one of the accepted IDs).
    public let rpID: String
    public let origin: String
    /// Authenticator extension outputs (ED), if any.
    public let authenticatorExtensions: CBORMap?
    /// Client extension results as the client reported them (for example `credProps`).
    public let clientExtensionResults: JSONObject

    /// Synced passkey (BE set) or device-bound credential.
    public var isMultiDevice: Bool { backupEligible }

    /// The record to store, owned by `userHandle`.
    public func credentialRecord(userHandle: [UInt8]?) -> CredentialRecord {
        CredentialRecord(
            id: credentialID, publicKey: credentialPublicKey, signCount: signCount, uvInitialized: userVerified,
            transports: transports, backupEligible: backupEligible, backupState: backupState, userHandle: userHandle)
    }
}
