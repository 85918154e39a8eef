import Crypto
import Foundation
import PasskeyAttestation
import PasskeyCBOR
import PasskeyCore
import PasskeyServer
import PasskeyStorage
import PasskeyTestSupport
import PasskeyWire
import PasskeyServerTestSupport
import Testing
import X509

/// `--attestation-root`, `--require-trusted-attestation` and `--allowed-aaguid`: deployments that admit only the
/// security keys they issue.
@Suite("Attestation policy (trust roots, trusted attestation, allowed models)")
struct AttestationPolicyTests {
    /// A vendor: a root CA and an attestation certificate under it, as packed attestation (§8.2.1) wants it.
    struct Vendor {
        let rootPEM: String
        let leafDER: [UInt8]
        let leafKey: P256.Signing.PrivateKey

        init(name: String) throws {
            // Valid around both the real clock and the test server's (2027).
            let from = Date(timeIntervalSince1970: 1_700_000_000)
            let until = Date(timeIntervalSince1970: 1_900_000_000)
            let rootKey = P256.Signing.PrivateKey()
            let rootName = try DistinguishedName { CommonName("\(name) Attestation Root") }
            let root = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey), notValidBefore: from,
                notValidAfter: until, issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                    KeyUsage(keyCertSign: true)
                }, issuerPrivateKey: .init(rootKey))
            leafKey = P256.Signing.PrivateKey()
            let leafName = try DistinguishedName {
                CountryName("SE")
                OrganizationName(name)
                OrganizationalUnitName("Authenticator Attestation")
                CommonName("\(name) Key")
            }
            let leaf = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey), notValidBefore: from,
                notValidAfter: until, issuer: rootName, subject: leafName, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions { Critical(BasicConstraints.notCertificateAuthority) }, issuerPrivateKey: .init(rootKey))
            leafDER = try leaf.serializeAsPEM().derBytes
            rootPEM = try root.serializeAsPEM().pemString
        }
    }

    static let model = "cb69481e-8ff7-4039-93ec-0a2729a154a8"

    /// A registration answering `options` with packed attestation signed by `vendor` (or `none` without one), the
    /// authenticator claiming `aaguid`.
    static func registration(_ device: Device, _ options: JSONValue, vendor: Vendor?, aaguid: String = model, backupEligible: Bool = false) throws -> JSONValue {
        let challenge = options.objectValue?["challenge"]?.stringValue ?? ""
        if let handle = options.objectValue?["user"]?.objectValue?["id"]?.stringValue.flatMap(Base64URL.decode) {
            device.authenticator.userHandle = handle
        }
        let clientData = TestAuthenticator.clientData(type: "webauthn.create", challenge: challenge, origin: device.origin)
        let rpID = device.rpID
        let authData = device.authenticator.authData(for: "create") {
            $0.rpID = rpID
            $0.aaguid = AAGUID(aaguid)?.bytes ?? []
            if backupEligible { $0.flags.insert(.backupEligible) }
        }.build()
        guard let vendor else { return device.authenticator.registration(authData: authData, clientData: clientData).json }
        let signed = authData + Array(SHA256.hash(data: clientData))
        let sig = Array(try vendor.leafKey.signature(for: signed).derRepresentation)
        let statement: CBORValue = .map(["alg": .int(-7), "sig": .bytes(sig), "x5c": .array([.bytes(vendor.leafDER)])])
        return device.authenticator.registration(authData: authData, clientData: clientData, fmt: "packed", attStmt: statement).json
    }

    @Test("trusted attestation required: the issued keys register; none, another vendor's chain and another model are refused and store nothing")
    func requireTrusted() async throws {
        let issued = try Vendor(name: "Issued")
        let other = try Vendor(name: "Other")
        let server = TestServer {
            $0.attestation = .direct
            $0.attestationTrustAnchors = (try? TrustAnchors(pem: issued.rootPEM, for: .packed)) ?? .empty
            $0.requireTrustedAttestation = true
            $0.allowedAAGUIDs = [Self.model]
        }
        try await server.run { client in
            for (name, vendor, aaguid, code) in [
                ("ann", nil, Self.model, "attestation_not_allowed"), ("bo", other, Self.model, "attestation_untrusted"),
                ("cy", issued, "00000000-0000-0000-0000-000000000001", "aaguid_not_allowed"),
            ] as [(String, Vendor?, String, String)] {
                let device = try Device(server: server)
                let options = try await client.call(.get, "/generate-registration-options?username=\(name)")
                #expect(options["attestation"] == "direct")
                let answer = try await client.call(
                    .post, "/verify-registration",
                    json: ["username": .string(name), "challengeKey": options["challengeKey"] ?? nil, "cred": try Self.registration(device, options.json, vendor: vendor, aaguid: aaguid)])
                #expect(answer.status == .badRequest && answer["error"] == .string(code), "\(name): \(answer.json)")
                #expect(await server.repository.user(username: name) == nil, "\(name)")
                #expect(await server.repository.credential(id: device.authenticator.credentialID) == nil, "\(name)")
            }
            // The event log says what the client brought: its model, its attestation type; not the policy's lists.
            let refusedModel = await server.repository.events(matching: EventFilter(code: "aaguid_not_allowed"), before: nil, limit: 5)
            #expect(refusedModel.map(\.received) == ["00000000-0000-0000-0000-000000000001"] && refusedModel.first?.expected == nil)
            let noAttestation = await server.repository.events(matching: EventFilter(code: "attestation_not_allowed"), before: nil, limit: 5)
            #expect(noAttestation.map(\.received) == ["None"])
            let device = try Device(server: server, credentialID: 7)
            let options = try await client.call(.get, "/generate-registration-options?username=di")
            let answer = try await client.call(
                .post, "/verify-registration",
                json: ["username": "di", "challengeKey": options["challengeKey"] ?? nil, "cred": try Self.registration(device, options.json, vendor: issued)])
            #expect(answer.status == .ok, "\(answer.json)")
            let stored = try #require(await server.repository.credential(id: device.authenticator.credentialID))
            #expect(stored.attestationFormat == "packed" && stored.attestationType == "Basic" && stored.aaguid == Self.model)
        }
    }

    @Test("roots without the requirement: a chain to another root is refused for that format; none still registers")
    func rootsAlone() async throws {
        let issued = try Vendor(name: "Issued")
        let other = try Vendor(name: "Other")
        let server = TestServer {
            $0.attestation = .direct
            $0.attestationTrustAnchors = (try? TrustAnchors(pem: issued.rootPEM, for: .packed)) ?? .empty
        }
        try await server.run { client in
            for (index, (name, vendor, status)) in ([("ann", other, 400), ("bo", nil, 200), ("cy", issued, 200)] as [(String, Vendor?, Int)]).enumerated() {
                let device = try Device(server: server, credentialID: UInt8(index + 1))
                let options = try await client.call(.get, "/generate-registration-options?username=\(name)")
                let answer = try await client.call(
                    .post, "/verify-registration",
                    json: ["username": .string(name), "challengeKey": options["challengeKey"] ?? nil, "cred": try Self.registration(device, options.json, vendor: vendor)])
                #expect(Int(answer.status.code) == status, "\(name): \(answer.json)")
                if status == 400 { #expect(answer["error"] == "attestation_untrusted", "\(name)") }
            }
        }
    }

    static func strict(_ root: String) -> (inout ServerConfiguration) -> Void {
        { c in
            c.attestation = .direct
            c.attestationTrustAnchors = (try? TrustAnchors(pem: root, for: .packed)) ?? .empty
            c.requireTrustedAttestation = true
        }
    }

    @Test("the policy covers passkeys added through connect tokens, not the dashboard's admin passkeys")
    func otherPaths() async throws {
        let issued = try Vendor(name: "Issued")
        // Connect append: a passkey without attestation is refused, with nothing stored.
        let connect = try await ConnectHarness(Self.strict(issued.rootPEM))
        try await connect.server.run { client in
            let device = try Device(server: connect.server, credentialID: 3)
            let refused = try await connect.append(client, device: device)
            #expect(refused.status == .badRequest && refused["error"] == "attestation_not_allowed", "\(refused.json)")
            #expect(await connect.server.repository.credential(id: device.authenticator.credentialID) == nil)
        }
        // The dashboard: an admin's passkey registers without attestation all the same.
        let dashboard = try DashboardHarness(Self.strict(issued.rootPEM))
        try await dashboard.server.run { client in
            _ = try await dashboard.setUp(client)
        }
    }

    @Test("settings that cannot work are refused with a sentence")
    func validation() throws {
        let vendor = try Vendor(name: "Issued")
        let anchors = try TrustAnchors(pem: vendor.rootPEM, for: .packed)
        var c = ServerConfiguration()
        c.requireTrustedAttestation = true
        c.attestationTrustAnchors = anchors
        #expect(throws: ConfigurationError.self) { try c.validate() }
        c.attestation = .direct
        try c.validate()
        c.attestationTrustAnchors = .empty
        #expect(Self.message { try c.validate() }?.contains("needs at least one --attestation-root") == true)
        c.attestationTrustAnchors = anchors
        c.allowedAAGUIDs = ["not-an-aaguid"]
        #expect(Self.message { try c.validate() }?.contains("--allowed-aaguid not-an-aaguid must be an AAGUID") == true)
        c.allowedAAGUIDs = [Self.model]
        try c.validate()
        c.requireTrustedAttestation = false
        #expect(Self.message { try c.validate() }?.contains("--allowed-aaguid needs --require-trusted-attestation") == true)
        c.requireTrustedAttestation = true
        c.connect.rollout.autoAppend = true
        #expect(Self.message { try c.validate() }?.contains("--auto-append cannot go with --require-trusted-attestation") == true)
    }

    @Test("roots that do less than they seem to are warned about at start")
    func warnings() throws {
        let vendor = try Vendor(name: "Issued")
        var c = ServerConfiguration()
        c.attestationTrustAnchors = try TrustAnchors(pem: vendor.rootPEM, for: .packed)
        #expect(c.warnings == ["--attestation-root has no effect with --attestation none: browsers then send no attestation. Add --attestation direct."])
        c.attestation = .direct
        #expect(c.warnings.count == 1 && c.warnings[0].hasPrefix("--attestation-root without --require-trusted-attestation: packed attestations"))
        c.requireTrustedAttestation = true
        #expect(c.warnings.isEmpty)
        c.allowedAAGUIDs = [Self.model]
        #expect(c.warnings.isEmpty)
        c.attestationTrustAnchors = try c.attestationTrustAnchors.adding(pem: vendor.rootPEM, for: .tpm)
        #expect(c.warnings.count == 1 && c.warnings[0].hasPrefix("--allowed-aaguid with roots for tpm"), "\(c.warnings)")

        // A U2F root with a list that cannot match a U2F key (their AAGUID is all zero).
        c.attestationTrustAnchors = try TrustAnchors(pem: vendor.rootPEM, for: .fidoU2F)
        #expect(c.warnings == [
            "--allowed-aaguid does not list 00000000-0000-0000-0000-000000000000, which every fido-u2f registration carries: no U2F key can register under the fido-u2f root."
        ])
        c.allowedAAGUIDs.append("00000000-0000-0000-0000-000000000000")
        #expect(c.warnings.isEmpty)
        // A root that expired vouches for nothing (the vendor's root is valid until 2030).
        let later = Date(timeIntervalSince1970: 1_950_000_000)
        #expect(c.warnings(now: later) == [
            "--attestation-root for fido-u2f: CN=Issued Attestation Root expired on 2030-03-17: every chain to it is refused as attestation_untrusted."
        ])
    }

    @Test("--attestation-root reads PEM files, PATH or FORMAT=PATH, and names what is wrong")
    func command() async throws {
        let vendor = try Vendor(name: "Issued")
        let folder = try temporaryFolderURL("passkey-roots")
        let root = folder.appendingPathComponent("root.pem").path
        try vendor.rootPEM.write(toFile: root, atomically: true, encoding: .utf8)
        let notPEM = folder.appendingPathComponent("key.txt").path
        try "hello".write(toFile: notPEM, atomically: true, encoding: .utf8)
        let der = folder.appendingPathComponent("root.der").path
        try Data(try Certificate(pemEncoded: vendor.rootPEM).serializeAsPEM().derBytes).write(to: URL(fileURLWithPath: der))
        let cases: [([String], String)] = [
            (["--attestation-root", folder.appendingPathComponent("missing.pem").path], "no such file"),
            (["--attestation-root", folder.path], "no such file"),
            (["--attestation-root", der], "not PEM certificates (a DER file? convert it with: openssl x509 -inform der"),
            (["--attestation-root", "packed="], "give the path of a PEM file after packed="),
            (["--attestation-root", notPEM], "not PEM certificates"),
            (["--attestation-root", "jwt=" + root], "jwt is not a format with certificates"),
            (["--attestation-root", "packed=" + root, "--require-trusted-attestation"], "needs --attestation direct"),
        ]
        for (arguments, words) in cases {
            let run = try await onOwnThread { try runProgram(ServerProcess.executable, arguments + ["--database", "memory:"]) }
            #expect(run.status != 0 && run.output.contains(words), "\(arguments): \(run.output)")
        }
        // The same settings from the environment, named as given there.
        let environment = ["PASSKEY_ATTESTATION_ROOT": notPEM, "PASSKEY_REQUIRE_TRUSTED_ATTESTATION": "true"]
        let fromEnvironment = try await onOwnThread { try runProgram(ServerProcess.executable, ["--database", "memory:"], environment: environment) }
        #expect(fromEnvironment.status != 0 && fromEnvironment.output.contains("PASSKEY_ATTESTATION_ROOT \(notPEM): not PEM certificates"), "\(fromEnvironment.output)")
        let strict = ["PASSKEY_ATTESTATION_ROOT": "packed=" + root, "PASSKEY_REQUIRE_TRUSTED_ATTESTATION": "true", "PASSKEY_ALLOWED_AAGUID": "nope"]
        let aaguid = try await onOwnThread {
            try runProgram(ServerProcess.executable, ["--database", "memory:", "--attestation", "direct"], environment: strict)
        }
        #expect(aaguid.status != 0 && aaguid.output.contains("PASSKEY_ALLOWED_AAGUID nope must be an AAGUID"), "\(aaguid.output)")
    }

    static func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch { return "\(error)" }
    }
}
