public import PasskeyCore
public import PasskeyWire
import PasskeyAttestation
import Foundation

/// The outcome of running the real verifier on one fixture: the verdict, the stable failure code, and the facts
/// parsed from the response (also for responses that fail, so a failing integration can be debugged).
public struct VerificationReport: Sendable {
    public var id: String
    public var ceremony: VerificationFixture.Ceremony
    public var failure: WebAuthnError?
    public var format: String?
    public var attestationType: String?
    public var attestationTrust: String?
    public var signCount: UInt32?
    public var aaguid: String?
    public var credentialID: String?
    public var credentialPublicKey: String?
    public var algorithm: COSEAlgorithmIdentifier?
    public var flags: AuthenticatorData.Flags?
    public var userVerified: Bool?
    public var backupEligible: Bool?
    public var backupState: Bool?

    public var isValid: Bool { failure == nil }

    /// The machine-readable report (`passkey verify --json`).
    public var json: JSONValue {
        var b = JSONObjectBuilder()
        // `ok` and `error` as in every `--json` answer of the CLI: ok when the exit status is 0.
        b.set("ok", isValid)
        if let failure { b.set("error", failure.code.rawValue) }
        b.set("id", id)
        b.set("ceremony", ceremony.rawValue)
        b.set("result", isValid ? "valid" : "invalid")
        b.set("failure", failure.map { JSONValue.string($0.code.rawValue) } ?? .null)
        if let failure {
            b.set("message", failure.reason)
            b.set("explanation", failure.code.explanation)
            b.set("expected", failure.expected)
            b.set("received", failure.received)
        }
        b.set("fmt", format.map(JSONValue.string) ?? .null)
        b.set("attestationType", attestationType.map(JSONValue.string) ?? .null)
        b.set("attestationTrust", attestationTrust)
        b.set("signCount", signCount.map { JSONValue.number(Double($0)) } ?? .null)
        b.set("aaguid", aaguid.map(JSONValue.string) ?? .null)
        b.set("backupEligible", backupEligible.map(JSONValue.bool) ?? .null)
        b.set("backupState", backupState.map(JSONValue.bool) ?? .null)
        b.set("userVerified", userVerified)
        b.set("credentialId", credentialID)
        b.set("credentialPublicKey", credentialPublicKey)
        b.set("algorithm", algorithm?.rawValue)
        if let flags {
            b.set("flags", .object([
                "up": .bool(flags.contains(.userPresent)), "uv": .bool(flags.contains(.userVerified)),
                "be": .bool(flags.contains(.backupEligible)), "bs": .bool(flags.contains(.backupState)),
                "at": .bool(flags.contains(.attestedCredentialData)), "ed": .bool(flags.contains(.extensionData)),
            ]))
        }
        return b.value
    }

    /// The report for people: the verdict first, then which check failed and why, with both values. Values from the
    /// response (an origin, a format, the fixture's id) are escaped (``DisplayEscaping``): a crafted response must not
    /// forge a line of the verdict or drive the terminal.
    public var humanText: String {
        let shown = { (value: String) in DisplayEscaping.escape(value) }
        var lines: [String] = []
        if let failure {
            lines.append("✗ \(shown(id)): \(ceremony.rawValue) is INVALID")
            lines.append("  failed check: \(failure.code.rawValue)")
            lines.append("  why:          \(shown(failure.reason))")
            if let expected = failure.expected { lines.append("  expected:     \(shown(expected))") }
            if let received = failure.received { lines.append("  received:     \(shown(received))") }
            lines.append("  meaning:      \(failure.code.explanation)")
        } else {
            lines.append("✓ \(shown(id)): \(ceremony.rawValue) is valid")
        }
        var facts: [(String, String)] = []
        if let format { facts.append(("format", format)) }
        if let attestationType { facts.append(("attestation type", attestationType)) }
        if let attestationTrust { facts.append(("attestation trust", attestationTrust)) }
        if let aaguid { facts.append(("AAGUID", aaguid)) }
        if let algorithm { facts.append(("algorithm", algorithm.description)) }
        if let signCount { facts.append(("sign count", String(signCount))) }
        if let flags {
            let names: [(AuthenticatorData.Flags, String)] = [
                (.userPresent, "UP"), (.userVerified, "UV"), (.backupEligible, "BE"), (.backupState, "BS"),
                (.attestedCredentialData, "AT"), (.extensionData, "ED"),
            ]
            facts.append(("flags", names.map { flags.contains($0.0) ? $0.1 : "\($0.1.lowercased())" }.joined(separator: " ") + "   (upper case = set)"))
        }
        if let credentialID { facts.append(("credential ID", credentialID)) }
        if !facts.isEmpty {
            lines.append("")
            for (name, value) in facts { lines.append("  " + name.padding(toLength: 18, withPad: " ", startingAt: 0) + shown(value)) }
        }
        return lines.joined(separator: "\n")
    }
}

/// Runs the real verifier on fixtures.
public struct FixtureVerifier: Sendable {
    /// Accept RS1 credential keys (`--allow-legacy-algorithms`).
    public var allowLegacyAlgorithms: Bool

    public init(allowLegacyAlgorithms: Bool = false) { self.allowLegacyAlgorithms = allowLegacyAlgorithms }

    public func verify(_ fixture: VerificationFixture) throws(FixtureError) -> VerificationReport {
        var report = VerificationReport(id: fixture.id, ceremony: fixture.ceremony)
        switch fixture.ceremony {
        case .registration: try verifyRegistration(fixture, into: &report)
        case .authentication: try verifyAuthentication(fixture, into: &report)
        }
        return report
    }

