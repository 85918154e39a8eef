public import PasskeyCore
public import PasskeyWire
public import Foundation
import X509
import Crypto

/// The `android-safetynet` attestation statement format (WebAuthn L3 §8.5): a SafetyNet attestation JWS from Google
/// Play Services, signed by a certificate for attest.android.com.
///
/// Google shut SafetyNet down in 2025 (replaced by Play Integrity); the format is kept so credentials registered
/// earlier, and responses from old devices, can still be verified.
public struct AndroidSafetyNetAttestation: AttestationStatementVerifier {
    /// Relying-party policy for the SafetyNet verdict.
    public struct Options: Sendable, Hashable {
        /// How `timestampMs` (when Google produced the verdict) is judged against the validation time.
        public enum TimestampCheck: Sendable, Hashable {
            /// Not checked (for replaying stored responses, or fixtures whose pinned time precedes the verdict).
            case disabled
            /// The verdict must be at most `maximumAge` seconds older than the validation time, and at most
            /// `allowedClockSkew` seconds newer.
            case within(maximumAge: TimeInterval, allowedClockSkew: TimeInterval)
        }

        /// Reject a verdict whose `ctsProfileMatch` is false (a device that fails Android compatibility testing).
        /// On by default. `basicIntegrity` must be true regardless.
        public var requireCTSProfileMatch: Bool
        public var timestampCheck: TimestampCheck

        /// The default window: one hour of age, five minutes of clock skew. A registration ceremony takes seconds, so
        /// an hour is generous; the skew absorbs clocks that disagree. Both are measured from the validation time passed
        /// in, never from the wall clock, so tests with pinned times behave the same as production.
        public static let defaultTimestampCheck = TimestampCheck.within(maximumAge: 3600, allowedClockSkew: 300)

        public init(requireCTSProfileMatch: Bool = true, timestampCheck: TimestampCheck = Options.defaultTimestampCheck) {
            self.requireCTSProfileMatch = requireCTSProfileMatch
            self.timestampCheck = timestampCheck
        }
    }

    public let trustAnchors: TrustAnchors
    public let options: Options

    public init(trustAnchors: TrustAnchors = .empty, options: Options = .init()) {
        self.trustAnchors = trustAnchors
        self.options = options
    }

    public var format: AttestationFormat { .androidSafetyNet }

    /// The host name the SafetyNet signing certificate must be issued to.
    static let attestationHostname = "attest.android.com"
    static let millisecondsPerSecond = 1000.0

