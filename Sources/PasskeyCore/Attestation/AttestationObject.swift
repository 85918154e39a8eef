public import PasskeyCBOR
public import PasskeyWire

/// The attestation object (WebAuthn L3 §6.5.4): a CBOR map `{fmt, attStmt, authData}`.
///
/// - SeeAlso: [WebAuthn L3 §6.5.4 Generating an Attestation Object](https://www.w3.org/TR/webauthn-3/#sctn-generating-an-attestation-object)
public struct AttestationObject: Sendable, Hashable {
    public let format: AttestationFormat
    /// The attestation statement: a map for every format but `compound`, whose statement is an array.
    public let statement: CBORValue
    public let authenticatorData: AuthenticatorData

    /// Decodes and checks the structure; the statement itself is checked by its format.
    public init(bytes: [UInt8]) throws(WebAuthnError) {
        let value: CBORValue
        // Compound attestation nests statements: the depth limit leaves room for it (and no more).
        do { value = try CBORDecoder(limits: .init(maximumDepth: 8)).decode(bytes) } catch {
            throw WebAuthnError(error, decoding: "attestationObject")
        }
        guard case .map(let map) = value else {
            throw WebAuthnError(.attestationObjectMalformed, "attestationObject must be a CBOR map", received: value.kindName)
        }
        guard let fmtValue = map[text: "fmt"] else {
            throw WebAuthnError(.attestationObjectMalformed, "attestationObject has no \"fmt\"")
        }
        guard case .text(let fmt) = fmtValue else {
            throw WebAuthnError(.attestationObjectMalformed, "attestationObject \"fmt\" must be a text string", received: fmtValue.kindName)
        }
        guard let statement = map[text: "attStmt"] else {
            throw WebAuthnError(.attestationObjectMalformed, "attestationObject has no \"attStmt\"")
        }
        switch statement {
        case .map: break
        case .array where fmt == AttestationFormat.compound.rawValue: break
        default:
            throw WebAuthnError(.attestationObjectMalformed, "attestationObject \"attStmt\" must be a map", received: statement.kindName)
        }
        guard let authDataValue = map[text: "authData"] else {
            throw WebAuthnError(.attestationObjectMalformed, "attestationObject has no \"authData\"")
        }
        guard case .bytes(let authData) = authDataValue else {
            throw WebAuthnError(
                .attestationObjectMalformed, "attestationObject \"authData\" must be a byte string", received: authDataValue.kindName)
        }
        format = AttestationFormat(rawValue: fmt)
        self.statement = statement
        authenticatorData = try AuthenticatorData(bytes: authData)
    }
}
