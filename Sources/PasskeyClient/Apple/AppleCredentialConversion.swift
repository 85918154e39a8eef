public import PasskeyWire

/// Apple credential objects → WebAuthn Level 3 JSON (`PublicKeyCredential.toJSON()`), base64url without padding.
///
/// The bytes are passed through untouched: the client data, attestation object, authenticator data and signature are
/// exactly what the platform produced, so the server verifies what the authenticator signed. `transports` is always
/// present (L3 marks it required), empty when the platform reported none; `authenticatorData`, `publicKeyAlgorithm`
/// and `publicKey` are read from the attestation object, as a browser does (``AttestationObjectFields``).
public enum AppleCredentialConversion {
    /// `RegistrationResponseJSON` for a new credential. `credPropsRequested` comes from the plan: Apple does not
    /// compute `credProps`, and a platform passkey is always discoverable.
    public static func registrationResponse(
        _ credential: some AppleCredentialRegistrationValues, credPropsRequested: Bool = false
    ) throws(PasskeyError) -> RegistrationResponseJSON {
        let id = try encodedID(credential)
        guard let attestationObject = credential.rawAttestationObject, !attestationObject.isEmpty else {
            throw PasskeyError(.invalidResponse, stage: .authenticator, "the registration has no attestation object")
        }
        guard !credential.rawClientDataJSON.isEmpty else {
            throw PasskeyError(.invalidResponse, stage: .authenticator, "the registration has no client data")
        }
        var results = JSONObject()
        let outputs = credential.extensionOutputs
        if credPropsRequested, credential.webAuthnAttachment == .platform || credential.webAuthnTransports.contains(.internal) {
            results["credProps"] = .object(["rk": true])
        }
        if let supported = outputs.largeBlobSupported { results["largeBlob"] = .object(["supported": .bool(supported)]) }
        if let enabled = outputs.prfEnabled ?? (outputs.prfFirst != nil ? true : nil) {
            var prf: JSONObject = ["enabled": .bool(enabled)]
            if let first = outputs.prfFirst { prf["results"] = prfResults(first: first, second: outputs.prfSecond) }
            results["prf"] = .object(prf)
        }
        let transports = credential.webAuthnTransports
        let derived = AttestationObjectFields(attestationObject: Array(attestationObject))
        return RegistrationResponseJSON(
            id: id, rawId: id,
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URL.encode(credential.rawClientDataJSON), attestationObject: Base64URL.encode(attestationObject),
                authenticatorData: derived.map { Base64URL.encode($0.authenticatorData) }, transports: transports,
                publicKey: derived?.publicKey.map(Base64URL.encode), publicKeyAlgorithm: derived?.publicKeyAlgorithm),
            authenticatorAttachment: credential.webAuthnAttachment, clientExtensionResults: results)
    }

    /// `AuthenticationResponseJSON` for a sign-in. A missing or empty user handle is left out (`userHandle` absent).
    public static func authenticationResponse(_ credential: some AppleCredentialAssertionValues) throws(PasskeyError)
        -> AuthenticationResponseJSON
    {
        let id = try encodedID(credential)
        guard !credential.rawClientDataJSON.isEmpty, let authenticatorData = credential.webAuthnAuthenticatorData,
            !authenticatorData.isEmpty, let signature = credential.webAuthnSignature, !signature.isEmpty
        else {
            throw PasskeyError(.invalidResponse, stage: .authenticator, "the assertion lacks client data, authenticator data or a signature")
        }
        let userHandle = credential.webAuthnUserHandle.flatMap { $0.isEmpty ? nil : Base64URL.encode($0) }
        var results = JSONObject()
        let outputs = credential.extensionOutputs
        if outputs.largeBlobRead || outputs.largeBlobData != nil {
            results["largeBlob"] = .object(outputs.largeBlobData.map { ["blob": .string(Base64URL.encode($0))] } ?? [:])
        } else if let written = outputs.largeBlobWritten {
            results["largeBlob"] = .object(["written": .bool(written)])
        }
        if let first = outputs.prfFirst {
            results["prf"] = .object(["results": prfResults(first: first, second: outputs.prfSecond)])
        }
        return AuthenticationResponseJSON(
            id: id, rawId: id,
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: Base64URL.encode(credential.rawClientDataJSON),
                authenticatorData: Base64URL.encode(authenticatorData), signature: Base64URL.encode(signature), userHandle: userHandle),
            authenticatorAttachment: credential.webAuthnAttachment, clientExtensionResults: results)
    }

    static func encodedID(_ credential: some ApplePublicKeyCredentialValues) throws(PasskeyError) -> String {
        guard !credential.credentialID.isEmpty, credential.credentialID.count <= 1023 else {
            throw PasskeyError(
                .invalidResponse, stage: .authenticator, "the credential ID has \(credential.credentialID.count) bytes (1 to 1023 allowed)")
        }
        return Base64URL.encode(credential.credentialID)
    }

    static func prfResults(first: [UInt8], second: [UInt8]?) -> JSONValue {
        var results: JSONObject = ["first": .string(Base64URL.encode(first))]
        if let second { results["second"] = .string(Base64URL.encode(second)) }
        return .object(results)
    }
}
