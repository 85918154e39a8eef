public import PasskeyCBOR
public import PasskeyWire
public import Foundation

/// Attestation types (WebAuthn L3 §6.5.3).
public struct AttestationType: OpenStringEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// No attestation information (`none`).
    public static let none: Self = "None"
    /// Signed by the credential key itself.
    public static let `self`: Self = "Self"
    /// Signed by an attestation key shared by a batch of authenticators.
    public static let basic: Self = "Basic"
    /// Signed by a key certified by an attestation CA (TPM AIK certificates).
    public static let attCA: Self = "AttCA"
    /// Signed by a key certified by an anonymization CA (Apple).
    public static let anonCA: Self = "AnonCA"
}

/// What the trust path of an attestation amounts to.
public enum AttestationTrust: Sendable, Hashable {
    /// `none` and self attestation carry no certificate chain.
    case notApplicable
    /// The chain verified to a configured root; the root's subject.
    case trusted(root: String)
    /// A chain was presented but no trust anchors are configured for this format, so it could not be evaluated.
    case noTrustAnchors
}

/// Everything an attestation statement format's verification procedure takes (WebAuthn L3 §8: attStmt,
/// authenticatorData, clientDataHash), plus the time at which certificates must be valid.
public struct AttestationVerificationInput: Sendable {
    public let format: AttestationFormat
    public let statement: CBORValue
    public let authenticatorData: AuthenticatorData
    /// Attested credential data from `authenticatorData` (present: registration requires AT).
    public let credential: AttestedCredentialData
    /// SHA-256 of the exact clientDataJSON bytes.
    public let clientDataHash: [UInt8]
    /// The instant at which certificate validity is checked (pass the current time, or a pinned time in tests).
    public let validationTime: Date

    public init(
        format: AttestationFormat, statement: CBORValue, authenticatorData: AuthenticatorData,
        credential: AttestedCredentialData, clientDataHash: [UInt8], validationTime: Date
    ) {
        self.format = format
        self.statement = statement
        self.authenticatorData = authenticatorData
        self.credential = credential
        self.clientDataHash = clientDataHash
        self.validationTime = validationTime
    }

    /// `authenticatorData ‖ clientDataHash`, what most formats sign.
    public var signedData: [UInt8] { authenticatorData.bytes + clientDataHash }

    /// The statement as a map (every format but `compound`).
    public func statementMap() throws(WebAuthnError) -> CBORMap {
        guard case .map(let map) = statement else {
            throw WebAuthnError(.attestationInvalid, "\(format) attStmt must be a map", received: statement.kindName)
        }
        return map
    }
}

/// The outcome of a format's verification procedure.
public struct VerifiedAttestation: Sendable, Hashable {
    public let format: AttestationFormat
    public let type: AttestationType
    /// The attestation trust path: DER certificates, leaf first (empty for None and Self).
    public let trustPath: [[UInt8]]
    public let trust: AttestationTrust
    /// The algorithm of the attestation signature, when there is one.
    public let statementAlgorithm: COSEAlgorithmIdentifier?
    /// Format-specific facts worth showing (SafetyNet timestamp, TPM manufacturer...).
    public let details: [String: String]
    /// For `compound`: the verified sub-statements.
    public let components: [VerifiedAttestation]

    public init(
        format: AttestationFormat, type: AttestationType, trustPath: [[UInt8]] = [], trust: AttestationTrust = .notApplicable,
        statementAlgorithm: COSEAlgorithmIdentifier? = nil, details: [String: String] = [:], components: [VerifiedAttestation] = []
    ) {
        self.format = format
        self.type = type
        self.trustPath = trustPath
        self.trust = trust
        self.statementAlgorithm = statementAlgorithm
        self.details = details
        self.components = components
    }
}

/// One attestation statement format's verification procedure (WebAuthn L3 §8).
///
/// Conformers check the statement and, when the format carries a certificate chain and trust anchors were configured
/// for it, the chain: they throw `attestation_invalid` for a statement that fails its procedure and
/// `attestation_untrusted` for a chain that does not reach a configured root.
public protocol AttestationStatementVerifier: Sendable {
    var format: AttestationFormat { get }
    func verify(_ input: AttestationVerificationInput) throws(WebAuthnError) -> VerifiedAttestation
}

/// The set of attestation formats a relying party accepts: a value, passed in, never a global registry.
public struct AttestationVerifiers: Sendable {
    var verifiers: [AttestationFormat: any AttestationStatementVerifier]

    public init(_ verifiers: [any AttestationStatementVerifier]) {
        var map: [AttestationFormat: any AttestationStatementVerifier] = [:]
        for v in verifiers { map[v.format] = v }
        self.verifiers = map
    }

    /// Only `none`. Most relying parties want every format (security keys send `packed` even when `none` was asked
    /// for): use `AttestationVerifiers.standard(trustAnchors:)` from `PasskeyAttestation`.
    public static let noneOnly = AttestationVerifiers([NoneAttestation()])

    public var formats: [AttestationFormat] { verifiers.keys.sorted { $0.rawValue < $1.rawValue } }

    public subscript(format: AttestationFormat) -> (any AttestationStatementVerifier)? { verifiers[format] }

    /// Adds or replaces a format.
    public func adding(_ verifier: any AttestationStatementVerifier) -> AttestationVerifiers {
        var copy = self
        copy.verifiers[verifier.format] = verifier
        return copy
    }

    /// Adds `compound` (L3 §8.9) over the formats configured so far.
    public func addingCompound() -> AttestationVerifiers {
        adding(CompoundAttestation(components: self))
    }

    /// Runs the format named by `input.format` (matched case-sensitively, §7.1 step 21).
    public func verify(_ input: AttestationVerificationInput) throws(WebAuthnError) -> VerifiedAttestation {
        guard let verifier = verifiers[input.format] else {
            throw WebAuthnError(
                .unsupportedAttestationFormat, "attestation format \"\(input.format)\" is not accepted",
                expected: formats.map(\.rawValue).joined(separator: ", "), received: input.format.rawValue)
        }
        return try verifier.verify(input)
    }
}