    public func verify(_ input: AttestationVerificationInput) throws(WebAuthnError) -> VerifiedAttestation {
        // WebAuthn L3 §8.5 step 1: attStmt is {ver, response}; decode the fields.
        let statement = try StatementReader(input)
        let ver = try statement.text("ver")
        guard !ver.isEmpty else {
            throw WebAuthnError(.attestationInvalid, "android-safetynet attStmt ver must not be empty")
        }
        let response = try statement.bytes("response")

        // WebAuthn L3 §8.5 step 2: response is a valid SafetyNet response (a JWS signed by its x5c leaf).
        let jws = try X5CJWS(response, subject: "android-safetynet")
        let chain = try AttestationCertificate.chain(jws.certificates, format: format)
        guard let leaf = chain.first else {
            throw WebAuthnError(.attestationInvalid, "android-safetynet JWS header has no certificate")
        }
        let (alg, signature) = try jws.coseSignature()
        let verifier = try CertificateKey.verifier(for: leaf.certificate, algorithm: alg, role: "SafetyNet signing certificate")
        guard verifier.isValidSignature(signature, for: jws.signingInput) else {
            throw WebAuthnError(
                .attestationInvalid, "android-safetynet attestation signature (JWS \(jws.algorithm)) does not verify with the x5c leaf key")
        }
        let payload = try jws.payload()

        // WebAuthn L3 §8.5 step 3: nonce is the base64 of SHA-256(authenticatorData ‖ clientDataHash).
        let expectedNonce = Array(SHA256.hash(data: input.signedData))
        guard let nonceText = payload["nonce"]?.stringValue else {
            throw WebAuthnError(.attestationInvalid, "android-safetynet payload has no \"nonce\"")
        }
        guard let nonce = Base64URL.decodeStandard(nonceText), constantTimeEqual(nonce, expectedNonce) else {
            throw WebAuthnError(
                .attestationInvalid, "android-safetynet nonce is not base64(SHA-256(authenticatorData ‖ clientDataHash))",
                expected: Base64URL.encodeStandard(expectedNonce), received: nonceText)
        }

        // WebAuthn L3 §8.5 step 4: the response came from the SafetyNet service: the signing certificate is issued to
        // attest.android.com (SafetyNet documentation, "Verify the compatibility check response").
        try Self.checkHostname(leaf.certificate)

        // SafetyNet verdict (WebAuthn L1 §8.5 step 4 "ctsProfileMatch is true"; kept as the default policy).
        let basicIntegrity = payload["basicIntegrity"]?.boolValue ?? false
        let ctsProfileMatch = payload["ctsProfileMatch"]?.boolValue ?? false
        guard basicIntegrity else {
            throw WebAuthnError(.safetyNetIntegrityFailed, "android-safetynet verdict reports basicIntegrity false", expected: "true")
        }
        if options.requireCTSProfileMatch, !ctsProfileMatch {
            throw WebAuthnError(.safetyNetIntegrityFailed, "android-safetynet verdict reports ctsProfileMatch false", expected: "true")
        }

        // SafetyNet documentation: the verdict is fresh (timestampMs near the validation time).
        guard let timestampMs = payload["timestampMs"]?.numberValue else {
            throw WebAuthnError(.attestationInvalid, "android-safetynet payload has no numeric \"timestampMs\"")
        }
        let timestamp = Date(timeIntervalSince1970: timestampMs / Self.millisecondsPerSecond)
        if case .within(let maximumAge, let skew) = options.timestampCheck {
            guard timestamp.timeIntervalSince(input.validationTime) <= skew else {
                throw WebAuthnError(
                    .attestationInvalid, "android-safetynet timestampMs is in the future", expected: "≤ \(input.validationTime)",
                    received: "\(timestamp)")
            }
            guard input.validationTime.timeIntervalSince(timestamp) <= maximumAge else {
                throw WebAuthnError(
                    .attestationInvalid, "android-safetynet verdict is older than \(Int(maximumAge)) seconds",
                    expected: "≥ \(input.validationTime.addingTimeInterval(-maximumAge))", received: "\(timestamp)")
            }
        }

        // WebAuthn L3 §8.5 step 5: attestation type Basic, trust path x5c.
        let trust = try CertificateChainVerifier(roots: trustAnchors.roots(for: format, aaguid: input.credential.aaguid, leaf: leaf.certificate), validationTime: input.validationTime)
            .evaluate(chain, format: format)
        var details = [
            "ver": ver, "timestampMs": String(Int64(timestampMs)), "ctsProfileMatch": String(ctsProfileMatch),
            "basicIntegrity": String(basicIntegrity),
        ]
        if let package = payload["apkPackageName"]?.stringValue { details["apkPackageName"] = package }
        return VerifiedAttestation(
            format: format, type: .basic, trustPath: chain.trustPath, trust: trust, statementAlgorithm: alg, details: details)
    }

    /// The leaf must be issued to attest.android.com: a dNSName in subjectAltName, or the subject CN when there is no
    /// subjectAltName.
    static func checkHostname(_ certificate: Certificate) throws(WebAuthnError) {
        guard let hostnames = certificate.hostnames else {
            throw WebAuthnError(.attestationInvalid, "android-safetynet signing certificate subjectAltName is malformed")
        }
        guard hostnames.contains(attestationHostname) else {
            throw WebAuthnError(
                .attestationInvalid, "android-safetynet signing certificate is not issued to \(attestationHostname)",
                expected: attestationHostname, received: hostnames.joined(separator: ", "))
        }
    }
}
