import PasskeyWire

extension RelyingParty {
    /// Step 24, the relying party's policy on authenticator models beyond its own list: models the FIDO Metadata
    /// Service reports compromised, models a metadata policy does not admit, models it denies, and registrations that
    /// contradict their model's metadata statement.
    func verifyModelPolicy(_ aaguid: AAGUID, attestation verified: VerifiedAttestation) throws(WebAuthnError) {
        let trust = verified.trust
        let attestation = policy.attestation
        if attestation.compromisedAAGUIDs.contains(aaguid) {
            throw WebAuthnError(
                .authenticatorCompromised, "authenticator model \(aaguid) is reported compromised by the FIDO Metadata Service", received: aaguid.description)
        }
        // The model is what the authenticator claims: only a trusted attestation vouches for it.
        if let admitted = attestation.admittedAAGUIDs {
            guard case .trusted = trust else {
                throw WebAuthnError(
                    .authenticatorNotAdmitted, "only a trusted attestation proves the authenticator model the metadata policy asks for",
                    expected: "an attestation chaining to the model's metadata roots", received: aaguid.description)
            }
            guard admitted.contains(aaguid) else {
                throw WebAuthnError(
                    .authenticatorNotAdmitted, "authenticator model \(aaguid) is not one the metadata policy admits",
                    expected: "a model the FIDO Metadata Service lists at the level asked", received: aaguid.description)
            }
        }
        if attestation.deniedAAGUIDs.contains(aaguid) {
            throw WebAuthnError(.aaguidNotAllowed, "authenticator model \(aaguid) is one this relying party refuses", received: aaguid.description)
        }
        if let refusal = attestation.modelStatements[aaguid]?.refusal(aaguid, type: verified.type) { throw refusal }
    }
}
