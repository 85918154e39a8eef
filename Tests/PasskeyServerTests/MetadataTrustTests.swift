import Crypto
import Foundation
import PasskeyAttestation
import HummingbirdTesting
import PasskeyCore
import PasskeyServer
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import PasskeyWire
import Testing
import X509

/// The FIDO Metadata Service BLOB in the server: `passkey-server metadata import|show`, the BLOB a server loads at
/// start, and registrations whose attestation is checked against the roots a BLOB's statement gives.
@Suite("Metadata BLOB in the server")
struct MetadataTrustTests {
    /// A metadata service of the test's own: a root, and a BLOB signing certificate it issues.
    struct MetadataService {
        let rootKey = P256.Signing.PrivateKey()
        let rootName: DistinguishedName
        let rootPEM: String
        let signingKey = P256.Signing.PrivateKey()
        let signingDER: [UInt8]
        let signingSerial: Certificate.SerialNumber

        /// - Parameters:
        ///   - until: when the signing certificate expires.
        ///   - revocationList: the CRL distribution point the signing certificate names, if any.
        init(until: Date = Date(timeIntervalSince1970: 1_900_000_000), revocationList: String? = nil) throws {
            let from = Date(timeIntervalSince1970: 1_700_000_000)
            rootName = try DistinguishedName { CommonName("Test Metadata Root") }
            let root = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey), notValidBefore: from,
                notValidAfter: Date(timeIntervalSince1970: 1_900_000_000), issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                    KeyUsage(keyCertSign: true)
                }, issuerPrivateKey: .init(rootKey))
            rootPEM = try root.serializeAsPEM().pemString
            var extensions = try Certificate.Extensions { Critical(BasicConstraints.notCertificateAuthority) }
            if let revocationList { try extensions.append(TestRevocationList.distributionPoints([revocationList])) }
            let signing = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(signingKey.publicKey), notValidBefore: from, notValidAfter: until,
                issuer: rootName, subject: try DistinguishedName { CommonName("mds.example") }, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: extensions, issuerPrivateKey: .init(rootKey))
            signingDER = try signing.serializeAsPEM().derBytes
            signingSerial = signing.serialNumber
        }

        /// A BLOB with serial `number` describing `model`, whose attestations chain to `vendorRootPEM`, with `statuses`.
        func blob(number: Int, model: String, vendorRootPEM: String, statuses: [String] = ["FIDO_CERTIFIED"]) throws -> [UInt8] {
            try blob(number: number, models: [(model, statuses)], vendorRootPEM: vendorRootPEM)
        }

        /// The root's revocation list, revoking the signing certificate or not.
        func revocationList(revokingSigner: Bool) throws -> [UInt8] {
            try TestRevocationList.make(
                issuer: rootName, key: rootKey, revoking: revokingSigner ? [signingSerial] : [], thisUpdate: Date().addingTimeInterval(-3600),
                nextUpdate: Date().addingTimeInterval(86_400))
        }

        /// The icon every model of these BLOBs has.
        static let icon = "data:image/png;base64,iVBORw0KGgo="

        /// A BLOB with serial `number` describing each model (AAGUID) with its statuses.
        func blob(number: Int, models: [(aaguid: String, statuses: [String])], vendorRootPEM: String) throws -> [UInt8] {
            let vendorRoot = try Certificate(pemEncoded: vendorRootPEM).serializeAsPEM().derBytes
            let entries: [JSONValue] = models.map { model in
                [
                    "aaguid": .string(model.aaguid),
                    "statusReports": .array(model.statuses.map { ["status": .string($0), "effectiveDate": "2024-01-01"] }),
                    "metadataStatement": [
                        "description": "Issued Key", "aaguid": .string(model.aaguid), "attestationTypes": ["basic_full"], "icon": .string(Self.icon),
                        "attestationRootCertificates": [.string(Base64URL.encodeStandard(vendorRoot))],
                    ],
                ]
            }
            let payload: JSONValue = ["legalHeader": "test", "no": .number(Double(number)), "nextUpdate": "2030-01-01", "entries": .array(entries)]
            let header: JSONValue = ["alg": "ES256", "typ": "JWT", "x5c": [.string(Base64URL.encodeStandard(signingDER))]]
            let input = Base64URL.encode(header.serializedBytes) + "." + Base64URL.encode(payload.serializedBytes)
            let signature = try signingKey.signature(for: Array(input.utf8)).rawRepresentation
            return Array((input + "." + Base64URL.encode(Array(signature))).utf8)
        }
    }

    @Test("a registration is checked against the roots the BLOB's statement gives its model, with no --attestation-root")
    func registrationThroughMetadata() async throws {
        let issued = try AttestationPolicyTests.Vendor(name: "Issued")
        let other = try AttestationPolicyTests.Vendor(name: "Other")
        let service = try MetadataService()
        let blob = try MetadataBLOBVerifier(rootPEM: service.rootPEM)
            .verify(try service.blob(number: 7, model: AttestationPolicyTests.model, vendorRootPEM: issued.rootPEM), at: Date(timeIntervalSince1970: 1_800_000_000))
        let server = TestServer {
            $0.attestation = .direct
            $0.attestationTrustAnchors = TrustAnchors(roots: [:], models: AuthenticatorModelRoots(blob))
        }
        try await server.run { client in
            for (index, (name, vendor, status)) in ([("ann", other, 400), ("bo", issued, 200), ("cy", nil, 200)] as [(String, AttestationPolicyTests.Vendor?, Int)]).enumerated() {
                let device = try Device(server: server, credentialID: UInt8(index + 1))
                let options = try await client.call(.get, "/generate-registration-options?username=\(name)")
                let answer = try await client.call(
                    .post, "/verify-registration",
                    json: [
                        "username": .string(name), "challengeKey": options["challengeKey"] ?? nil,
                        "cred": try AttestationPolicyTests.registration(device, options.json, vendor: vendor),
                    ])
                #expect(Int(answer.status.code) == status, "\(name): \(answer.json)")
                if status == 400 { #expect(answer["error"] == "attestation_untrusted", "\(name)") }
            }
            let stored = try #require(await server.repository.user(username: "bo"))
            let passkeys = await server.repository.credentials(userID: stored.id)
            #expect(passkeys.map(\.attestationType) == ["Basic"] && passkeys.map(\.aaguid) == [AttestationPolicyTests.model])
        }
    }

    @Test("metadata import verifies, stores and refuses; show lists compromise reports; a server loads the BLOB at start")
    func command() async throws {
        let issued = try AttestationPolicyTests.Vendor(name: "Issued")
        let service = try MetadataService()
        let folder = try temporaryFolderURL("passkey-metadata")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = "sqlite:" + folder.appendingPathComponent("data.sqlite").path
        let root = folder.appendingPathComponent("root.pem").path
        try service.rootPEM.write(toFile: root, atomically: true, encoding: .utf8)
        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            let path = folder.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
        let seven = try write(
            "7.jwt", try service.blob(number: 7, model: AttestationPolicyTests.model, vendorRootPEM: issued.rootPEM, statuses: ["FIDO_CERTIFIED", "USER_VERIFICATION_BYPASS"]))
        let six = try write("6.jwt", try service.blob(number: 6, model: AttestationPolicyTests.model, vendorRootPEM: issued.rootPEM))
        func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
            try await onOwnThread { try runProgram(ServerProcess.executable, arguments + ["--database", database, "--metadata-root", root]) }
        }

        // Signed by a root other than the one configured (here: the FIDO Alliance's, the default).
        let foreign = try await onOwnThread { try runProgram(ServerProcess.executable, ["metadata", "import", seven, "--database", database]) }
        #expect(foreign.status != 0 && foreign.output.contains("metadata_untrusted") && foreign.output.contains("no BLOB is in force"), "\(foreign.output)")
        let imported = try await run(["metadata", "import", seven])
        #expect(imported.status == 0, "\(imported.output)")
        #expect(imported.output.contains("metadata BLOB no 7: 1 authenticator models, 1 with a compromise report, next update 2030-01-01"), "\(imported.output)")
        // Not newer than the one in force: refused, and it stays.
        for file in [seven, six] {
            let again = try await run(["metadata", "import", file])
            #expect(again.status != 0 && again.output.contains("metadata_rolled_back") && again.output.contains("the BLOB in force stays no 7"), "\(again.output)")
        }
        // Not a BLOB at all, and one whose signing certificate has expired.
        let garbage = try write("garbage.jwt", Array("not a JWS".utf8))
        let malformed = try await run(["metadata", "import", garbage])
        #expect(malformed.status != 0 && malformed.output.contains("metadata_malformed"), "\(malformed.output)")
        let expiredService = try MetadataService(until: Date(timeIntervalSince1970: 1_750_000_000))
        try expiredService.rootPEM.write(toFile: root, atomically: true, encoding: .utf8)
        let expired = try write("8.jwt", try expiredService.blob(number: 8, model: AttestationPolicyTests.model, vendorRootPEM: issued.rootPEM))
        let late = try await run(["metadata", "import", expired])
        #expect(late.status != 0 && late.output.contains("metadata_untrusted"), "\(late.output)")
        try service.rootPEM.write(toFile: root, atomically: true, encoding: .utf8)

        // Bo's passkey of the model, made before the report (imported as from another server).
        let device = try TestAuthenticator()
        let key = Base64URL.encode(device.key.coseKey.encoded)
        let passkey = #"{"type":"passkey","id":""# + Base64URL.encode(device.credentialID) + #"","userId":"u-bo","backupEligible":false,"publicKey":""# + key
            + #"","aaguid":""# + AttestationPolicyTests.model.uppercased() + #""}"#
        let user = #"{"type":"user","id":"u-bo","userHandle":""# + Base64URL.encode(device.userHandle) + #"","username":"bo"}"#
        let records = try write("records.jsonl", Array(([user, passkey].joined(separator: "\n") + "\n").utf8))
        let transferred = try await run(["import", records])
        #expect(transferred.status == 0, "\(transferred.output)")

        let shown = try await run(["metadata", "show"])
        #expect(shown.status == 0 && shown.output.contains("metadata BLOB no 7"), "\(shown.output)")
        #expect(shown.output.contains("\(AttestationPolicyTests.model)  Issued Key  USER_VERIFICATION_BYPASS"), "\(shown.output)")
        #expect(shown.output.contains("passkeys of models reported compromised: 1"), "\(shown.output)")
        #expect(shown.output.contains("  bo  \(Base64URL.encode(device.credentialID).prefix(12))…  \(AttestationPolicyTests.model)  registered "), "\(shown.output)")
        // A bypassable user verification stops new registrations; the passkeys made before keep signing in.
        #expect(shown.output.contains("signs in; new ones refused"), "\(shown.output)")
        // The same passkeys from the accounts' side; and refused at sign-in where the setting names the kind.
        let flagged = try await run(["users", "flagged", "--refuse-sign-in-status", "USER_VERIFICATION_BYPASS"])
        #expect(flagged.status == 0 && flagged.output.contains("passkeys of models reported compromised: 1"), "\(flagged.output)")
        #expect(flagged.output.contains("  bo  \(Base64URL.encode(device.credentialID).prefix(12))…") && flagged.output.contains("refused at sign-in"), "\(flagged.output)")

        // A server started on the database uses the BLOB, and says so.
        let log = folder.appendingPathComponent("server.log").path
        let server = try await ServerProcess.start(database: database, port: try LocalPorts.free(), extraArguments: ["--metadata-root", root], logPath: log)
        server.stop()
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.contains("metadata") && text.contains("no=7") && text.contains("models=1") && text.contains("compromised=1"), "\(text)")
    }
}

