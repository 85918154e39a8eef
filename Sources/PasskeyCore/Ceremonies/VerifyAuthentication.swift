public import PasskeyWire

extension RelyingParty {
    /// Verifies a sign-in response (WebAuthn L3 §7.2 "Verifying an Authentication Assertion"), every step.
    ///
    /// Look the credential record up by ``AuthenticationResponseJSON/credentialID()`` first (and, for discoverable
    /// sign-in, check it belongs to the account named by ``AuthenticationResponseJSON/userHandleBytes()``).
    ///
    /// The checks that compare the response with the stored record (steps 6, 19 and 22) run after the signature
    /// verified, so a response signed with any other key fails with ``WebAuthnError/Code/signatureInvalid`` whatever is
    /// stored.
    ///
    /// - Parameters:
    ///   - response: the `AuthenticationResponseJSON` the client posted.
    ///   - expectedChallenge: the challenge issued for this ceremony, base64url as put in the options.
    ///   - credential: the stored record for the credential the response names.
    ///   - expectedUser: how the user was identified (§7.2 step 6).
    ///   - allowedCredentialIDs: the `allowCredentials` sent in the options, if any (§7.2 step 5).
    ///   - requireUserVerification: overrides the policy for this ceremony (`nil`: the policy decides).
    /// - Returns: the new counter and backup state to store.
    /// - Throws: ``WebAuthnError`` naming the failed step.
    public func verifyAuthentication(
        _ response: AuthenticationResponseJSON,
        expectedChallenge: String,
        credential: CredentialRecord,
        expectedUser: ExpectedUser,
        allowedCredentialIDs: [[UInt8]]? = nil,
        requireUserVerification: Bool? = nil
    ) throws(WebAuthnError) -> VerifiedAuthentication {
        // Step 3: an assertion response for a public-key credential.
        guard response.type == .publicKey else {
            throw WebAuthnError(
                .credentialTypeInvalid, "credential type is not public-key", expected: "public-key", received: response.type.rawValue)
        }
        let rawID = try response.credentialID()
        guard response.id == response.rawId || Base64URL.decode(response.id) == rawID else {
            throw WebAuthnError(.credentialIDMismatch, "id and rawId name different credentials", expected: response.rawId, received: response.id)
        }
        guard constantTimeEqual(rawID, credential.id) else {
            throw WebAuthnError(
                .credentialIDMismatch, "the response is for another credential than the record given",
                expected: Base64URL.encode(credential.id), received: response.rawId)
        }
        // Step 5: "If options.allowCredentials is not empty, verify that credential.id identifies one of the public key
        // credentials listed in options.allowCredentials."
        if let allowed = allowedCredentialIDs, !allowed.isEmpty, !allowed.contains(where: { constantTimeEqual($0, rawID) }) {
            throw WebAuthnError(.credentialNotAllowed, "the credential is not among allowCredentials", received: response.rawId)
        }
        // Step 6's user handle is decoded here, with the other members the client sent; it is compared after step 21.
        let userHandle = try response.userHandleBytes()
        // Step 7: cData, authData, sig.
        let authDataBytes = try decodeBase64URL(response.response.authenticatorData, field: "response.authenticatorData")
        let signature = try decodeBase64URL(response.response.signature, field: "response.signature")
        // Steps 8–14: client data.
        let clientData = try verifyClientData(
            response.response.clientDataJSON, expectedType: .get, expectedChallenge: expectedChallenge)
        let authData = try AuthenticatorData(bytes: authDataBytes)
        // Steps 15–18: RP ID hash, UP, UV, BE/BS consistency.
        let rpID = try verifyAuthenticatorFlags(
            authData, requireUserPresence: true,
            requireUserVerification: requireUserVerification ?? policy.requiresUserVerification)
        // Step 20: "Let hash be the result of computing a hash over the cData using SHA-256."
        let clientDataHash = sha256(clientData.bytes)
        // Step 21: "Using credentialRecord.publicKey, verify that sig is a valid signature over the binary concatenation
        // of authData and hash."
        let key = try COSEKey(bytes: credential.publicKey)
        let verifier = try key.makeVerifier(allowLegacyAlgorithms: policy.allowLegacyAlgorithms)
        try verifier.verify(signature, over: authDataBytes + clientDataHash, what: "assertion signature")
        // Steps 6 and 19 come after the signature, not in the spec's order: each compares the response with stored
        // state (the account that owns the credential, its user handle, its backup eligibility), and answering them
        // before the signature verified would tell anyone holding a credential ID whose it is and whether it is synced.
        // Before this point every failure depends only on what the client sent and the challenge it was given.
        // Step 6: identify the user and check the credential is theirs.
        switch expectedUser {
        case .identified(let expectedHandle):
            // "If the user was identified before the authentication ceremony was initiated ... verify that the identified
            // user account contains a credential record whose id equals credential.rawId ... If response.userHandle is
            // present, verify that it equals the user handle of the user account."
            let ownerHandle = expectedHandle ?? credential.userHandle
            if let expectedHandle, let recordHandle = credential.userHandle, !constantTimeEqual(expectedHandle, recordHandle) {
                throw WebAuthnError(.userHandleMismatch, "the credential belongs to another user")
            }
            if let userHandle, let ownerHandle, !constantTimeEqual(userHandle, ownerHandle) {
                throw WebAuthnError(
                    .userHandleMismatch, "the returned user handle is not the identified user's",
                    expected: Base64URL.encode(ownerHandle), received: Base64URL.encode(userHandle))
            }
        case .discoverable:
            // "If the user was not identified ... verify that response.userHandle is present. Verify that the user account
            // identified by response.userHandle contains a credential record whose id equals credential.rawId."
            guard let userHandle else {
                throw WebAuthnError(.userHandleMissing, "a sign-in without a username needs the user handle, and the response has none")
            }
            guard let recordHandle = credential.userHandle, constantTimeEqual(userHandle, recordHandle) else {
                throw WebAuthnError(
                    .userHandleMismatch, "the returned user handle does not own this credential",
                    expected: credential.userHandle.map(Base64URL.encode) ?? "(none stored)", received: Base64URL.encode(userHandle))
            }
        }
        // Step 19: "If the credential backup state is used as part of Relying Party business logic or policy ... compare
        // currentBe with credentialRecord.backupEligible": BE is fixed at creation.
        if policy.backup.requireUnchangedBackupEligibility, authData.backupEligible != credential.backupEligible {
            throw WebAuthnError(
                .backupEligibilityChanged, "backup eligibility (BE) differs from the value stored at registration",
                expected: credential.backupEligible ? "BE=1" : "BE=0", received: authData.backupEligible ? "BE=1" : "BE=0")
        }
        // Step 22: "If authData.signCount is nonzero or credentialRecord.signCount is nonzero ... if authData.signCount is
        // greater than credentialRecord.signCount: the signature counter is valid. Otherwise ... the authenticator may be cloned."
        var regressed = false
        if authData.signCount != 0 || credential.signCount != 0, authData.signCount <= credential.signCount {
            switch policy.counter {
            case .rejectRegression:
                throw WebAuthnError(
                    .counterRegressed, "signature counter did not increase; the authenticator may have been cloned",
                    expected: "> \(credential.signCount)", received: "\(authData.signCount)")
            case .reportRegression:
                regressed = true
            }
        }
        // Step 23: extension outputs are returned to the caller. Step 24: the caller stores the updated record.
        return VerifiedAuthentication(
            credentialID: rawID,
            newSignCount: regressed ? credential.signCount : authData.signCount,
            userVerified: authData.userVerified, backupEligible: authData.backupEligible, backupState: authData.backupState,
            counterRegressed: regressed, userHandle: userHandle, rpID: rpID, origin: clientData.origin,
            authenticatorAttachment: response.authenticatorAttachment, authenticatorExtensions: authData.extensions,
            clientExtensionResults: response.clientExtensionResults)
    }
}
