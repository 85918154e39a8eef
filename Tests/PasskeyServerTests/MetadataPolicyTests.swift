import Foundation
import Crypto
import HummingbirdTesting
import PasskeyCBOR
import PasskeyAttestation
import PasskeyCore
@testable import PasskeyServer
import PasskeyServerTestSupport
import PasskeyTestSupport
import PasskeyWire
import Testing

/// The registration policies a metadata BLOB drives (`--admit-authenticators`), and the ones beside them
/// (`--denied-aaguid`, `--require-device-bound`, `--refuse-sign-in-status`): each admits and refuses what it says,
/// with its code, through the BLOB as the server applies it.
@Suite("Metadata policies")
struct MetadataPolicyTests {
    /// Certified at level 2.
    static let levelTwo = AttestationPolicyTests.model
    /// Certified at level 1 (`FIDO_CERTIFIED`, the old name), its user verification since found bypassable.
    static let levelOne = "0bb43545-fd2c-4185-87dd-feb0b2916ace"
    /// Not in the BLOB.
    static let unlisted = "11111111-2222-3333-4444-555555555555"
    static let time = Date(timeIntervalSince1970: 1_800_000_000)

    static func blob(vendor: AttestationPolicyTests.Vendor) throws -> MetadataBLOB {
        let service = try MetadataTrustTests.MetadataService()
        let bytes = try service.blob(
            number: 3, models: [(levelTwo, ["FIDO_CERTIFIED_L1", "FIDO_CERTIFIED_L2"]), (levelOne, ["FIDO_CERTIFIED", "USER_VERIFICATION_BYPASS"])],
            vendorRootPEM: vendor.rootPEM)
        return try MetadataBLOBVerifier(rootPEM: service.rootPEM).verify(bytes, at: time)
    }

    /// A server whose configuration has `blob` applied as at start, after `configure`.
    static func server(_ blob: MetadataBLOB?, _ configure: @escaping (inout ServerConfiguration) -> Void) -> TestServer {
        TestServer {
            $0.attestation = .direct
            configure(&$0)
            if let blob { $0 = MetadataLoading.apply(blob, to: $0, at: time) }
        }
    }

    /// Registers `name` with a passkey of `model`; the status and the error code (`-` for none).
    static func register(
        _ name: String, model: String, vendor: AttestationPolicyTests.Vendor?, backupEligible: Bool = false, on server: TestServer,
        _ client: some TestClientProtocol, credential: UInt8
    ) async throws -> String {
        let device = try Device(server: server, credentialID: credential)
        let options = try await client.call(.get, "/generate-registration-options?username=\(name)")
        let answer = try await client.call(
            .post, "/verify-registration",
            json: [
                "username": .string(name), "challengeKey": options["challengeKey"] ?? nil,
                "cred": try AttestationPolicyTests.registration(device, options.json, vendor: vendor, aaguid: model, backupEligible: backupEligible),
            ])
        return "\(answer.status.code) \(answer["error"]?.stringValue ?? "-")"
    }

    @Test("certification levels: the highest in force, withdrawn by a later revocation, not before its effective date")
    func certificationLevels() {
        func entry(_ reports: [(String, Date?)]) -> MetadataBLOBEntry {
            MetadataBLOBEntry(aaguid: Self.levelTwo, statusReports: reports.map { StatusReport(status: AuthenticatorStatus(rawValue: $0.0), effectiveDate: $0.1) })
        }
        let later = Self.time.addingTimeInterval(86_400)
        #expect(entry([("FIDO_CERTIFIED", nil)]).certificationLevel(at: Self.time) == .l1)
        #expect(entry([("FIDO_CERTIFIED_L1", nil), ("FIDO_CERTIFIED_L2plus", nil), ("UPDATE_AVAILABLE", nil)]).certificationLevel(at: Self.time) == .l2Plus)
        #expect(entry([("FIDO_CERTIFIED_L2", nil), ("REVOKED", nil)]).certificationLevel(at: Self.time) == nil)
        #expect(entry([("FIDO_CERTIFIED_L1", nil), ("FIDO_CERTIFIED_L3", later)]).certificationLevel(at: Self.time) == .l1)
        #expect(entry([("NOT_FIDO_CERTIFIED", nil)]).certificationLevel(at: Self.time) == nil)
        #expect(CertificationLevel.l1 < .l1Plus && CertificationLevel.l2Plus < .l3)
        #expect(AuthenticatorAdmission("FIDO_CERTIFIED_L2PLUS") == .certified(.l2Plus) && AuthenticatorAdmission("known") == .known)
        #expect(AuthenticatorAdmission("FIDO_CERTIFIED_L4") == nil && AuthenticatorAdmission("USER_VERIFICATION_BYPASS") == nil)
    }

