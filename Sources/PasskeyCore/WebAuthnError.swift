public import PasskeyWire
public import PasskeyCBOR

/// Why a WebAuthn ceremony failed. One error type for the protocol core and the attestation formats.
///
/// `code` is stable and meant for programs (the server maps it to its HTTP answer); `reason` says in plain words
/// what was checked, and `expected` / `received` carry the two values that did not agree, for developers and logs.
/// Two errors are equal when their codes are.
public struct WebAuthnError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, documented error code. An open set: new codes are not a breaking change.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        // Reading the JSON.
        /// The body is not JSON. (`json_malformed`)
        public static let jsonMalformed = Code(rawValue: "json_malformed")
        /// A required member is absent. (`field_missing`)
        public static let fieldMissing = Code(rawValue: "field_missing")
        /// A member has the wrong type or value. (`field_invalid`)
        public static let fieldInvalid = Code(rawValue: "field_invalid")
        /// A binary member is not base64url. (`invalid_base64url`)
        public static let invalidBase64URL = Code(rawValue: "invalid_base64url")
        /// `type` is not `public-key`. (`credential_type_invalid`)
        public static let credentialTypeInvalid = Code(rawValue: "credential_type_invalid")
        /// `id`, `rawId` and the credential ID in authenticator data do not agree. (`credential_id_mismatch`)
        public static let credentialIDMismatch = Code(rawValue: "credential_id_mismatch")
        /// The credential ID is longer than 1023 bytes (§7.1 step 25). (`credential_id_too_long`)
        public static let credentialIDTooLong = Code(rawValue: "credential_id_too_long")

        // Client data.
        /// `clientDataJSON` is not UTF-8 JSON with the required members. (`client_data_malformed`)
        public static let clientDataMalformed = Code(rawValue: "client_data_malformed")
        /// `type` is not `webauthn.create` / `webauthn.get`. (`client_data_type_mismatch`)
        public static let clientDataTypeMismatch = Code(rawValue: "client_data_type_mismatch")
        /// The challenge is not the one issued. (`challenge_mismatch`)
        public static let challengeMismatch = Code(rawValue: "challenge_mismatch")
        /// The origin is not one the relying party accepts. (`origin_mismatch`)
        public static let originMismatch = Code(rawValue: "origin_mismatch")
        /// The ceremony ran in a cross-origin iframe and the policy does not allow it. (`cross_origin_not_allowed`)
        public static let crossOriginNotAllowed = Code(rawValue: "cross_origin_not_allowed")
        /// `topOrigin` is not an accepted top-level origin. (`top_origin_mismatch`)
        public static let topOriginMismatch = Code(rawValue: "top_origin_mismatch")
        /// `tokenBinding.status` is not a valid value. (`token_binding_invalid`)
        public static let tokenBindingInvalid = Code(rawValue: "token_binding_invalid")

        // Authenticator data.
        /// The CBOR is malformed (truncated, trailing bytes, duplicate keys, too deep...). (`cbor_malformed`)
        public static let cborMalformed = Code(rawValue: "cbor_malformed")
        /// The attestation object lacks `fmt`, `attStmt` or `authData`, or they have the wrong types. (`attestation_object_malformed`)
        public static let attestationObjectMalformed = Code(rawValue: "attestation_object_malformed")
        /// Authenticator data is too short, has leftover bytes, or flags that contradict its content. (`authenticator_data_malformed`)
        public static let authenticatorDataMalformed = Code(rawValue: "authenticator_data_malformed")
        /// `rpIdHash` is not SHA-256 of an accepted RP ID. (`rp_id_hash_mismatch`)
        public static let rpIDHashMismatch = Code(rawValue: "rp_id_hash_mismatch")
        /// The UP flag is clear. (`user_presence_required`)
        public static let userPresenceRequired = Code(rawValue: "user_presence_required")
        /// The UV flag is clear and the policy requires user verification. (`user_verification_required`)
        public static let userVerificationRequired = Code(rawValue: "user_verification_required")
        /// BS is set while BE is clear (§6.1.3: not allowed). (`backup_state_invalid`)
        public static let backupStateInvalid = Code(rawValue: "backup_state_invalid")
        /// BE differs from the value stored at registration (§7.2 step 18). (`backup_eligibility_changed`)
        public static let backupEligibilityChanged = Code(rawValue: "backup_eligibility_changed")
        /// The backup flags break the relying party's policy (for example a synced passkey where device-bound ones are required). (`backup_policy_violation`)
        public static let backupPolicyViolation = Code(rawValue: "backup_policy_violation")

        // Keys and signatures.
        /// The COSE key names an algorithm this library cannot verify. (`unsupported_algorithm`)
        public static let unsupportedAlgorithm = Code(rawValue: "unsupported_algorithm")
        /// The algorithm is known but the relying party did not offer or allow it. (`algorithm_not_allowed`)
        public static let algorithmNotAllowed = Code(rawValue: "algorithm_not_allowed")
        /// The COSE key is malformed or inconsistent (wrong curve for the algorithm, point not on the curve...). (`public_key_malformed`)
        public static let publicKeyMalformed = Code(rawValue: "public_key_malformed")
        /// The key is too weak (RSA modulus under 2048 bits). (`public_key_weak`)
        public static let publicKeyWeak = Code(rawValue: "public_key_weak")
        /// The signature does not verify. (`signature_invalid`)
        public static let signatureInvalid = Code(rawValue: "signature_invalid")

        // Attestation.
        /// `fmt` names a format that is not configured. (`unsupported_attestation_format`)
        public static let unsupportedAttestationFormat = Code(rawValue: "unsupported_attestation_format")
        /// The attestation statement fails its format's verification procedure. (`attestation_invalid`)
        public static let attestationInvalid = Code(rawValue: "attestation_invalid")
        /// The attestation is valid but does not chain to a trusted root. (`attestation_untrusted`)
        public static let attestationUntrusted = Code(rawValue: "attestation_untrusted")
        /// The attestation type (for example `none` or self) is not acceptable under the policy. (`attestation_not_allowed`)
        public static let attestationNotAllowed = Code(rawValue: "attestation_not_allowed")
        /// The authenticator's model (AAGUID) is not on the relying party's list. (`aaguid_not_allowed`)
        public static let aaguidNotAllowed = Code(rawValue: "aaguid_not_allowed")
        /// The FIDO Metadata Service reports the authenticator's model compromised (its keys can be extracted, its
        /// attestation key leaked, its user verification bypassed, or its certification revoked). (`authenticator_compromised`)
        public static let authenticatorCompromised = Code(rawValue: "authenticator_compromised")
        /// The relying party admits only authenticator models the FIDO Metadata Service lists, or certifies at a level,
        /// and this one is not among them. (`authenticator_not_admitted`)
        public static let authenticatorNotAdmitted = Code(rawValue: "authenticator_not_admitted")
        /// Android SafetyNet reported a device that fails the CTS profile or basic integrity. (`safetynet_integrity_failed`)
        public static let safetyNetIntegrityFailed = Code(rawValue: "safetynet_integrity_failed")

        // Authentication.
        /// The credential is not among `allowCredentials`. (`credential_not_allowed`)
        public static let credentialNotAllowed = Code(rawValue: "credential_not_allowed")
        /// A discoverable sign-in returned no user handle. (`user_handle_missing`)
        public static let userHandleMissing = Code(rawValue: "user_handle_missing")
        /// The user handle does not belong to the credential's owner. (`user_handle_mismatch`)
        public static let userHandleMismatch = Code(rawValue: "user_handle_mismatch")
        /// The signature counter did not increase (§7.2 step 22): a possible cloned authenticator. (`counter_regressed`)
        public static let counterRegressed = Code(rawValue: "counter_regressed")
    }

    public let code: Code
    /// What was checked and why it failed, in plain words.
    public let reason: String
    /// The value the relying party expected, when there is one.
    public let expected: String?
    /// The value that came in the response, when there is one.
    public let received: String?

    public init(_ code: Code, _ reason: String, expected: String? = nil, received: String? = nil) {
        self.code = code
        self.reason = reason
        self.expected = expected
        self.received = received
    }

    public var description: String {
        var text = "\(code.rawValue): \(reason)"
        if let expected { text += " (expected: \(expected)" + (received.map { "; received: \($0))" } ?? ")") }
        else if let received { text += " (received: \(received))" }
        return text
    }

    public static func == (lhs: WebAuthnError, rhs: WebAuthnError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// Wraps a wire error, keeping its code.
    public init(_ error: WireError) {
        self.init(Code(rawValue: error.code.rawValue), error.description)
    }

    /// Wraps a CBOR error as `cbor_malformed`, saying what was being decoded.
    public init(_ error: CBORError, decoding what: String) {
        self.init(.cborMalformed, "\(what): \(error.description)")
    }
}
