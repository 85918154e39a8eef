public import Foundation
public import PasskeyCore
public import PasskeyStorage

extension CredentialRecordEntry {
    /// What is stored of a verified registration (WebAuthn L3 §7.1 step 27): the credential's key, counter, flags,
    /// transports, model and attestation, for the account `userID`. One mapping for every place a passkey is
    /// registered (an account's, an admin's), so a field added to the record is stored everywhere.
    public init(_ verified: VerifiedRegistration, userID: String, createdAt: Date) {
        self.init(
            id: verified.credentialID, userID: userID, publicKey: verified.credentialPublicKey,
            algorithm: verified.publicKeyAlgorithm.rawValue, signCount: verified.signCount, uvInitialized: verified.userVerified,
            transports: verified.transports.map(\.rawValue), backupEligible: verified.backupEligible, backupState: verified.backupState,
            aaguid: verified.aaguid.description, attestationFormat: verified.attestation.format.rawValue,
            attestationType: verified.attestation.type.rawValue, createdAt: createdAt)
    }
}
