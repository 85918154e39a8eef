import PasskeyWire

/// The client-data and authenticator-data checks that registration (§7.1) and authentication (§7.2) share.
/// Step numbers are given for both ceremonies as "reg/auth".
extension RelyingParty {
    /// §7.1 steps 5–11 / §7.2 steps 8–14.
    func verifyClientData(
        _ clientDataJSON: String, expectedType: CollectedClientData.CeremonyType, expectedChallenge: String
    ) throws(WebAuthnError) -> CollectedClientData {
        // Steps 5–6 / 8–9: UTF-8 decode and parse JSON (BOM removed, unknown members tolerated).
        let clientData = try CollectedClientData(bytes: try decodeBase64URL(clientDataJSON, field: "response.clientDataJSON"))
        // Step 7 / 10: "Verify that the value of C.type is webauthn.create" (or webauthn.get).
        guard clientData.type == expectedType else {
            throw WebAuthnError(
                .clientDataTypeMismatch, "client data type is not \(expectedType.rawValue)", expected: expectedType.rawValue,
                received: clientData.type.rawValue)
        }
        // Step 8 / 11: "Verify that the value of C.challenge equals the base64url encoding of pkOptions.challenge."
        // Exact, constant-time comparison of the strings: padded or standard-base64 variants do not match.
        guard constantTimeEqual(clientData.challenge, expectedChallenge) else {
            throw WebAuthnError(
                .challengeMismatch, "client data challenge is not the challenge issued for this ceremony",
                expected: expectedChallenge, received: clientData.challenge)
        }
        // Step 9 / 12: "Verify that the value of C.origin is an origin expected by the Relying Party" (§13.4.9: exact match).
        guard origins.contains(clientData.origin) else {
            throw WebAuthnError(
                .originMismatch, "origin \"\(clientData.origin)\" is not accepted by this relying party",
                expected: origins.joined(separator: ", "), received: clientData.origin)
        }
        // Step 10 / 13: "If C.crossOrigin is present and set to true, verify that the Relying Party expects that this
        // credential would have been created within an iframe that is not same-origin with its ancestors."
        if clientData.crossOrigin == true, !allowCrossOrigin {
            throw WebAuthnError(
                .crossOriginNotAllowed, "the ceremony ran in a cross-origin iframe and this relying party does not allow it",
                expected: "crossOrigin false or absent", received: "true")
        }
        // Step 11 / 14: "If C.topOrigin is present: verify that the Relying Party expects ... cross-origin iframe [use],
        // [and] that the value of C.topOrigin matches the origin of a page that the Relying Party expects to be sub-framed within."
        if let topOrigin = clientData.topOrigin {
            guard allowCrossOrigin else {
                throw WebAuthnError(
                    .crossOriginNotAllowed, "client data has a topOrigin and this relying party does not allow cross-origin use",
                    received: topOrigin)
            }
            // §5.8.1: a client sets topOrigin only for a ceremony in a cross-origin iframe, where crossOrigin is true;
            // client data with one and not the other was not made by a conforming client.
            guard clientData.crossOrigin == true else {
                throw WebAuthnError(
                    .crossOriginNotAllowed, "client data has a topOrigin without crossOrigin true", expected: "crossOrigin true with a topOrigin",
                    received: clientData.crossOrigin.map { "crossOrigin \($0)" } ?? "crossOrigin absent")
            }
            guard topOrigins.contains(topOrigin) else {
                throw WebAuthnError(
                    .topOriginMismatch, "top-level origin \"\(topOrigin)\" is not accepted",
                    expected: topOrigins.joined(separator: ", "), received: topOrigin)
            }
        }
        // Level 2 token binding: when present, status must be "present" or "supported" (Level 3 ignores the member's
        // content, but a value outside the enumeration marks a broken or forged client).
        if let status = clientData.tokenBindingStatus, status != .present, status != .supported {
            throw WebAuthnError(
                .tokenBindingInvalid, "tokenBinding.status is not a valid TokenBindingStatus", expected: "present or supported",
                received: status.rawValue)
        }
        return clientData
    }

    /// §7.1 steps 14–17 / §7.2 steps 15–18. Returns the RP ID that matched.
    func verifyAuthenticatorFlags(
        _ authData: AuthenticatorData, requireUserPresence: Bool, requireUserVerification: Bool
    ) throws(WebAuthnError) -> String {
        // Step 14 / 15: "Verify that the rpIdHash in authData is the SHA-256 hash of the RP ID expected by the Relying Party."
        guard let rpID = rpID(matchingHash: authData.rpIDHash) else {
            throw WebAuthnError(
                .rpIDHashMismatch, "authenticator data is scoped to another RP ID",
                expected: acceptedIDs.map { "SHA-256(\($0)) = \(sha256(Array($0.utf8)).hexString)" }.joined(separator: " | "),
                received: authData.rpIDHash.hexString)
        }
        // Step 15 / 16: "Verify that the UP bit of the flags in authData is set" (registration: unless mediation was conditional).
        if requireUserPresence, !authData.userPresent {
            throw WebAuthnError(.userPresenceRequired, "the user-present (UP) flag is not set", expected: "UP=1", received: "UP=0")
        }
        // Step 16 / 17: "If the Relying Party requires user verification for this [ceremony], verify that the UV bit ... is set."
        if requireUserVerification, !authData.userVerified {
            throw WebAuthnError(
                .userVerificationRequired, "user verification is required but the UV flag is not set", expected: "UV=1",
                received: "UV=0")
        }
        // Step 17 / 18: "If the BE bit of the flags in authData is not set, verify that the BS bit is not set."
        if !authData.backupEligible, authData.backupState {
            throw WebAuthnError(
                .backupStateInvalid, "backup state (BS) is set on a credential that is not backup eligible (BE)",
                expected: "BS=0 when BE=0", received: "BE=0, BS=1")
        }
        return rpID
    }
}
