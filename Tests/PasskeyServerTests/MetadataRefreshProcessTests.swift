import Foundation
import PasskeyStorage
import PasskeyStoragePostgres
import PasskeyTestSupport
import PasskeyWire
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Two `passkey-server` processes on one PostgreSQL keep the metadata BLOB current while they run: one downloaded from
/// `--metadata-url` (by both at once), one imported with `passkey-server metadata import`. Each BLOB that reports a
/// model compromised announces its passkeys to a webhook receiver (`standardwebhooks` from PyPI) once, and both
/// instances refuse the sign-ins the policy says, without a restart.
@Suite(
    "Metadata BLOB kept current by two instances", .serialized,
    .enabled(if: TestPostgres.enabled, "PASSKEY_TEST_POSTGRES_URL is not set"),
    .enabled(if: WebhookSignatureTests.available || WebhookSignatureTests.required, "python3 with standardwebhooks is not installed"))
struct MetadataRefreshProcessTests {
    static let keyModel = AttestationPolicyTests.model
    static let bypassModel = MetadataAnnouncementTests.bypassModel

    /// A static file server (python3's) over `folder` on `port`.
    static func fileServer(_ folder: URL, port: Int) async throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", folder.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<100 {
            if WebhookProcessTests.Receiver.accepts(port) { return process }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ServerStartFailed(description: "the file server did not listen on \(port)")
    }

    /// A user with one passkey of `model`, as `passkey-server import` reads it.
    static func records(_ name: String, _ device: TestAuthenticator, model: String) -> String {
        let user = #"{"type":"user","id":"u-\#(name)","userHandle":"\#(Base64URL.encode(device.userHandle))","username":"\#(name)"}"#
        let passkey = #"{"type":"passkey","id":"\#(Base64URL.encode(device.credentialID))","userId":"u-\#(name)","backupEligible":false,"publicKey":"\#(Base64URL.encode(device.key.coseKey.encoded))","aaguid":"\#(model)"}"#
        return user + "\n" + passkey + "\n"
    }

    static func signIn(_ driver: CeremonyDriver, _ name: String, via server: LaunchedServer, signCount: UInt32) async throws -> HTTPAnswer {
        let client = ProcessClient(port: server.port)
        defer { Task { await client.close() } }
        let body = try await driver.authenticationBody(from: client, username: name, signCount: signCount).get()
        return await client.call(.post, "/verify-authentication", json: body)
    }

    static func log(_ server: LaunchedServer) -> String { (try? String(contentsOfFile: server.logPath, encoding: .utf8)) ?? "" }

    @Test("a BLOB downloaded by both instances at once, then one imported while they run: each report announced once, applied by both", .timeLimit(.minutes(4)))
    func keptCurrent() async throws {
        let url = try #require(TestPostgres.freshURL(), Comment(rawValue: TestPostgres.missingMessage))
        let folder = try temporaryFolderURL("passkey-metadata-refresh")
        defer { try? FileManager.default.removeItem(at: folder) }
        let www = folder.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        let ports = try LocalPorts.free(4)
        let service = try MetadataTrustTests.MetadataService()
        let vendor = try AttestationPolicyTests.Vendor(name: "Issued")
        let root = folder.appendingPathComponent("root.pem").path
        try service.rootPEM.write(toFile: root, atomically: true, encoding: .utf8)
        func publish(_ number: Int, key: [String], bypass: [String]) throws -> String {
            let bytes = try service.blob(number: number, models: [(Self.keyModel, key), (Self.bypassModel, bypass)], vendorRootPEM: vendor.rootPEM)
            let file = www.appendingPathComponent("blob-\(number).jwt")
            try Data(bytes).write(to: file)
            try? FileManager.default.removeItem(at: www.appendingPathComponent("blob.jwt"))
            try FileManager.default.copyItem(at: file, to: www.appendingPathComponent("blob.jwt"))
            return file.path
        }
        func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
            try await onOwnThread {
                try runProgram(ServerProcess.executable, arguments + ["--database", url, "--metadata-root", root], environment: WebhookProcessTests.receiversBeside)
            }
        }

        // Ann's passkey is of a model whose keys will turn out extractable; Bo's of one whose user verification will
        // turn out bypassable. The endpoint receives every type.
        var ann = try CeremonyDriver(credentialID: Array("meta-ann".utf8))
        var bo = try CeremonyDriver(credentialID: Array("meta-bo".utf8))
        ann.device.userHandle = Array("handle-ann".utf8)
        bo.device.userHandle = Array("handle-bo".utf8)
        let recordsFile = folder.appendingPathComponent("records.jsonl")
        try (Self.records("ann", ann.device, model: Self.keyModel) + Self.records("bo", bo.device, model: Self.bypassModel)).write(to: recordsFile, atomically: true, encoding: .utf8)
        let imported = try await run(["import", recordsFile.path])
        #expect(imported.status == 0, "\(imported.output)")
        let secret = try await WebhookProcessTests.addEndpoint("http://127.0.0.1:\(ports[2])/hooks", database: url)
        let receiver = try await WebhookProcessTests.Receiver(secret: secret, port: ports[2], failFirst: 0, folder: folder)
        defer { receiver.stop() }
        let files = try await Self.fileServer(www, port: ports[3])
        defer { kill(files.processIdentifier, SIGKILL) }

        // Both start at once and download BLOB 8, which reports Bo's model: one stores it and announces Bo's passkey.
        _ = try publish(8, key: ["FIDO_CERTIFIED"], bypass: ["USER_VERIFICATION_BYPASS"])
        let arguments = [
            "--metadata-root", root, "--metadata-url", "http://127.0.0.1:\(ports[3])/blob.jwt", "--metadata-refresh-seconds", "1",
            "--options-per-minute", "1000",
        ]
        async let startA = ServerProcess.start(
            database: url, port: ports[0], extraArguments: arguments, logPath: folder.appendingPathComponent("a.log").path,
            environment: WebhookProcessTests.receiversBeside)
        async let startB = ServerProcess.start(
            database: url, port: ports[1], extraArguments: arguments, logPath: folder.appendingPathComponent("b.log").path,
            environment: WebhookProcessTests.receiversBeside)
        let (a, b) = try await (startA, startB)
        defer {
            a.stop()
            b.stop()
        }
        let both = [a, b]
        #expect(try await WebhookProcessTests.eventually(20) { both.allSatisfy { Self.log($0).contains("no=8") } }, "\(both.map(Self.log))")
        // A bypassable user verification stops new registrations only: Bo and Ann sign in on both.
        for (index, server) in both.enumerated() {
            let boAnswer = try await Self.signIn(bo, "bo", via: server, signCount: UInt32(index + 1))
            let annAnswer = try await Self.signIn(ann, "ann", via: server, signCount: UInt32(index + 1))
            #expect(boAnswer.status == 200 && annAnswer.status == 200, "\(boAnswer.json.serialized()) \(annAnswer.json.serialized())")
        }

        // BLOB 9 reports Ann's model's keys extractable, imported by the operator while both run.
        let nine = try publish(9, key: ["FIDO_CERTIFIED", "USER_KEY_PHYSICAL_COMPROMISE"], bypass: ["USER_VERIFICATION_BYPASS"])
        let import9 = try await run(["metadata", "import", nine])
        #expect(import9.status == 0 && import9.output.contains("passkeys newly reported compromised: 1"), "\(import9.output)")
        #expect(try await WebhookProcessTests.eventually(20) { both.allSatisfy { Self.log($0).contains("no=9") } }, "\(both.map(Self.log))")
        for (index, server) in both.enumerated() {
            let annAnswer = try await Self.signIn(ann, "ann", via: server, signCount: UInt32(10 + index))
            #expect(annAnswer.status == 400 && annAnswer["error"] == "authenticator_compromised", "\(annAnswer.json.serialized())")
            let boAnswer = try await Self.signIn(bo, "bo", via: server, signCount: UInt32(10 + index))
            #expect(boAnswer.status == 200, "\(boAnswer.json.serialized())")
        }

        // Each passkey announced once, by whichever stored the BLOB, and delivered.
        let repository = try await PostgresRepository.connect(try PostgresConfiguration(url: url))
        defer { Task { await repository.shutdown() } }
        let compromised = { try await WebhookProcessTests.written(repository).filter { $0.message.type == "passkey.authenticator_compromised" } }
        #expect(try await WebhookProcessTests.eventually(30) { try await compromised().allSatisfy { $0.state == .delivered } })
        let written = try await compromised()
        #expect(written.compactMap(\.message.userID) == ["u-bo", "u-ann"], "\(written.map(\.message))")
        let received = receiver.received.filter { $0.type == "passkey.authenticator_compromised" }
        #expect(received.allSatisfy(\.verified) && Set(received.map(\.id)) == Set(written.map(\.message.id)) && received.count == 2, "\(received)")
    }
}
