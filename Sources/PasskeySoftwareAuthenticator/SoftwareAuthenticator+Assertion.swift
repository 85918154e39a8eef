import PasskeyAuthenticatorData
public import PasskeyClient
public import PasskeyWire

extension SoftwareAuthenticator {
    /// Signs in (WebAuthn L3 §5.1.4 client steps, §6.3.3 authenticatorGetAssertion).
    ///
    /// With `allowCredentials`, only those credentials qualify; without (or empty), any credential for the RP ID does
    /// (discoverable sign-in). With several candidates the most recently used one is picked, as an account picker
    /// would list it first. No candidate → ``PasskeyError/Code/noCredentials`` at once, for every mediation (an
    /// immediate request must not show anything; AutoFill would simply offer nothing).
    public func getAssertion(_ request: AssertionRequest) async throws(PasskeyError) -> AuthenticationResponseJSON {
        try gate.enter(.assertion)
        defer { gate.leave() }
        try checkCancellation(.assertion)

        let options = request.options
        let configuration = configuration
        try checkAttachment(request.attachments, requested: nil)
        let rpID = try CeremonyInputs.rpID(options.rpId, origin: configuration.origin)
        let challenge = try CeremonyInputs.challenge(options.challenge)
        let allowed = try CeremonyInputs.credentialIDs(options.allowCredentials, member: "allowCredentials")
        let prf = try PRFInputs.assertion(options.extensions, allowCredentials: allowed)
        let largeBlob = try LargeBlobInputs.assertion(options.extensions, allowCredentials: allowed)

        // §6.3.3 step 6: the credentials for this RP ID, narrowed to allowCredentials when it is not empty.
        var candidates = try await store.credentials(rpID: rpID)
        if !allowed.isEmpty { candidates.removeAll { !allowed.contains($0.id) } }
        guard let chosen = candidates.max(by: { $0.recency < $1.recency }) else {
            throw PasskeyError(
                .noCredentials, stage: .authenticator,
                allowed.isEmpty
                    ? "no credential for \(rpID) on this authenticator"
                    : "none of the \(allowed.count) allowed credentials is on this authenticator for \(rpID)")
        }
        let verified = try userVerified(requirement: options.userVerification)
        try await awaitUser(.assertion, timeoutMilliseconds: options.timeout)

        // §6.1.1: the counter moves before the signature, in one step with the store, so that two sign-ins at once
        // (two processes sharing a credential file) never sign the same value. A sign-in cancelled after this skips a
        // value, which a relying party accepts (the counter only has to grow).
        guard let used = try await store.recordUse(ofCredential: chosen.id, counter: configuration.counter, at: now()) else {
            throw PasskeyError(.noCredentials, stage: .authenticator, "the credential was removed from this authenticator during the sign-in")
        }
        let key = try CredentialKey(algorithm: used.algorithm, rawPrivateKey: used.privateKey)
        let signCount = used.signCount
        var flags: AuthenticatorDataFlags = [.userPresent]
        if verified { flags.insert(.userVerified) }
        if chosen.backupEligible { flags.insert(.backupEligible) }
        if chosen.backupState { flags.insert(.backupState) }

        // §6.1 authenticator data without attested credential data; §5.8.1 client data for webauthn.get;
        // §6.3.3 step 11: the signature covers authenticatorData ‖ SHA-256(clientDataJSON).
        let authenticatorData = AuthenticatorDataBuilder.build(rpID: rpID, flags: flags, signCount: signCount, attestedCredentialData: nil)
        let clientDataJSON = ClientDataBuilder.build(
            type: .get, challenge: challenge, origin: configuration.origin.origin(rpID: rpID),
            androidPackageName: configuration.origin.androidPackageName)
        let signature = try key.sign(authenticatorData + ClientDataBuilder.hash(clientDataJSON))

        try checkCancellation(.assertion)

        // §10.1.4: outputs for the values that apply to the chosen credential, when it has a PRF and the user was verified.
        var extensionResults = JSONObject()
        if let values = prf?.values(for: chosen.id), let secret = used.prfSecret, verified {
            extensionResults["prf"] = ["results": .object(PRFExtension.results(secret: secret, values: values))]
        }
        switch largeBlob {
        case .read:
            // §10.1.5 authentication step 3: the output is there even when there is no blob to return.
            var output = JSONObject()
            if let blob = used.largeBlob { output["blob"] = .string(Base64URL.encode(blob)) }
            extensionResults["largeBlob"] = .object(output)
        case .write(let blob):
            // §10.1.5 authentication step 4: after the assertion succeeded; `written` says whether the blob was stored.
            let written = await storeLargeBlob(blob, credential: chosen.id, capacity: configuration.largeBlobStorage)
            extensionResults["largeBlob"] = .object(["written": .bool(written)])
        case nil:
            break
        }
        let encodedID = Base64URL.encode(chosen.id)
        return AuthenticationResponseJSON(
            id: encodedID, rawId: encodedID,
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: Base64URL.encode(clientDataJSON), authenticatorData: Base64URL.encode(authenticatorData),
                signature: Base64URL.encode(signature), userHandle: Base64URL.encode(chosen.userHandle)),
            authenticatorAttachment: configuration.attachment, clientExtensionResults: extensionResults)
    }
}

extension SoftwareAuthenticator {
    /// Stores a `largeBlob` write for the credential that signed: false when the blob exceeds this authenticator's
    /// capacity, the credential was created without large-blob support, or the store fails. A failed write is the
    /// `written: false` output (§10.1.5 authentication step 4.3), not an error: the sign-in itself succeeded.
    /// `capacity` is the ceremony's (its configuration snapshot's), not whatever a `reconfigure` set meanwhile.
    fileprivate func storeLargeBlob(_ blob: [UInt8], credential id: [UInt8], capacity: Int?) async -> Bool {
        guard let capacity, blob.count <= capacity else { return false }
        do {
            return try await store.writeLargeBlob(blob, toCredential: id)
        } catch {
            return false
        }
    }
}
