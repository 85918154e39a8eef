/// What an authenticator model's metadata statement says its attestations can be (FIDO Metadata Statement §4,
/// `attestationTypes`): an attestation of another type did not come from that model, whatever AAGUID it claims.
///
/// The statement's `authenticationAlgorithms` are not judged: real authenticators make keys their statements do not
/// list (Windows Hello's lists RS256 and makes ES256 keys; a YubiKey Security Key NFC's lists ES256 and EdDSA and makes
/// RS256 keys when asked, both in the fixtures), so that check would refuse genuine registrations.
public struct ModelStatementRules: Sendable, Hashable {
    /// The attestation types the model makes; empty: the statement says none this library knows.
    public var attestationTypes: Set<AttestationType>

    public init(attestationTypes: Set<AttestationType>) { self.attestationTypes = attestationTypes }

    /// Why a registration of `aaguid` with an attestation of `type` contradicts the statement; nil when it does not. An
    /// attestation of type None (none was asked for) says nothing to compare.
    public func refusal(_ aaguid: AAGUID, type: AttestationType) -> WebAuthnError? {
        guard type != .none, !attestationTypes.isEmpty, !attestationTypes.contains(type) else { return nil }
        return WebAuthnError(
            .attestationNotAllowed, "the metadata statement of model \(aaguid) does not list this attestation type",
            expected: attestationTypes.map(\.rawValue).sorted().joined(separator: ", "), received: type.rawValue)
    }
}
