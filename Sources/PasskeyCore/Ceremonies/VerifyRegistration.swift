public import PasskeyWire
public import Foundation

extension RelyingParty {
    /// Verifies a registration response (WebAuthn L3 §7.1 "Registering a New Credential"), every step.
    ///
    /// - Parameters:
    ///   - response: the `RegistrationResponseJSON` the client posted.
    ///   - expectedChallenge: the challenge issued for this ceremony, base64url as it was put in the options.
    ///   - requireUserPresence: `false` only when the options were issued with `mediation: "conditional"`
    ///     (conditional create, §7.1 step 15).
    ///   - requireUserVerification: overrides the policy for this ceremony (`nil`: the policy decides).
    ///   - allowedAlgorithms: the algorithms offered in `pubKeyCredParams` (`nil`: the policy's ``CeremonyPolicy/offeredAlgorithms``).
    ///   - validationTime: when attestation certificates must be valid; the current time in production.
    /// - Returns: what to store. The caller still checks that the credential ID is not registered yet (§7.1 step 26).
    /// - Throws: ``WebAuthnError`` naming the failed step.
    public func verifyRegistration(
        _ response: RegistrationResponseJSON,
        expectedChallenge: String,
        requireUserPresence: Bool = true,
        requireUserVerification: Bool? = nil,
        allowedAlgorithms: [COSEAlgorithmIdentifier]? = nil,
        validationTime: Date = Date()
    ) throws(WebAuthnError) -> VerifiedRegistration {
        // Step 3: the response must be an attestation response for a public-key credential.
        guard response.type == .publicKey else {
            throw WebAuthnError(
                .credentialTypeInvalid, "credential type is not public-key", expected: "public-key", received: response.type.rawValue)
        }
        let rawID = try decodeBase64URL(response.rawId, field: "rawId")
        guard response.id == response.rawId || Base64URL.decode(response.id) == rawID else {
            throw WebAuthnError(.credentialIDMismatch, "id and rawId name different credentials", expected: response.rawId, received: response.id)
        }
        // Step 4: client extension results are returned to the caller unchanged (they are unsigned).
        // Steps 5–11: client data.
        let clientData = try verifyClientData(
            response.response.clientDataJSON, expectedType: .create, expectedChallenge: expectedChallenge)
        // Step 12: "Let hash be the result of computing a hash over response.clientDataJSON using SHA-256."
        let clientDataHash = sha256(clientData.bytes)
        // Step 13: CBOR-decode the attestation object to obtain fmt, authData and attStmt.
        let attestationObject = try AttestationObject(bytes: try decodeBase64URL(response.response.attestationObject, field: "response.attestationObject"))
        let authData = attestationObject.authenticatorData
        // Steps 14–17: RP ID hash, UP (unless conditional create), UV, BE/BS consistency.
        let rpID = try verifyAuthenticatorFlags(
            authData, requireUserPresence: requireUserPresence,
            requireUserVerification: requireUserVerification ?? policy.requiresUserVerification)
        // Step 18: "If the Relying Party uses the credential's backup eligibility to inform its user experience flows
        // and/or policies, evaluate the BE bit."
        if authData.backupEligible, !policy.backup.allowBackupEligible {
            throw WebAuthnError(
                .backupPolicyViolation, "this relying party accepts device-bound credentials only, and this one can be synced",
                expected: "BE=0", received: "BE=1")
        }
        // Registration needs attested credential data (AT).
        guard let credential = authData.attestedCredentialData else {
            throw WebAuthnError(.authenticatorDataMalformed, "registration authenticator data has no attested credential data (AT=0)")
        }
        // Library practice (R1): rawId must be the credential ID the authenticator attested.
        guard constantTimeEqual(rawID, credential.credentialID) else {
            throw WebAuthnError(
                .credentialIDMismatch, "rawId is not the credential ID in authenticator data",
                expected: Base64URL.encode(credential.credentialID), received: response.rawId)
        }
        // Step 20: "Verify that the alg parameter in the credential public key in authData matches the alg attribute of
        // one of the items in pkOptions.pubKeyCredParams." The key must also be usable: parse it into a verifier now,
        // so a key that cannot verify signatures is never stored.
        let algorithm = credential.credentialPublicKey.algorithm
        _ = try credential.credentialPublicKey.makeVerifier(allowLegacyAlgorithms: policy.allowLegacyAlgorithms)
        let offered = allowedAlgorithms ?? policy.offeredAlgorithms
        guard offered.contains(algorithm) else {
            throw WebAuthnError(
                .algorithmNotAllowed, "credential public key algorithm \(algorithm) was not offered in pubKeyCredParams",
                expected: offered.map { String($0.rawValue) }.joined(separator: ", "), received: "\(algorithm.rawValue)")
        }
        // Steps 21–22: determine the format (case-sensitive match) and run its verification procedure.
        let attestation = try attestationVerifiers.verify(
            AttestationVerificationInput(
                format: attestationObject.format, statement: attestationObject.statement, authenticatorData: authData,
                credential: credential, clientDataHash: clientDataHash, validationTime: validationTime))
        // Steps 23–24: assess trustworthiness. Chains that fail against configured roots were refused by the format;
        // here the policy decides about None, Self and chains nobody could evaluate.
        if policy.attestation.requireTrustedAttestation || policy.attestation.allowedAAGUIDs != nil {
            switch attestation.trust {
            case .trusted: break
            case .notApplicable:
                throw WebAuthnError(
                    .attestationNotAllowed, "attestation type \(attestation.type.rawValue) is not accepted: a trusted attestation is required",
                    expected: "Basic, AttCA or AnonCA chaining to a trust anchor", received: attestation.type.rawValue)
            case .noTrustAnchors:
                throw WebAuthnError(
                    .attestationUntrusted, "no trust anchors are configured for \(attestation.format.rawValue) attestation",
                    received: attestation.format.rawValue)
            }
        }
        // Step 24 (the relying party's own policy): only the authenticator models it lists, as their trusted
        // attestation shows.
        if let allowed = policy.attestation.allowedAAGUIDs, !allowed.contains(credential.aaguid) {
            throw WebAuthnError(
                .aaguidNotAllowed, "authenticator model \(credential.aaguid) is not one this relying party accepts",
                expected: allowed.map(\.description).sorted().joined(separator: ", "), received: credential.aaguid.description)
        }
        try verifyModelPolicy(credential.aaguid, attestation: attestation)
        // Step 25: credential ID length ≤ 1023 bytes is enforced while parsing attested credential data.
        // Step 26 (not registered yet) needs storage: the caller does it.
        // Step 27: the record's values, all from authData but the transports, which are the client's word: only those
        // that can be transport names, each once, a few at most (AuthenticatorTransport.storable).
        return VerifiedRegistration(
            credentialID: credential.credentialID, credentialPublicKey: credential.credentialPublicKeyBytes,
            publicKeyAlgorithm: algorithm, signCount: authData.signCount, aaguid: credential.aaguid,
            userVerified: authData.userVerified, backupEligible: authData.backupEligible, backupState: authData.backupState,
            transports: AuthenticatorTransport.storable(response.response.transports ?? []), authenticatorAttachment: response.authenticatorAttachment,
            attestation: attestation, rpID: rpID, origin: clientData.origin, authenticatorExtensions: authData.extensions,
            clientExtensionResults: response.clientExtensionResults)
    }
}
