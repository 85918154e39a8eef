import PasskeyAuthenticatorData
public import PasskeyClient
public import PasskeyWire

extension SoftwareAuthenticator {
    /// Creates a discoverable credential (WebAuthn L3 §5.1.3 client steps, §6.3.2 authenticatorMakeCredential).
    ///
    /// Order matters and follows the spec: options are checked first (no sheet for bad options), then the person
    /// answers, then `excludeCredentials` is consulted (§6.3.2 step 3 asks for consent before revealing that a
    /// credential exists), then the key is made and stored. Cancellation is honoured until the credential is stored;
    /// after that the response is returned, so a stored credential is never silently lost.
    public func makeCredential(_ request: RegistrationRequest) async throws(PasskeyError) -> RegistrationResponseJSON {
        try gate.enter(.registration)
        defer { gate.leave() }
        try checkCancellation(.registration)

        let options = request.options
        let configuration = configuration
        try checkAttachment(request.attachments, requested: options.authenticatorSelection?.authenticatorAttachment)
        let rpID = try CeremonyInputs.rpID(options.rp.id, origin: configuration.origin)
        let challenge = try CeremonyInputs.challenge(options.challenge)
        let userHandle = try CeremonyInputs.userHandle(options.user.id)
        let excluded = try CeremonyInputs.credentialIDs(options.excludeCredentials, member: "excludeCredentials")
        let algorithm = try CeremonyInputs.algorithm(options.pubKeyCredParams, supported: configuration.algorithms)
        let prf = try PRFInputs.registration(options.extensions)
        let largeBlob = try LargeBlobInputs.registration(options.extensions)
        // §10.1.5 registration step 2: an authenticator that cannot store large blobs is not a candidate when they are
        // required. A browser would wait for another; here there is no other, so the ceremony ends before any sheet.
        let largeBlobStorage = configuration.largeBlobStorage
        if largeBlob == .required, largeBlobStorage == nil {
            throw PasskeyError(
                .notSupported, stage: .authenticator,
                "the options require large-blob storage (extensions.largeBlob.support), which this authenticator does not have")
        }

        // Conditional create (automatic upgrade) shows no sheet: no presence, no verification (UP and UV clear).
        let conditional = request.style == .conditional
        let verified = conditional ? false : try userVerified(requirement: options.authenticatorSelection?.userVerification)
        if !conditional { try await awaitUser(.registration, timeoutMilliseconds: options.timeout) }

        // §6.3.2 step 3: a credential in excludeCredentials already on this authenticator for this RP → InvalidStateError.
        let existing = try await store.credentials(rpID: rpID)
        if existing.contains(where: { credential in excluded.contains(credential.id) }) {
            throw PasskeyError(
                .excludedCredentialExists, stage: .authenticator,
                "a credential listed in excludeCredentials is already on this authenticator for \(rpID)")
        }
        try checkCancellation(.registration)

        let credentialID = random(max(16, min(1023, configuration.credentialIDLength)))
        let key = try CredentialKey.generate(algorithm, random: random)
        let prfSecret = prf == nil ? nil : random(PRFExtension.secretLength)
        let backup = configuration.backup.flags
        var flags: AuthenticatorDataFlags = backup.eligible ? [.backupEligible] : []
        if !conditional { flags.insert(.userPresent) }
        if verified { flags.insert(.userVerified) }
        if backup.backedUp { flags.insert(.backupState) }

        // §6.1 authenticator data with §6.5.2 attested credential data; the counter starts at 0.
        let attested = AuthenticatorDataLayout.attestedCredentialData(
            aaguid: configuration.aaguid, credentialID: credentialID, credentialPublicKey: key.cosePublicKey)
        let authenticatorData = AuthenticatorDataBuilder.build(rpID: rpID, flags: flags, signCount: 0, attestedCredentialData: attested)
        // §5.8.1 client data for webauthn.create.
        let clientDataJSON = ClientDataBuilder.build(
            type: .create, challenge: challenge, origin: configuration.origin.origin(rpID: rpID),
            androidPackageName: configuration.origin.androidPackageName)
        let attestationObject = try AttestationObjectBuilder.build(
            mode: configuration.attestation, authenticatorData: authenticatorData,
            clientDataHash: ClientDataBuilder.hash(clientDataJSON), key: key)

        try checkCancellation(.registration)
        try await store.save(
            StoredCredential(
                id: credentialID, rpID: rpID, userHandle: userHandle, userName: options.user.name,
                userDisplayName: options.user.displayName, algorithm: algorithm, privateKey: key.rawPrivateKey, signCount: 0,
                backupEligible: backup.eligible, backupState: backup.backedUp, createdAt: now(), prfSecret: prfSecret,
                largeBlobSupported: largeBlob != nil && largeBlobStorage != nil))

        let extensionResults = Self.registrationExtensionResults(
            credProps: options.extensions?["credProps"]?.boolValue == true, prf: prf, prfSecret: prfSecret, verified: verified,
            largeBlobRequested: largeBlob != nil, largeBlobSupported: largeBlobStorage != nil)
        let encodedID = Base64URL.encode(credentialID)
        return RegistrationResponseJSON(
            id: encodedID, rawId: encodedID,
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URL.encode(clientDataJSON), attestationObject: Base64URL.encode(attestationObject),
                authenticatorData: Base64URL.encode(authenticatorData), transports: configuration.transports,
                publicKey: Base64URL.encode(key.subjectPublicKeyInfo), publicKeyAlgorithm: algorithm.coseAlgorithm),
            authenticatorAttachment: configuration.attachment, clientExtensionResults: extensionResults)
    }

    /// The client extension outputs of a registration, for the extensions the options asked for.
    private static func registrationExtensionResults(
        credProps: Bool, prf: PRFRegistrationInput?, prfSecret: [UInt8]?, verified: Bool, largeBlobRequested: Bool,
        largeBlobSupported: Bool
    ) -> JSONObject {
        var results = JSONObject()
        if credProps {
            // §10.1.3 credProps: every credential made here is discoverable.
            results["credProps"] = .object(["rk": true])
        }
        if let prf, let prfSecret {
            // §10.1.4: the credential has a PRF; with `eval`, its outputs come at once when the user was verified.
            var output: JSONObject = ["enabled": true]
            if case .evaluate(let values) = prf, verified { output["results"] = .object(PRFExtension.results(secret: prfSecret, values: values)) }
            results["prf"] = .object(output)
        }
        if largeBlobRequested {
            // §10.1.5 registration step 3: whether this credential can store a blob.
            results["largeBlob"] = .object(["supported": .bool(largeBlobSupported)])
        }
        return results
    }
}
