public import PasskeyWire
import PasskeyCBOR

/// The `compound` attestation statement format (WebAuthn L3 §8.9): an array of two or more statements of other
/// formats, each verified with its own procedure. Every component must verify; nesting `compound` is refused.
public struct CompoundAttestation: AttestationStatementVerifier {
    let components: AttestationVerifiers

    public init(components: AttestationVerifiers) { self.components = components }
    public var format: AttestationFormat { .compound }

    public func verify(_ input: AttestationVerificationInput) throws(WebAuthnError) -> VerifiedAttestation {
        guard case .array(let items) = input.statement else {
            throw WebAuthnError(.attestationInvalid, "compound attStmt must be an array", received: input.statement.kindName)
        }
        // §8.9: "attStmt: an array of two or more ... statements".
        guard items.count >= 2 else {
            throw WebAuthnError(.attestationInvalid, "compound attStmt must hold at least two statements", received: "\(items.count)")
        }
        var verified: [VerifiedAttestation] = []
        for (index, item) in items.enumerated() {
            guard case .map(let entry) = item, case .text(let fmt)? = entry[text: "fmt"], let stmt = entry[text: "attStmt"] else {
                throw WebAuthnError(.attestationInvalid, "compound attStmt[\(index)] must be a map with \"fmt\" and \"attStmt\"")
            }
            guard fmt != AttestationFormat.compound.rawValue else {
                throw WebAuthnError(.attestationInvalid, "compound attestation must not nest compound statements")
            }
            let sub = AttestationVerificationInput(
                format: AttestationFormat(rawValue: fmt), statement: stmt, authenticatorData: input.authenticatorData,
                credential: input.credential, clientDataHash: input.clientDataHash, validationTime: input.validationTime)
            verified.append(try components.verify(sub))
        }
        let trusted = verified.first { if case .trusted = $0.trust { true } else { false } }
        return VerifiedAttestation(
            format: .compound, type: trusted?.type ?? verified[0].type, trustPath: trusted?.trustPath ?? [],
            trust: trusted?.trust ?? verified[0].trust, components: verified)
    }
}