@Suite("Authenticator models reported compromised")
struct CompromisedModelTests {
    static func register(_ name: String, _ device: Device, _ client: some TestClientProtocol) async throws -> JSONResponse {
        let options = try await client.call(.get, "/generate-registration-options?username=\(name)")
        return try await client.call(
            .post, "/verify-registration",
            json: [
                "username": .string(name), "challengeKey": options["challengeKey"] ?? nil,
                "cred": try AttestationPolicyTests.registration(device, options.json, vendor: nil, aaguid: AttestationPolicyTests.model),
            ])
    }

    static func signIn(_ device: Device, signCount: UInt32, _ client: some TestClientProtocol) async throws -> (JSONResponse, JSONValue) {
        let options = try await client.call(.get, "/generate-authentication-options")
        return (try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(options.json, signCount: signCount)]), options.json)
    }

    @Test("a model reported compromised registers no passkey; one whose keys can be extracted signs in no more; unless allowed")
    func compromisedModel() async throws {
        let model = try #require(AAGUID(AttestationPolicyTests.model))
        var server = TestServer()
        let repository = server.repository
        let device = try Device(server: server, credentialID: 3)
        let other = try Device(server: server, credentialID: 4)
        // Before any report: the model registers.
        try await server.run { client in
            let answer = try await Self.register("ann", device, client)
            #expect(answer.status == .ok, "\(answer.json)")
        }
        // A report that does not touch the keys (a bypassable user verification, a revoked certification): new
        // passkeys of the model are refused, the ones made before sign in.
        server.configuration.compromisedAAGUIDs = [model]
        let reported = server
        try await reported.run { client in
            let (signedIn, _) = try await Self.signIn(device, signCount: 1, client)
            #expect(signedIn.status == .ok && signedIn["username"] == "ann", "\(signedIn.json)")
            let registration = try await Self.register("bo", other, client)
            #expect(registration.status == .badRequest && registration["error"] == "authenticator_compromised", "\(registration.json)")
            #expect(await repository.user(username: "bo") == nil)
        }
        // Keys that can be extracted: the passkey stops signing in, once it proved itself; the challenge is spent and
        // the counter stays.
        server.configuration.keyCompromisedAAGUIDs = [model]
        let keyReported = server
        try await keyReported.run { client in
            let (refused, options) = try await Self.signIn(device, signCount: 2, client)
            #expect(refused.status == .badRequest && refused["error"] == "authenticator_compromised", "\(refused.json)")
            let again = try await client.call(.post, "/verify-authentication", json: ["cred": try device.get(options, signCount: 3)])
            #expect(again["error"] == "challenge_invalid", "\(again.json)")
            #expect(await repository.credential(id: device.authenticator.credentialID)?.signCount == 1)
            let events = await repository.events(matching: EventFilter(code: "authenticator_compromised"), before: nil, limit: 5)
            #expect(events.count == 2 && events.allSatisfy { $0.received == AttestationPolicyTests.model }, "\(events.map(\.received))")
        }
        // --allow-compromised-authenticators: the passkey signs in again.
        server.configuration.allowCompromisedAuthenticators = true
        let allowing = server
        try await allowing.run { client in
            let (answer, _) = try await Self.signIn(device, signCount: 4, client)
            #expect(answer.status == .ok && answer["username"] == "ann", "\(answer.json)")
        }
    }
}