    /// One registration: a new account's passkey of `model`, attested by `vendor` (nil: `none`).
    struct Attempt {
        let model: String
        var vendor: AttestationPolicyTests.Vendor?
        var backupEligible = false
    }

    /// Registers each attempt on `server` in turn, as accounts of their own, and returns what each got: the status and
    /// the error code (`-` for none).
    static func outcomes(_ attempts: [Attempt], on server: TestServer) async throws -> [String] {
        try await server.run { client in
            var outcomes: [String] = []
            for (index, attempt) in attempts.enumerated() {
                outcomes.append(
                    try await register(
                        "user\(index)", model: attempt.model, vendor: attempt.vendor, backupEligible: attempt.backupEligible, on: server, client,
                        credential: UInt8(index + 1)))
            }
            return outcomes
        }
    }

    @Test("known: a listed model proven by its attestation registers; an unlisted one, or a listed one without a trusted attestation, does not")
    func admitKnown() async throws {
        let vendor = try AttestationPolicyTests.Vendor(name: "Issued")
        let server = Self.server(try Self.blob(vendor: vendor)) { $0.admitAuthenticators = .known }
        let outcomes = try await Self.outcomes(
            [Attempt(model: Self.levelTwo, vendor: vendor), Attempt(model: Self.unlisted, vendor: vendor), Attempt(model: Self.levelTwo)], on: server)
        #expect(outcomes == ["200 -", "400 authenticator_not_admitted", "400 authenticator_not_admitted"])
    }

    @Test("a certification level admits the models certified at it or above, and no other")
    func admitLevel() async throws {
        let vendor = try AttestationPolicyTests.Vendor(name: "Issued")
        let server = Self.server(try Self.blob(vendor: vendor)) { $0.admitAuthenticators = .certified(.l2) }
        let outcomes = try await Self.outcomes([Attempt(model: Self.levelTwo, vendor: vendor), Attempt(model: Self.levelOne, vendor: vendor)], on: server)
        #expect(outcomes == ["200 -", "400 authenticator_compromised"])
        // Below the level, without a compromise to refuse it first.
        let lenient = Self.server(try Self.blob(vendor: vendor)) {
            $0.admitAuthenticators = .certified(.l2)
            $0.allowCompromisedAuthenticators = true
        }
        #expect(try await Self.outcomes([Attempt(model: Self.levelOne, vendor: vendor)], on: lenient) == ["400 authenticator_not_admitted"])
    }

    @Test("without a BLOB, an admission policy admits nothing")
    func admitWithoutBLOB() async throws {
        let vendor = try AttestationPolicyTests.Vendor(name: "Issued")
        let server = Self.server(nil) { $0.admitAuthenticators = .known }
        #expect(try await Self.outcomes([Attempt(model: Self.levelTwo, vendor: vendor)], on: server) == ["400 authenticator_not_admitted"])
    }

    @Test("a denied model is refused whatever its attestation; others register")
    func denied() async throws {
        let server = Self.server(nil) { $0.deniedAAGUIDs = [Self.unlisted.uppercased()] }
        #expect(try await Self.outcomes([Attempt(model: Self.unlisted), Attempt(model: Self.levelTwo)], on: server) == ["400 aaguid_not_allowed", "200 -"])
    }

    @Test("device-bound only: a passkey that can be synced is refused, a device-bound one registers")
    func deviceBound() async throws {
        let server = Self.server(nil) { $0.requireDeviceBound = true }
        let outcomes = try await Self.outcomes([Attempt(model: Self.levelTwo, backupEligible: true), Attempt(model: Self.levelTwo)], on: server)
        #expect(outcomes == ["400 backup_policy_violation", "200 -"])
    }

