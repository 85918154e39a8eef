public import PasskeyWire

/// The `none` attestation statement format (WebAuthn L3 §8.7): attStmt is the empty map, type None.
///
/// A non-empty statement labelled `none` is refused: it is how a relabelled attestation would sneak through (Keycloak CVE-2025-12150).
public struct NoneAttestation: AttestationStatementVerifier {
    public init() {}
    public var format: AttestationFormat { .none }

    public func verify(_ input: AttestationVerificationInput) throws(WebAuthnError) -> VerifiedAttestation {
        let map = try input.statementMap()
        // WebAuthn L3 §8.7: "attStmt: an empty CBOR map".
        guard map.isEmpty else {
            throw WebAuthnError(
                .attestationInvalid, "\"none\" attestation must have an empty attStmt", expected: "{}",
                received: "\(map.count) entries")
        }
        return VerifiedAttestation(format: .none, type: .none)
    }
}
