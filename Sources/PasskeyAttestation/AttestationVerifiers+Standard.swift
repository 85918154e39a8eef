public import PasskeyCore

extension AttestationVerifiers {
    /// Every attestation format this package implements: none, packed, fido-u2f, apple, android-key,
    /// android-safetynet, tpm, and compound over them.
    ///
    /// - Parameters:
    ///   - trustAnchors: roots per format; formats without roots report `noTrustAnchors` instead of failing, so a
    ///     relying party that does not evaluate attestation can pass `.empty` and still accept every format.
    ///   - androidKey: Android key attestation policy (whether only TEE-enforced authorizations count).
    ///   - safetyNet: SafetyNet policy (CTS profile enforcement, timestamp window).
    public static func standard(
        trustAnchors: TrustAnchors = .empty,
        androidKey: AndroidKeyAttestation.Options = .init(),
        safetyNet: AndroidSafetyNetAttestation.Options = .init()
    ) -> AttestationVerifiers {
        AttestationVerifiers([
            NoneAttestation(),
            PackedAttestation(trustAnchors: trustAnchors),
            FIDOU2FAttestation(trustAnchors: trustAnchors),
            AppleAttestation(trustAnchors: trustAnchors),
            AndroidKeyAttestation(trustAnchors: trustAnchors, options: androidKey),
            AndroidSafetyNetAttestation(trustAnchors: trustAnchors, options: safetyNet),
            TPMAttestation(trustAnchors: trustAnchors),
        ]).addingCompound()
    }
}