    @Test("which compromise kinds stop sign-ins is a setting: a bypassable user verification signs in by default, and not when listed")
    func refuseSignInPerKind() async throws {
        let vendor = try AttestationPolicyTests.Vendor(name: "Issued")
        let blob = try Self.blob(vendor: vendor)
        let device = try Device(server: TestServer(), credentialID: 9)
        var server = Self.server(nil) { _ in }
        try await server.run { client in
            let options = try await client.call(.get, "/generate-registration-options?username=ann")
            let answer = try await client.call(
                .post, "/verify-registration",
                json: [
                    "username": "ann", "challengeKey": options["challengeKey"] ?? nil,
                    "cred": try AttestationPolicyTests.registration(device, options.json, vendor: nil, aaguid: Self.levelOne),
                ])
            #expect(answer.status == .ok, "\(answer.json)")
        }
        server.configuration = MetadataLoading.apply(blob, to: server.configuration, at: Self.time)
        let byDefault = server
        try await byDefault.run { client in
            let (answer, _) = try await CompromisedModelTests.signIn(device, signCount: 1, client)
            #expect(answer.status == .ok, "\(answer.json)")
        }
        server.configuration.refuseSignInStatuses = [.userVerificationBypass]
        server.configuration = MetadataLoading.apply(blob, to: server.configuration, at: Self.time)
        let refusing = server
        try await refusing.run { client in
            let (answer, _) = try await CompromisedModelTests.signIn(device, signCount: 2, client)
            #expect(answer.status == .badRequest && answer["error"] == "authenticator_compromised", "\(answer.json)")
        }
    }

    /// Registers `name` with a self-attested passkey (packed, signed by the credential key) claiming `model`.
    static func registerSelfAttested(_ name: String, model: String, on server: TestServer, _ client: some TestClientProtocol) async throws -> String {
        let device = try Device(server: server, credentialID: 7)
        let options = try await client.call(.get, "/generate-registration-options?username=\(name)")
        if let handle = options.json.objectValue?["user"]?.objectValue?["id"]?.stringValue.flatMap(Base64URL.decode) {
            device.authenticator.userHandle = handle
        }
        let clientData = TestAuthenticator.clientData(type: "webauthn.create", challenge: options["challenge"]?.stringValue ?? "", origin: device.origin)
        let rpID = device.rpID
        let authData = device.authenticator.authData(for: "create") {
            $0.rpID = rpID
            $0.aaguid = AAGUID(model)?.bytes ?? []
        }.build()
        let signature = try device.authenticator.key.sign(authData + Array(SHA256.hash(data: clientData)))
        let statement: CBORValue = .map(["alg": .int(-7), "sig": .bytes(signature)])
        let credential = device.authenticator.registration(authData: authData, clientData: clientData, fmt: "packed", attStmt: statement).json
        let answer = try await client.call(
            .post, "/verify-registration", json: ["username": .string(name), "challengeKey": options["challengeKey"] ?? nil, "cred": credential])
        return "\(answer.status.code) \(answer["error"]?.stringValue ?? "-")"
    }

    @Test("a self attestation claiming a model whose statement lists basic_full only is refused; without the BLOB it registers, and Basic does with it")
    func statementAttestationTypes() async throws {
        let vendor = try AttestationPolicyTests.Vendor(name: "Issued")
        let without = Self.server(nil) { _ in }
        try await without.run { client in
            let admitted = try await Self.registerSelfAttested("ann", model: Self.levelTwo, on: without, client)
            #expect(admitted == "200 -")
        }
        let server = Self.server(try Self.blob(vendor: vendor)) { _ in }
        try await server.run { client in
            let refused = try await Self.registerSelfAttested("ann", model: Self.levelTwo, on: server, client)
            #expect(refused == "400 attestation_not_allowed")
            let basic = try await Self.register("bo", model: Self.levelTwo, vendor: vendor, on: server, client, credential: 2)
            #expect(basic == "200 -")
        }
    }
}
