public import PasskeyWire

extension RelyingParty {
    /// Challenge length in bytes (§13.4.3 asks for at least 16).
    public static let challengeLength = 32
    /// User handle length in bytes: 64 random bytes, never personal data (§14.6.1).
    public static let userHandleLength = 64

    /// A new user handle for an account that has none yet.
    public static func makeUserHandle(random: RandomSource = .system) -> [UInt8] { random.bytes(userHandleLength) }

    /// Builds `PublicKeyCredentialCreationOptionsJSON` (WebAuthn L3 §5.4) from this relying party's policy.
    ///
    /// Store ``PublicKeyCredentialCreationOptionsJSON/challenge`` server-side (single use, bound to this ceremony and user,
    /// expiring after `timeoutMilliseconds`) and pass it to ``verifyRegistration(_:expectedChallenge:requireUserPresence:requireUserVerification:allowedAlgorithms:validationTime:)``.
    ///
    /// - Parameters:
    ///   - userHandle: the account's user handle (``makeUserHandle(random:)`` for a new account).
    ///   - userName: the name shown in account pickers (a username or e-mail address).
    ///   - displayName: a friendly name; defaults to `userName`.
    ///   - excludeCredentials: the user's existing credentials, so one authenticator is not registered twice (§5.4).
    ///   - residentKey: `required` for passkeys (default), so sign-in without a username works.
    ///   - attestation: `none` by default; `direct` when the policy needs attestation.
    ///   - challenge: one the caller made (base64url), for example one that carries its ceremony; by default 32 random
    ///     bytes.
    public func makeRegistrationOptions(
        userHandle: [UInt8],
        userName: String,
        displayName: String? = nil,
        excludeCredentials: [CredentialRecord] = [],
        residentKey: ResidentKeyRequirement = .required,
        authenticatorAttachment: AuthenticatorAttachment? = nil,
        attestation: AttestationConveyancePreference? = nil,
        hints: [PublicKeyCredentialHint]? = nil,
        timeoutMilliseconds: Int = 60_000,
        extensions: JSONObject? = nil,
        challenge: String? = nil,
        random: RandomSource = .system
    ) -> PublicKeyCredentialCreationOptionsJSON {
        var extensions = extensions ?? [:]
        if extensions["credProps"] == nil { extensions["credProps"] = true }
        return PublicKeyCredentialCreationOptionsJSON(
            rp: PublicKeyCredentialRpEntity(id: id, name: name),
            user: PublicKeyCredentialUserEntityJSON(
                id: Base64URL.encode(userHandle), name: userName, displayName: displayName ?? userName),
            challenge: challenge ?? Base64URL.encode(random.bytes(Self.challengeLength)),
            pubKeyCredParams: policy.offeredAlgorithms.map { PublicKeyCredentialParameters(alg: $0) },
            timeout: timeoutMilliseconds,
            excludeCredentials: excludeCredentials.map(\.descriptor),
            authenticatorSelection: AuthenticatorSelectionCriteria(
                authenticatorAttachment: authenticatorAttachment, residentKey: residentKey,
                requireResidentKey: residentKey == .required, userVerification: policy.userVerification),
            hints: hints,
            attestation: attestation ?? (policy.attestation.requireTrustedAttestation ? .direct : AttestationConveyancePreference.none),
            extensions: extensions)
    }

    /// Builds `PublicKeyCredentialRequestOptionsJSON` (WebAuthn L3 §5.5).
    ///
    /// Pass the user's credentials for a sign-in by username; pass none for a sign-in without one (discoverable
    /// credentials and AutoFill with `mediation: "conditional"`). `challenge`: one the caller made (base64url), for
    /// example one that carries its ceremony; by default 32 random bytes.
    public func makeAuthenticationOptions(
        allowCredentials: [CredentialRecord] = [],
        hints: [PublicKeyCredentialHint]? = nil,
        timeoutMilliseconds: Int = 60_000,
        extensions: JSONObject? = nil,
        challenge: String? = nil,
        random: RandomSource = .system
    ) -> PublicKeyCredentialRequestOptionsJSON {
        PublicKeyCredentialRequestOptionsJSON(
            challenge: challenge ?? Base64URL.encode(random.bytes(Self.challengeLength)),
            timeout: timeoutMilliseconds,
            rpId: id,
            allowCredentials: allowCredentials.map(\.descriptor),
            userVerification: policy.userVerification,
            hints: hints,
            extensions: extensions)
    }
}