    func policy(_ fixture: VerificationFixture) -> CeremonyPolicy {
        CeremonyPolicy(
            userVerification: fixture.relyingParty.requireUserVerification ? .required : .preferred,
            allowLegacyAlgorithms: allowLegacyAlgorithms)
    }

    func verifyRegistration(_ fixture: VerificationFixture, into report: inout VerificationReport) throws(FixtureError) {
        let response: RegistrationResponseJSON
        do { response = try RegistrationResponseJSON(json: fixture.credential) } catch {
            report.failure = WebAuthnError(error)
            return
        }
        // Facts first, independent of the verdict.
        var format = AttestationFormat.none
        if let bytes = Base64URL.decode(response.response.attestationObject), let object = try? AttestationObject(bytes: bytes) {
            format = object.format
            let authData = object.authenticatorData
            report.format = object.format.rawValue
            report.flags = authData.flags
            report.signCount = authData.signCount
            report.backupEligible = authData.backupEligible
            report.backupState = authData.backupState
            report.userVerified = authData.userVerified
            if let credential = authData.attestedCredentialData {
                report.aaguid = credential.aaguid.description
                report.credentialID = Base64URL.encode(credential.credentialID)
                report.credentialPublicKey = Base64URL.encode(credential.credentialPublicKeyBytes)
                report.algorithm = credential.credentialPublicKey.algorithm
            }
        }
        var roots: [String] = []
        for url in fixture.attestationTrust?.roots ?? [] {
            do { roots.append(try String(contentsOf: url, encoding: .utf8)) } catch {
                let why =
                    !FileManager.default.fileExists(atPath: url.path) ? "no such file"
                    : !FileManager.default.isReadableFile(atPath: url.path) ? "not readable (permissions)"
                    : "not a UTF-8 text (PEM) file"
                throw FixtureError("cannot read trust root \(url.path): \(why)")
            }
        }
        var anchors = TrustAnchors.empty
        do {
            for pem in roots { anchors = try anchors.adding(pem: pem, for: format) }
        } catch {
            throw FixtureError("trust roots for \(fixture.id) are not PEM certificates: \(error)")
        }
        let rp = RelyingParty(
            id: fixture.relyingParty.rpID, origins: fixture.relyingParty.origins, policy: policy(fixture),
            // A fixture's pinned time fixes when certificates must be valid, not when the ceremony happened, so the
            // freshness of a SafetyNet verdict cannot be judged from it (a live server checks it against the clock).
            attestationVerifiers: .standard(
                trustAnchors: anchors, safetyNet: AndroidSafetyNetAttestation.Options(timestampCheck: .disabled)))
        do {
            let verified = try rp.verifyRegistration(
                response, expectedChallenge: fixture.relyingParty.challenge,
                requireUserPresence: fixture.relyingParty.requireUserPresence,
                requireUserVerification: fixture.relyingParty.requireUserVerification,
                allowedAlgorithms: fixture.relyingParty.allowedAlgorithms,
                validationTime: fixture.attestationTrust?.currentTime ?? Date())
            report.attestationType = verified.attestation.type.rawValue
            switch verified.attestation.trust {
            case .trusted(let root): report.attestationTrust = "trusted (\(root))"
            case .noTrustAnchors: report.attestationTrust = "not evaluated (no trust anchors configured for this format)"
            case .notApplicable: report.attestationTrust = "not applicable"
            }
        } catch {
            report.failure = error
        }
    }

    func verifyAuthentication(_ fixture: VerificationFixture, into report: inout VerificationReport) throws(FixtureError) {
        guard let stored = fixture.storedCredential else { throw FixtureError("an authentication fixture needs storedCredential") }
        let response: AuthenticationResponseJSON
        do { response = try AuthenticationResponseJSON(json: fixture.credential) } catch {
            report.failure = WebAuthnError(error)
            return
        }
        guard let storedID = Base64URL.decode(stored.id), let storedKey = Base64URL.decode(stored.publicKey) else {
            throw FixtureError("storedCredential id and publicKey must be base64url")
        }
        let storedHandle = stored.userHandle.flatMap(Base64URL.decode)
        var assertionBE = false
        if let bytes = Base64URL.decode(response.response.authenticatorData), let authData = try? AuthenticatorData(bytes: bytes) {
            report.flags = authData.flags
            report.signCount = authData.signCount
            report.backupEligible = authData.backupEligible
            report.backupState = authData.backupState
            report.userVerified = authData.userVerified
            assertionBE = authData.backupEligible
        }
        report.credentialID = response.rawId
        report.algorithm = (try? COSEKey(bytes: storedKey))?.algorithm
        // The schema stores no BE flag for the credential; use the assertion's so the BE-unchanged rule (§7.2 step 19)
        // has nothing to compare against, as in the source libraries' tests.
        let record = CredentialRecord(
            id: storedID, publicKey: storedKey, signCount: stored.signCount, backupEligible: assertionBE, userHandle: storedHandle)
        // With a stored user handle and one in the response: a discoverable sign-in, identified by the handle.
        let expectedUser: ExpectedUser = storedHandle != nil && response.response.userHandle != nil
            ? .discoverable : .identified(userHandle: storedHandle)
        let rp = RelyingParty(id: fixture.relyingParty.rpID, origins: fixture.relyingParty.origins, policy: policy(fixture))
        do {
            let verified = try rp.verifyAuthentication(
                response, expectedChallenge: fixture.relyingParty.challenge, credential: record, expectedUser: expectedUser,
                requireUserVerification: fixture.relyingParty.requireUserVerification)
            report.signCount = verified.newSignCount
        } catch {
            report.failure = error
        }
    }
}
